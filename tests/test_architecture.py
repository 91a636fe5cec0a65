"""The package's layers (docs/architecture.md): imports only go downward.

Every module under ``f1posterior/`` is parsed with :mod:`ast`; each relative or absolute
``f1posterior`` import (at module level or inside a function: lazy imports count, only those
under ``if TYPE_CHECKING:`` are skipped) is an edge from the importing subpackage to the
imported one. An edge may go to a lower level, or across one level only in a direction
declared in ``SAME_LEVEL``. The front door ``f1posterior/__init__.py`` (and ``__main__``)
re-exports from every level and is exempt.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "f1posterior"

#: Level of each subpackage: a module may import from its own subpackage and lower levels.
LEVELS = {
    "_core": 0,  # validation, seeds, priors, the Gamma sampler, the ConfusionMatrix type
    "metrics": 1,  # metric functions of tables and draws
    "io": 2,  # readers and writers of files (no posterior needed to read a matrix)
    "posterior": 3,  # summaries, the engine, exact routes, evaluate
    "analysis": 4,  # comparison, sensitivity, frequentist intervals, thresholds
    "gating": 4,  # the CI gate and sample-size planning
    "report": 5,  # HTML reports and figures
    "integrations": 5,  # Dask, scikit-learn
    "cli": 6,
}

#: Imports allowed between two subpackages of the same level: (importer, imported).
SAME_LEVEL = {
    ("gating", "analysis"),  # the gate's paired checks use compare_predictions
}

#: No module may be longer than this many lines.
MAX_LINES = 550

#: Modules not yet split, with the length they may not exceed. This list may only shrink.
OVERSIZE_ALLOWED: dict[str, int] = {}

#: Private names (``_x``) imported from another subpackage: each is a helper that should
#: become public inside its layer. This list may only shrink.
PRIVATE_ALLOWED: set[tuple[str, str, str]] = set()

FRONT_DOOR = {"f1posterior", "f1posterior.__main__"}


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _subpackage(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in LEVELS) else None


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(module: str, path: Path) -> list[tuple[str, list[str], int]]:
    """(imported module, imported names, line) of every f1posterior import in ``module``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_pkg = path.name == "__init__.py"
    package = module if is_pkg else module.rsplit(".", 1)[0]
    found: list[tuple[str, list[str], int]] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target == "f1posterior" or target.startswith("f1posterior."):
                names = [a.name for a in node.names]
                # ``from . import x`` imports the submodule x where there is one
                subs = [n for n in names if f"{target}.{n}" in MODULES]
                for n in subs:
                    found.append((f"{target}.{n}", [], node.lineno))
                rest = [n for n in names if n not in subs]
                if rest:
                    found.append((target, rest, node.lineno))
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("f1posterior"):
                    found.append((a.name, [], node.lineno))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


EDGES = [
    (mod, target, names, line)
    for mod, path in MODULES.items()
    if mod not in FRONT_DOOR
    for target, names, line in _imports(mod, path)
]


