"""Gate configuration files: ``f1posterior gate --config gate.toml`` and ``pyproject.toml``.

A configuration is a TOML table. Top-level keys (all optional):

``file``, ``baseline``
    The model's input and the baseline's (paths relative to the folder of
    the configuration file).
``prob``, ``draws``, ``max_draws``, ``seed``, ``prior``, ``ci_prob``
    As the command-line flags of the same names (``--max-draws``, ...).
``inconclusive``, ``multilabel``
    ``"pass"`` or ``"fail"`` (``--inconclusive``); true or false (``--multilabel``).

and an array of ``[[check]]`` tables, one per check:

``metric`` (required)
    The metric's name.
``min`` *or* ``baseline``
    A floor T (PASS when P(metric >= T) >= prob), or a comparison with a
    baseline: a path (relative to the configuration's folder) or ``true``
    for the top-level ``baseline`` (or ``--baseline``).
``max_drop``
    The non-inferiority margin of a baseline check (default 0).
``min_support``, ``joint``
    For per-class floors: skip classes with fewer true documents; one joint
    check P(every class >= T) (see :mod:`f1posterior.gating.classes`).

Example::

    prob = 0.95
    prior = "aligned"
    file = "eval/confusion.csv"
    baseline = "eval/production.csv"

    [[check]]
    metric = "micro_f1"
    min = 0.8

    [[check]]
    metric = "recall"
    min = 0.6
    min_support = 20
    joint = true

    [[check]]
    metric = "micro_f1"
    baseline = true
    max_drop = 0.01

The same keys may live in ``pyproject.toml`` under ``[tool.f1posterior.gate]``
(checks as ``[[tool.f1posterior.gate.check]]``). Command-line flags override
the file; checks given on the command line (``--metric``) replace the file's
checks. Every problem is a :class:`GateConfigError` (a ``ValueError``) of one
line naming the file and the key.
"""

from __future__ import annotations

import math
import numbers
import sys
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._core.describe import describe
from .._core.priors import PRIOR_PRESETS
from .._core.results import value_equality
from ..metrics.multiclass import METRIC_RANGES, METRICS, PER_CLASS_METRICS
from ..posterior.multilabel import MULTILABEL_METRICS, PER_LABEL_METRICS
from .checks import LOWER_IS_BETTER

__all__ = [
    "CheckGroup",
    "CheckSpec",
    "GateConfig",
    "GateConfigError",
    "PYPROJECT_TABLE",
    "check_groups",
    "find_pyproject_config",
    "load_config",
    "parse_config",
]

#: Where a gate configuration lives in ``pyproject.toml``.
PYPROJECT_TABLE = "tool.f1posterior.gate"
#: The largest configuration file read, in bytes.
MAX_CONFIG_BYTES = 1_000_000
#: The largest number of draws accepted (as ``gate``'s ``max_draws`` limit).
_MAX_DRAWS = 100_000_000

_TOP_KEYS = (
    "file",
    "baseline",
    "prob",
    "draws",
    "max_draws",
    "seed",
    "prior",
    "ci_prob",
    "inconclusive",
    "multilabel",
    "check",
)
#: Old names of top-level keys, still read (with a FutureWarning) under their new name.
_RENAMED_KEYS = {"hdi_prob": "ci_prob"}
_CHECK_KEYS = ("metric", "min", "baseline", "max_drop", "min_support", "joint")


