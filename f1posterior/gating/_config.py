"""Gate configuration files: ``f1posterior gate --config gate.toml`` and ``pyproject.toml``.

Keys, an example and the precedence of command-line flags are in the design notes.

Design notes: docs/design.md#gating-config
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._core.describe import describe
from ._checks import Floor, GateCheck, JointFloor, NonInferiority, per_class_metrics

if TYPE_CHECKING:
    from ._config_schema import GateConfig, GateConfigError, parse_config

__all__ = [
    "CheckGroup",
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
#: The schema's names, also importable from here (:func:`__getattr__`).
_SCHEMA_NAMES = ("GateConfig", "GateConfigError", "parse_config")


def __getattr__(name: str) -> Any:
    """The schema's names at first use: a gate without a configuration file never loads
    :mod:`f1posterior.gating._config_schema`."""
    if name in _SCHEMA_NAMES:
        from . import _config_schema

        return getattr(_config_schema, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _toml() -> Any:
    import tomllib

    return tomllib


def _read_toml(path: Path, shown: str) -> dict[str, Any]:
    """The TOML document at ``path``; one-line GateConfigError on any problem."""
    from ._config_schema import GateConfigError

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
    from ._config_schema import parse_config

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
    from ._config_schema import GateConfigError, parse_config

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


def _margin(metric: str, given: tuple[float | None, float | None], spec: Any) -> NonInferiority:
    """The comparison of ``metric``: the command line's margin (absolute, relative), else the
    check's own, else an absolute 0."""
    drop, rel = given if given != (None, None) else (spec.max_drop, spec.max_relative_drop)
    if rel is not None:
        return NonInferiority(metric, rel, relative=True)
    return NonInferiority(metric, 0.0 if drop is None else drop)


@dataclass(frozen=True)
class CheckGroup:
    """Consecutive checks that one gate call runs: floors, and comparisons with one baseline."""

    checks: tuple[GateCheck, ...]
    baseline: str | None = None


def check_groups(
    cfg: GateConfig,
    *,
    baseline: str | None = None,
    max_drop: float | None = None,
    min_support: int | None = None,
    joint: bool = False,
    multilabel: bool = False,
    max_relative_drop: float | None = None,
) -> list[CheckGroup]:
    """The configuration's checks as check objects, in gate calls; command-line values override.

    ``baseline`` (``--baseline``) replaces the top-level ``baseline`` (the
    checks with ``baseline = true``); ``max_drop`` (``--max-drop``) or
    ``max_relative_drop`` (``--max-relative-drop``) replaces every check's
    margin; ``min_support`` and ``joint`` (``--min-support``,
    ``--joint``) apply to every per-class floor. Consecutive checks share a
    call unless they compare with different baselines.

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
    per = per_class_metrics(multilabel)
    for flag, value in (("--min-support", min_support), ("--joint", joint)):
        if value and not any(c.min is not None and c.metric in per for c in cfg.checks):
            raise cfg.error(
                "check",
                f"{flag} applies to per-class floors ({', '.join(sorted(per))}); there are none",
            )
    default_base = baseline if baseline is not None else cfg.settings.get("baseline")
    groups: list[CheckGroup] = []
    for i, c in enumerate(cfg.checks, 1):
        path = None
        check: GateCheck
        if c.min is not None:
            support, together = c.min_support, bool(c.joint)
            if c.metric in per:
                support = min_support if min_support is not None else support
                together = together or joint
            check = (JointFloor if together else Floor)(c.metric, c.min, support)
        else:
            where = default_base if c.baseline is True else c.baseline
            if where is None:
                raise cfg.error(
                    f"check[{i}].baseline",
                    "true means the top-level baseline, but there is no baseline key and no "
                    "--baseline",
                )
            path = str(where)
            check = _margin(c.metric, (max_drop, max_relative_drop), c)
        if groups and (path is None or groups[-1].baseline in (None, path)):
            last = groups[-1]
            groups[-1] = CheckGroup(last.checks + (check,), last.baseline or path)
        else:
            groups.append(CheckGroup((check,), path))
    return groups
