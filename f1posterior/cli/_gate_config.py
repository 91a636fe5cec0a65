"""``f1posterior gate --config FILE`` (or ``pyproject.toml``), ``--min-support``, ``--joint``.

The configuration (:mod:`f1posterior.gating._config`) supplies the flags that
the command line does not give: a flag on the command line always wins, and
``--metric`` checks on the command line replace the file's ``[[check]]``
tables. Without ``--config``, a ``[tool.f1posterior.gate]`` table in
``pyproject.toml`` of the current directory is used; the report names the
file used (``Config:`` line, ``config`` in JSON, the Markdown input line).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from .._core.priors import DEFAULT_PRIOR
from .._core.streams import DEFAULT_DRAWS, DEFAULT_SEED
from ..gating import DEFAULT_MAX_DRAWS, find_pyproject_config, load_config
from ._common import positive_int

if TYPE_CHECKING:
    from ..gating import GateConfig

__all__ = ["CONFIG_DEFAULTS", "add_config_arguments", "apply_config"]

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
    "slice_col",
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