class GateConfigError(ValueError):
    """A gate configuration that cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class CheckSpec:
    """One ``[[check]]`` table.

    Attributes
    ----------
    metric : str
    min : float or None
        The floor, for a floor check.
    baseline : str, True or None
        For a baseline check: the baseline's path (resolved against the
        configuration's folder), or True for the top-level ``baseline``.
    max_drop, min_support, joint :
        None when not given.
    """

    metric: str
    min: float | None = None
    baseline: str | bool | None = None
    max_drop: float | None = None
    min_support: int | None = None
    joint: bool | None = None


@value_equality
@dataclass(frozen=True)
class GateConfig:
    """A parsed gate configuration.

    Attributes
    ----------
    path : str
        The file read (``pyproject.toml [tool.f1posterior.gate]`` for a
        ``pyproject.toml``), as shown in reports and messages.
    settings : dict
        The top-level keys given (paths resolved), by name.
    checks : tuple of CheckSpec
        The ``[[check]]`` tables, in order.
    """

    path: str
    settings: Mapping[str, Any]
    checks: tuple[CheckSpec, ...]

    def error(self, key: str, problem: str) -> GateConfigError:
        """A :class:`GateConfigError` naming this file and ``key``."""
        return GateConfigError(f"{self.path}: {key}: {problem}")

    def check_modes(self, multilabel: bool) -> None:
        """Refuse metrics of the other mode, and per-class options of other metrics.

        Raises
        ------
        GateConfigError
            A metric unknown in this mode (single-label or ``multilabel``), or
            ``min_support``/``joint`` on a metric that is not per-class.
        """
        known = [m for m in MULTILABEL_METRICS if m != "hamming_loss"] if multilabel else METRICS
        per = PER_LABEL_METRICS if multilabel else PER_CLASS_METRICS - LOWER_IS_BETTER.keys()
        mode = "with multilabel" if multilabel else "without multilabel"
        for i, c in enumerate(self.checks, 1):
            if c.metric not in known:
                raise self.error(
                    f"check[{i}].metric",
                    f"{c.metric!r} is not a gate metric {mode}; use one of {', '.join(known)}",
                )
            for key in ("min_support", "joint"):
                if getattr(c, key) is not None and c.metric not in per:
                    raise self.error(
                        f"check[{i}].{key}",
                        f"applies to per-class floors ({', '.join(sorted(per))}); got metric "
                        f"{c.metric!r}",
                    )


def _toml() -> Any:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    return tomllib


def _read_toml(path: Path, shown: str) -> dict[str, Any]:
    """The TOML document at ``path``; one-line GateConfigError on any problem."""
    try:
        if not path.is_file():
            what = "no such file" if not path.exists() else "not a regular file"
            raise GateConfigError(f"{shown}: {what}")
        with path.open("rb") as fh:
            raw = fh.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise GateConfigError(f"{shown}: cannot read ({exc.strerror or exc})") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise GateConfigError(f"{shown}: larger than {MAX_CONFIG_BYTES:,} bytes; not a config")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise GateConfigError(f"{shown}: not UTF-8 text") from None
    toml = _toml()
    try:
        data: dict[str, Any] = toml.loads(text)
    except toml.TOMLDecodeError as exc:
        raise GateConfigError(f"{shown}: not valid TOML ({exc})") from None
    except RecursionError:
        raise GateConfigError(f"{shown}: nested too deeply") from None
    return data


def load_config(path: str | Path) -> GateConfig:
    """Read a gate configuration file (``--config``).

    Parameters
    ----------
    path : str or Path
        A TOML file whose top level is the configuration.

    Returns
    -------
    GateConfig

    Raises
    ------
    GateConfigError
        The file cannot be read, is not TOML, or holds an unknown key, a
        value of the wrong type or range, a check with both or neither of
        ``min`` and ``baseline``, ... (one line, naming the file and the key).
    """
    p = Path(path)
    data = _read_toml(p, str(path))
    return parse_config(data, str(path), p.parent)


def find_pyproject_config(folder: str | Path = ".") -> GateConfig | None:
    """The ``[tool.f1posterior.gate]`` table of ``folder/pyproject.toml``, if there is one.

    Returns None when there is no ``pyproject.toml`` or it has no such table.
    Paths in the table are relative to ``folder``.
    """
    p = Path(folder) / "pyproject.toml"
    if not p.is_file():
        return None
    data = _read_toml(p, str(p))
    table: Any = data
    for part in PYPROJECT_TABLE.split("."):
        if not isinstance(table, Mapping) or part not in table:
            return None
        table = table[part]
    where = f"{p} [{PYPROJECT_TABLE}]"
    if not isinstance(table, Mapping):
        raise GateConfigError(f"{where}: must be a table; got {describe(table)}")
    return parse_config(table, where, p.parent)


def parse_config(data: Mapping[str, Any], where: str, folder: str | Path) -> GateConfig:
    """Validate a configuration table; ``where`` names it in messages, paths are under ``folder``.

    Raises
    ------
    GateConfigError
        As :func:`load_config`.
    """
    cfg = GateConfig(path=where, settings={}, checks=())
    data = _renamed(cfg, data)
    unknown = [k for k in data if k not in _TOP_KEYS]
    if unknown:
        raise cfg.error(str(unknown[0]), f"unknown key (allowed: {', '.join(sorted(_TOP_KEYS))})")
    base = Path(folder)
    settings: dict[str, Any] = {}
    for key, value in data.items():
        if key == "check":
            continue
        settings[key] = _setting(cfg, key, value, base)
    raw_checks = data.get("check", [])
    if not isinstance(raw_checks, list) or not all(isinstance(c, Mapping) for c in raw_checks):
        raise cfg.error(
            "check", f"must be an array of tables ([[check]]); got {describe(raw_checks)}"
        )
    checks = tuple(_check(cfg, i, c, base) for i, c in enumerate(raw_checks, 1))
    return GateConfig(path=where, settings=settings, checks=checks)


def _renamed(cfg: GateConfig, data: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` with old key names replaced by their new names, each with a FutureWarning."""
    out = dict(data)
    for old, new in _RENAMED_KEYS.items():
        if old not in out:
            continue
        if new in out:
            raise cfg.error(old, f"is the old name of {new!r}; give only {new!r}")
        warnings.warn(
            f"{cfg.path}: {old!r} is renamed {new!r}; the old name will be removed "
            "in a future version",
            FutureWarning,
            stacklevel=2,
        )
        out[new] = out.pop(old)
    return out


