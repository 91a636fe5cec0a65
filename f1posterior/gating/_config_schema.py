"""The schema of a gate configuration (:mod:`f1posterior.gating._config`): its keys,
their types and ranges, and :func:`parse_config`, which checks a TOML table against it.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._core.describe import describe
from .._core.priors import PRIOR_PRESETS
from .._core.results import value_equality
from .._core.validation import did_you_mean
from ..metrics import METRIC_RANGES, METRICS, MULTILABEL_METRICS
from ._checks import GATE_MULTILABEL_METRICS, LOWER_IS_BETTER, per_class_metrics
from ._gate import MAX_DRAWS_LIMIT

__all__ = ["CheckSpec", "GateConfig", "GateConfigError", "parse_config"]

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
    "id_col",
    "slice_col",
    "check",
)
_CHECK_KEYS = (
    "metric",
    "min",
    "baseline",
    "max_drop",
    "max_relative_drop",
    "min_support",
    "joint",
)


class GateConfigError(ValueError):
    """A gate configuration that cannot be used; the message names the file and the key.

    See Also
    --------
    f1posterior.gate : The gate a configuration describes (``f1posterior gate --config``).

    Examples
    --------
    >>> from f1posterior import GateConfigError
    >>> issubclass(GateConfigError, ValueError)  # one line, as every input error
    True
    """


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
    max_drop, max_relative_drop, min_support, joint :
        None when not given (``max_relative_drop``: the allowed drop as a
        fraction of the baseline, ``NonInferiority(..., relative=True)``).
    """

    metric: str
    min: float | None = None
    baseline: str | bool | None = None
    max_drop: float | None = None
    max_relative_drop: float | None = None
    min_support: int | None = None
    joint: bool | None = None


@value_equality
@dataclass(frozen=True, eq=False)
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
        known = GATE_MULTILABEL_METRICS if multilabel else tuple(METRICS)
        per = per_class_metrics(multilabel)
        mode = "with multilabel" if multilabel else "without multilabel"
        for i, c in enumerate(self.checks, 1):
            if c.metric not in known:
                raise self.error(
                    f"check[{i}].metric",
                    f"{c.metric!r} is not a gate metric {mode}; use one of {', '.join(known)}"
                    + did_you_mean(c.metric, list(known)),
                )
            for key in ("min_support", "joint"):
                if getattr(c, key) is not None and c.metric not in per:
                    raise self.error(
                        f"check[{i}].{key}",
                        f"applies to per-class floors ({', '.join(sorted(per))}); got metric "
                        f"{c.metric!r}",
                    )


def parse_config(data: Mapping[str, Any], where: str, folder: str | Path) -> GateConfig:
    """Validate a configuration table; ``where`` names it in messages, paths are under ``folder``.

    Raises
    ------
    GateConfigError
        As :func:`load_config`.
    """
    cfg = GateConfig(path=where, settings={}, checks=())
    unknown = [k for k in data if k not in _TOP_KEYS]
    if unknown:
        raise cfg.error(
            str(unknown[0]),
            f"unknown key (allowed: {', '.join(sorted(_TOP_KEYS))})"
            + did_you_mean(unknown[0], _TOP_KEYS),
        )
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


def _column(cfg: GateConfig, key: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise cfg.error(key, f"must be a column name (a non-empty string); got {describe(value)}")
    return value


def _choice(cfg: GateConfig, key: str, value: Any, allowed: Any) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise cfg.error(
            key,
            f"must be one of {', '.join(allowed)}; got {describe(value)}"
            + did_you_mean(value, list(allowed)),
        )
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
        return _integer(cfg, key, value, 1, MAX_DRAWS_LIMIT)
    if key == "seed":
        return _integer(cfg, key, value, 0)
    if key == "prior":
        return _choice(cfg, key, value, list(PRIOR_PRESETS))
    if key == "inconclusive":
        return _choice(cfg, key, value, ["pass", "fail"])
    if key in ("id_col", "slice_col"):
        return _column(cfg, key, value)
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
            f"{at}.metric",
            f"must be one of {', '.join(known)}; got {describe(metric)}"
            + did_you_mean(metric, known),
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
        for key in ("max_drop", "max_relative_drop"):
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
    drop, rel = table.get("max_drop"), table.get("max_relative_drop")
    if drop is not None and rel is not None:
        raise cfg.error(
            f"{at}.max_relative_drop", "give max_drop (absolute) or max_relative_drop, not both"
        )
    if rel is not None:
        if (
            isinstance(rel, bool)
            or not isinstance(rel, numbers.Real)
            or not 0.0 <= float(rel) < 1.0
        ):
            raise cfg.error(
                f"{at}.max_relative_drop", f"must be a number in [0, 1); got {describe(rel)}"
            )
        rel = float(rel)
    return CheckSpec(
        metric=metric,
        baseline=path,
        max_drop=None if drop is None else _number(cfg, f"{at}.max_drop", drop, 0.0, 1.0, False),
        max_relative_drop=rel,
    )
