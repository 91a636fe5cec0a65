"""``f1posterior gate --config FILE`` (or ``pyproject.toml``), ``--min-support``, ``--joint``.

The configuration (:mod:`f1posterior.gating.config`) supplies the flags that
the command line does not give: a flag on the command line always wins, and
``--metric`` checks on the command line replace the file's ``[[check]]``
tables. Without ``--config``, a ``[tool.f1posterior.gate]`` table in
``pyproject.toml`` of the current directory is used; the report names the
file used (``Config:`` line, ``config`` in JSON, the Markdown input line).
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable
from typing import Any

from .._core.priors import DEFAULT_PRIOR
from .._core.streams import DEFAULT_DRAWS, DEFAULT_SEED
from ..gating.config import (
    GateConfig,
    GateConfigError,
    check_groups,
    find_pyproject_config,
    load_config,
)
from ..gating.config_schema import CheckSpec
from ..gating.gate import DEFAULT_MAX_DRAWS
from ..gating.verdicts import GateResult
from ..io.sources import is_stdin
from .common import positive_int

__all__ = [
    "CONFIG_DEFAULTS",
    "add_config_arguments",
    "apply_config",
    "command_line_config",
    "gate_config_checks",
]

#: Settings a configuration can give, by argparse ``dest``, with their defaults.
CONFIG_DEFAULTS: dict[str, Any] = {
    "prob": 0.95,
    "draws": DEFAULT_DRAWS,
    "max_draws": DEFAULT_MAX_DRAWS,
    "seed": DEFAULT_SEED,
    "prior": DEFAULT_PRIOR,
    "ci_prob": 0.95,
    "max_drop": 0.0,
}
#: Top-level configuration keys read into ``args`` when the flag is not given.
_FROM_FILE = (
    "file",
    "baseline",
    "prob",
    "draws",
    "max_draws",
    "seed",
    "prior",
    "ci_prob",
    "id_col",
)


def add_config_arguments(p: argparse.ArgumentParser) -> None:
    """--config, --min-support, --joint."""
    g = p.add_argument_group("configuration and per-class checks")
    g.add_argument(
        "--config",
        metavar="TOML",
        help="read the gate's settings and [[check]] tables from a TOML file (paths in it are "
        "relative to its folder; flags given here override it; --metric checks replace its "
        "checks). Default: [tool.f1posterior.gate] of ./pyproject.toml, when present",
    )
    g.add_argument(
        "--min-support",
        type=positive_int,
        default=None,
        metavar="K",
        help="per-class floors skip classes with fewer than K true documents (multi-label: "
        "labels with fewer than K positive documents); they are reported as SKIPPED and the "
        "verdict ignores them. Default: every class is judged (a class without true documents "
        "usually cannot pass)",
    )
    g.add_argument(
        "--joint",
        action="store_true",
        default=False,
        help="turn the per-class floors of each metric into one check, P(every class >= T), "
        "from the joint posterior draws (sampled; adaptive draws)",
    )


def apply_config(args: argparse.Namespace) -> GateConfig | None:
    """Read the configuration, if any, into ``args``; fill the defaults; return it.

    ``args.cli_given`` records the settings given on the command line.
    """
    args.cli_given = {
        d for d in (*CONFIG_DEFAULTS, "file", "baseline") if getattr(args, d) is not None
    }
    cfg = load_config(args.config) if args.config else find_pyproject_config(".")
    if cfg is not None:
        for key in _FROM_FILE:
            if getattr(args, key) is None and key in cfg.settings:
                setattr(args, key, cfg.settings[key])
        if args.inconclusive is None:
            args.inconclusive = cfg.settings.get("inconclusive")
        args.multilabel = args.multilabel or cfg.settings.get("multilabel", False)
    for dest, default in CONFIG_DEFAULTS.items():
        if getattr(args, dest) is None:
            setattr(args, dest, default)
    if args.file is None:
        where = f"; {cfg.path} has no file key" if cfg is not None else ""
        raise ValueError(f"no FILE: give the input file, or file = ... in a --config{where}")
    return cfg


def command_line_config(args: argparse.Namespace, cfg: GateConfig) -> GateConfig | None:
    """``cfg`` with the command line's ``--metric`` checks in place of its ``[[check]]`` tables.

    A floor (``--metric M --min T``) stays a floor; with ``--baseline`` on the
    command line every ``--metric`` is also compared with it, as without a
    configuration. A bare ``--metric M`` is compared with the baseline
    (``--baseline``, or the file's) with the margin ``--max-drop``, or else the
    ``max_drop`` of the file's first baseline check of ``M``: a configured margin
    is kept, not silently dropped to 0. None when the checks cannot run so (a bare
    ``--metric`` and no baseline, a metric unknown in this mode): the command
    line then judges and reports them as it does without a configuration.
    """
    margins: dict[str, float] = {}
    for c in cfg.checks:
        if c.baseline is not None and c.max_drop is not None:
            margins.setdefault(c.metric, c.max_drop)
    compare_floors = "baseline" in args.cli_given
    specs: list[CheckSpec] = []
    for metric, floor in args.checks:
        if floor is not None:
            specs.append(CheckSpec(metric=metric, min=float(floor)))
        if floor is None or compare_floors:
            if args.baseline is None:
                return None
            specs.append(CheckSpec(metric=metric, baseline=True, max_drop=margins.get(metric)))
    out = dataclasses.replace(cfg, checks=tuple(specs))
    try:
        out.check_modes(args.multilabel)
    except GateConfigError:
        return None
    return out


def gate_config_checks(
    args: argparse.Namespace,
    cfg: GateConfig,
    run_one: Callable[[argparse.Namespace], GateResult],
) -> GateResult:
    """The configuration's checks, one :func:`gate` call per group, merged into one result."""
    groups = check_groups(
        cfg,
        baseline=args.baseline,
        max_drop=args.max_drop if "max_drop" in args.cli_given else None,
        min_support=args.min_support,
        joint=args.joint,
        multilabel=args.multilabel,
    )
    if len(groups) > 1 and (is_stdin(args.file) or any(is_stdin(g.baseline) for g in groups)):
        raise ValueError(
            f"standard input (-) can be read once, but the checks of {cfg.path} need "
            f"{len(groups)} passes; give file paths"
        )
    results = []
    for g in groups:
        ns = argparse.Namespace(**vars(args))
        ns.checks = [[m, t] for m, t in g.minimums] + [[m, None] for m in g.compare]
        ns.baseline = g.baseline
        ns.max_drop = 0.0 if g.max_drop is None else g.max_drop
        ns.min_support = g.min_support
        ns.joint = g.joint
        if g.baseline is None and getattr(ns, "id_col", None) is not None:
            ns.id_col = None  # floors read one file: nothing to pair
        results.append(run_one(ns))
    first = results[0]
    bases = list(dict.fromkeys(r.baseline_source for r in results if r.baseline_source))
    return dataclasses.replace(
        first,
        checks=tuple(c for r in results for c in r.checks),
        baseline_source=", ".join(bases) or None,
    )