def _number(cfg: GateConfig, key: str, value: Any, low: float, high: float, open_: bool) -> float:
    shape = f"({low:g}, {high:g})" if open_ else f"[{low:g}, {high:g}]"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise cfg.error(key, f"must be a number in {shape}; got {describe(value)}")
    v = float(value)
    inside = (low < v < high if open_ else low <= v <= high) and math.isfinite(v)
    if not inside:
        raise cfg.error(key, f"must be a number in {shape}; got {value!r}")
    return v


def _integer(cfg: GateConfig, key: str, value: Any, low: int, high: int | None = None) -> int:
    shape = f"an integer >= {low}" + (f" and <= {high:,}" if high is not None else "")
    if isinstance(value, bool) or not isinstance(value, int):
        raise cfg.error(key, f"must be {shape}; got {describe(value)}")
    if value < low or (high is not None and value > high):
        raise cfg.error(key, f"must be {shape}; got {value}")
    return value


def _path(cfg: GateConfig, key: str, value: Any, base: Path) -> str:
    if not isinstance(value, str) or not value.strip():
        raise cfg.error(key, f"must be a file path (a non-empty string); got {describe(value)}")
    if value == "-":
        return value
    p = Path(value).expanduser()
    return str(p if p.is_absolute() else base / p)


def _choice(cfg: GateConfig, key: str, value: Any, allowed: Any) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise cfg.error(key, f"must be one of {', '.join(allowed)}; got {describe(value)}")
    return value