def test_every_subpackage_has_a_level() -> None:
    subpackages = {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    assert subpackages == set(LEVELS)
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= 8, top  # the rest lives in subpackages


def test_imports_only_go_downward() -> None:
    bad = []
    for mod, target, _, line in EDGES:
        src, dst = _subpackage(mod), _subpackage(target)
        if src is None:
            bad.append(f"{mod}:{line}: module outside every layer")
            continue
        if dst is None:
            if target in FRONT_DOOR:
                bad.append(f"{mod}:{line} imports the front door {target}")
            continue
        if src == dst:
            continue
        if LEVELS[dst] > LEVELS[src]:
            bad.append(f"{mod}:{line} ({src}, level {LEVELS[src]}) imports upward {target}")
        elif LEVELS[dst] == LEVELS[src] and (src, dst) not in SAME_LEVEL:
            bad.append(f"{mod}:{line} imports {target} across level {LEVELS[src]} undeclared")
    assert not bad, "\n".join(bad)


def test_every_import_names_a_module() -> None:
    missing = [f"{mod}:{line} imports {t}" for mod, t, _, line in EDGES if t not in MODULES]
    assert not missing, "\n".join(missing)


def test_no_module_is_shadowed_by_a_function() -> None:
    import importlib

    import f1posterior

    for name in sorted({m.split(".")[1] for m in MODULES if m.count(".") >= 1} - {"__main__"}):
        module = importlib.import_module(f"f1posterior.{name}")
        attr = getattr(f1posterior, name, module)
        assert attr is module, f"f1posterior.{name} is {attr!r}, not the module"
    gating = importlib.import_module("f1posterior.gating")
    assert not hasattr(gating, "gate") or gating.gate is importlib.import_module(
        "f1posterior.gating.gate"
    )
    assert callable(f1posterior.gate) and callable(f1posterior.assert_gate)


def test_same_level_directions_have_no_cycles() -> None:
    for a, b in SAME_LEVEL:
        assert LEVELS[a] == LEVELS[b]
        assert (b, a) not in SAME_LEVEL


def _private_imports() -> set[tuple[str, str, str]]:
    out = set()
    for mod, target, names, _ in EDGES:
        src, dst = _subpackage(mod), _subpackage(target)
        if dst is None or src == dst:
            continue
        out |= {(mod, target, n) for n in names if n.startswith("_") and not n.startswith("__")}
    return out


def test_no_private_names_across_subpackages() -> None:
    found = _private_imports()
    new = sorted(found - PRIVATE_ALLOWED)
    assert not new, "private names imported across subpackages:\n" + "\n".join(map(str, new))
    stale = sorted(PRIVATE_ALLOWED - found)
    assert not stale, "remove from PRIVATE_ALLOWED (fixed):\n" + "\n".join(map(str, stale))


@pytest.mark.parametrize("module", sorted(MODULES))
def test_module_size(module: str) -> None:
    n = len(MODULES[module].read_text(encoding="utf-8").splitlines())
    cap = OVERSIZE_ALLOWED.get(module, MAX_LINES)
    assert n <= cap, f"{module} has {n} lines (at most {cap}): split it"


def test_oversize_list_only_shrinks() -> None:
    for module, cap in OVERSIZE_ALLOWED.items():
        assert module in MODULES, f"{module} is gone: remove it from OVERSIZE_ALLOWED"
        n = len(MODULES[module].read_text(encoding="utf-8").splitlines())
        assert n > MAX_LINES, f"{module} has {n} lines now: remove it from OVERSIZE_ALLOWED"
        assert cap <= n + 20, f"lower the cap of {module} to {n}"


def test_the_checker_sees_lazy_and_relative_imports(tmp_path: Path) -> None:
    src = (
        "from typing import TYPE_CHECKING\n"
        "from .._core import sampling\n"
        "if TYPE_CHECKING:\n"
        "    from ..cli import main\n"
        "def f():\n"
        "    from ..report.html import write_report\n"
        "    import f1posterior.cli\n"
    )
    path = tmp_path / "mod.py"
    path.write_text(src)
    got = {t for t, _, _ in _imports("f1posterior.metrics.mod", path)}
    assert got == {"f1posterior._core.sampling", "f1posterior.report.html", "f1posterior.cli"}


def test_type_hints_import_downward_too(tmp_path: Path) -> None:
    """Imports under ``if TYPE_CHECKING:`` obey the levels as well: an upward hint is a circle."""
    bad = []
    for mod, path in MODULES.items():
        if mod in FRONT_DOOR:
            continue
        copy = tmp_path / path.name  # the same name: ``__init__`` stays a package
        copy.write_text(path.read_text(encoding="utf-8").replace("if TYPE_CHECKING:", "if 1:"))
        for target, _, line in _imports(mod, copy):
            src, dst = _subpackage(mod), _subpackage(target)
            if src is None or dst is None or src == dst:
                continue
            if LEVELS[dst] > LEVELS[src] or (
                LEVELS[dst] == LEVELS[src] and (src, dst) not in SAME_LEVEL
            ):
                bad.append(f"{mod}:{line} imports {target} (level {LEVELS[dst]}) for type hints")
    assert not bad, "\n".join(bad)