def _bool(cfg: GateConfig, key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise cfg.error(key, f"must be true or false; got {describe(value)}")
    return value


def _setting(cfg: GateConfig, key: str, value: Any, base: Path) -> Any:
    if key in ("file", "baseline"):
        return _path(cfg, key, value, base)
    if key == "prob":
        return _number(cfg, key, value, 0.5, 1.0, open_=True)
    if key == "ci_prob":
        return _number(cfg, key, value, 0.0, 1.0, open_=True)
    if key in ("draws", "max_draws"):
        return _integer(cfg, key, value, 1, _MAX_DRAWS)
    if key == "seed":
        return _integer(cfg, key, value, 0)
    if key == "prior":
        return _choice(cfg, key, value, list(PRIOR_PRESETS))
    if key == "inconclusive":
        return _choice(cfg, key, value, ["pass", "fail"])
    return _bool(cfg, key, value)  # multilabel


def _check(cfg: GateConfig, i: int, table: Mapping[str, Any], base: Path) -> CheckSpec:
    at = f"check[{i}]"
    unknown = [k for k in table if k not in _CHECK_KEYS]
    if unknown:
        raise cfg.error(f"{at}.{unknown[0]}", f"unknown key (allowed: {', '.join(_CHECK_KEYS)})")
    if "metric" not in table:
        raise cfg.error(f"{at}.metric", "missing: every check names its metric")
    metric = table["metric"]
    known = list(dict.fromkeys([*METRICS, *MULTILABEL_METRICS]))
    if not isinstance(metric, str) or metric not in known:
        raise cfg.error(
            f"{at}.metric", f"must be one of {', '.join(known)}; got {describe(metric)}"
        )
    if metric in LOWER_IS_BETTER:
        raise cfg.error(
            f"{at}.metric",
            f"{metric} is lower-is-better and a gate checks floors and drops of scores; gate "
            f"{LOWER_IS_BETTER[metric]} instead",
        )
    has_min, has_base = "min" in table, "baseline" in table
    if has_min == has_base:
        got = "both" if has_min else "neither"
        raise cfg.error(at, f"give either min (a floor) or baseline (a comparison); got {got}")
    if has_min:
        for key in ("max_drop",):
            if key in table:
                raise cfg.error(f"{at}.{key}", "applies to a baseline check; this check has min")
        low, high = METRIC_RANGES.get(metric, (0.0, 1.0))
        floor = _number(cfg, f"{at}.min", table["min"], low, high, open_=False)
        support = table.get("min_support")
        joint = table.get("joint")
        return CheckSpec(
            metric=metric,
            min=floor,
            min_support=None if support is None else _integer(cfg, f"{at}.min_support", support, 1),
            joint=None if joint is None else _bool(cfg, f"{at}.joint", joint),
        )
    for key in ("min_support", "joint"):
        if key in table:
            raise cfg.error(f"{at}.{key}", "applies to a floor (min); this check has baseline")
    value = table["baseline"]
    if value is True:
        path: str | bool = True
    elif isinstance(value, bool):
        raise cfg.error(
            f"{at}.baseline", "must be a file path, or true for the top-level baseline; got false"
        )
    else:
        path = _path(cfg, f"{at}.baseline", value, base)
    drop = table.get("max_drop")
    return CheckSpec(
        metric=metric,
        baseline=path,
        max_drop=None if drop is None else _number(cfg, f"{at}.max_drop", drop, 0.0, 1.0, False),
    )


@dataclass(frozen=True)
class CheckGroup:
    """Consecutive checks that one call of :func:`f1posterior.gating.gate.gate` runs together.

    Either floors (``minimums``, with one ``min_support`` and ``joint``) or
    baseline comparisons (``compare`` against one ``baseline`` with one
    ``max_drop``).
    """

    minimums: tuple[tuple[str, float], ...] = ()
    compare: tuple[str, ...] = ()
    baseline: str | None = None
    max_drop: float | None = None
    min_support: int | None = None
    joint: bool = False


def check_groups(
    cfg: GateConfig,
    *,
    baseline: str | None = None,
    max_drop: float | None = None,
    min_support: int | None = None,
    joint: bool = False,
    multilabel: bool = False,
) -> list[CheckGroup]:
    """The configuration's checks as gate calls, in order; command-line values override.

    ``baseline`` (``--baseline``) replaces the top-level ``baseline`` (the
    checks with ``baseline = true``); ``max_drop`` (``--max-drop``) replaces
    every check's; ``min_support`` and ``joint`` (``--min-support``,
    ``--joint``) apply to every per-class floor.

    Raises
    ------
    GateConfigError
        No checks; ``baseline = true`` without a top-level ``baseline`` or
        ``--baseline``; ``--min-support`` or ``--joint`` without a per-class
        floor; the errors of :meth:`GateConfig.check_modes`.
    """
    cfg.check_modes(multilabel)
    if not cfg.checks:
        raise cfg.error("check", "no [[check]] tables, and no --metric on the command line")
    per = PER_LABEL_METRICS if multilabel else PER_CLASS_METRICS - LOWER_IS_BETTER.keys()
    for flag, value in (("--min-support", min_support), ("--joint", joint)):
        if value and not any(c.min is not None and c.metric in per for c in cfg.checks):
            raise cfg.error(
                "check",
                f"{flag} applies to per-class floors ({', '.join(sorted(per))}); there are none",
            )
    default_base = baseline if baseline is not None else cfg.settings.get("baseline")
    groups: list[CheckGroup] = []
    keys: list[tuple[Any, ...]] = []
    for i, c in enumerate(cfg.checks, 1):
        if c.min is not None:
            support = c.min_support
            together = bool(c.joint)
            if c.metric in per:
                support = min_support if min_support is not None else support
                together = together or joint
            key: tuple[Any, ...] = ("min", support, together)
            item = CheckGroup(minimums=((c.metric, c.min),), min_support=support, joint=together)
        else:
            path = default_base if c.baseline is True else c.baseline
            if path is None:
                raise cfg.error(
                    f"check[{i}].baseline",
                    "true means the top-level baseline, but there is no baseline key and no "
                    "--baseline",
                )
            drop = max_drop if max_drop is not None else c.max_drop
            key = ("baseline", path, drop)
            item = CheckGroup(compare=(c.metric,), baseline=str(path), max_drop=drop)
        # consecutive checks of one kind and settings share a call (a metric is compared
        # once per call)
        if keys and keys[-1] == key and c.metric not in groups[-1].compare:
            last = groups[-1]
            groups[-1] = CheckGroup(
                minimums=last.minimums + item.minimums,
                compare=last.compare + item.compare,
                baseline=last.baseline,
                max_drop=last.max_drop,
                min_support=last.min_support,
                joint=last.joint,
            )
            continue
        keys.append(key)
        groups.append(item)
    return groups
