"""The package's layers and boundary (docs/architecture.md).

Every module under ``f1posterior/`` is parsed with :mod:`ast`; each relative or absolute
``f1posterior`` import (at module level or inside a function: lazy imports count, only those
under ``if TYPE_CHECKING:`` are skipped) is an edge from the importing module to the imported
one. The rules:

- imports only go downward: an edge may go to a lower level, or across one level only in a
  direction declared in ``SAME_LEVEL`` (the front door ``f1posterior/__init__.py`` and
  ``__main__`` re-export from every level and are exempt from this rule only);
- no import circle between modules;
- no private name (``_x``) is imported from another module;
- implementation modules are private (``_name.py``, except ``PUBLIC_MODULES``) and are
  imported only from inside their own package; other packages import through the
  subpackage, whose ``__init__`` lists its public names in ``__all__``;
- no module is longer than ``MAX_LINES``.

Each rule has a negative control: a throw-away package that breaks it is caught.
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

FRONT_DOOR = {"f1posterior", "f1posterior.__main__"}

#: Modules users import by path, so they keep a public name: each adapts one library and its
#: functions are named after that library's idiom (``integrations.dask.evaluate``), which would
#: collide in one ``integrations`` namespace. Every other module of a public subpackage is
#: private (``_name.py``), its public names listed in the subpackage's ``__all__``.
PUBLIC_MODULES = {
    "f1posterior.integrations.dask",
    "f1posterior.integrations.dask_files",
    "f1posterior.integrations.mlflow",
    "f1posterior.integrations.sklearn",
    "f1posterior.integrations.sklearn_metrics",
}


def _modules(package: Path = PACKAGE) -> dict[str, Path]:
    out = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
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


def _is_lazy(tree: ast.Module) -> bool:
    """A lazy package: ``if TYPE_CHECKING:`` imports, ``else: __getattr__, __dir__ =
    attach(...)``; the imports are the ones it makes at first use, so they count and bind."""
    return any(
        isinstance(node, ast.If) and _is_type_checking(node.test)
        and any(isinstance(a, ast.Assign) and "__getattr__" in ast.unparse(a.targets[0])
                for a in node.orelse)
        for node in tree.body
    )  # fmt: skip


def _top_level(tree: ast.Module) -> list[ast.stmt]:
    """The module's statements, with a lazy package's ``if TYPE_CHECKING:`` block opened."""
    lazy = _is_lazy(tree)
    return [
        child
        for node in tree.body
        for child in (
            node.body
            if lazy and isinstance(node, ast.If) and _is_type_checking(node.test)
            else [node]
        )
    ]


def _imports(
    module: str, path: Path, modules: dict[str, Path] | None = None
) -> list[tuple[str, list[str], int]]:
    """(imported module, imported names, line) of every f1posterior import in ``module``."""
    modules = MODULES if modules is None else modules
    root = module.split(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_pkg = path.name == "__init__.py"
    package = module if is_pkg else module.rsplit(".", 1)[0]
    found: list[tuple[str, list[str], int]] = []
    lazy = is_pkg and _is_lazy(tree)

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test) and not lazy:
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
            if target == root or target.startswith(root + "."):
                names = [a.name for a in node.names]
                # ``from . import x`` imports the submodule x where there is one
                subs = [n for n in names if f"{target}.{n}" in modules]
                for n in subs:
                    found.append((f"{target}.{n}", [], node.lineno))
                rest = [n for n in names if n not in subs]
                if rest:
                    found.append((target, rest, node.lineno))
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name == root or a.name.startswith(root + "."):
                    found.append((a.name, [], node.lineno))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def _edges(
    modules: dict[str, Path], skip: set[str] | frozenset[str] = frozenset()
) -> list[tuple[str, str, list[str], int]]:
    """(importer, imported module, names, line) of every import between ``modules``."""
    return [
        (mod, target, names, line)
        for mod, path in modules.items()
        if mod not in skip
        for target, names, line in _imports(mod, path, modules)
    ]


EDGES = _edges(MODULES, FRONT_DOOR)
ALL_EDGES = _edges(MODULES)  # the front door too


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
    from types import ModuleType

    import f1posterior

    for module in sorted(set(MODULES) - {"f1posterior"}):
        parent, _, name = module.rpartition(".")
        attr = getattr(importlib.import_module(parent), name, None)
        assert attr is None or isinstance(attr, ModuleType), f"{module} is shadowed by {attr!r}"
    assert callable(f1posterior.gate) and callable(f1posterior.assert_gate)


def test_same_level_directions_have_no_cycles() -> None:
    for a, b in SAME_LEVEL:
        assert LEVELS[a] == LEVELS[b]
        assert (b, a) not in SAME_LEVEL


def _private_names(edges: list[tuple[str, str, list[str], int]]) -> list[str]:
    """Private names (``_x``, not a module) imported from another module."""
    return [
        f"{mod}:{line} imports {n} from {target}"
        for mod, target, names, line in edges
        for n in names
        if n.startswith("_") and not n.startswith("__")
    ]


def test_no_private_name_crosses_a_module() -> None:
    found = _private_names(ALL_EDGES)
    assert not found, "private names imported from another module:\n" + "\n".join(found)


def _private_modules(edges: list[tuple[str, str, list[str], int]]) -> list[str]:
    """Imports of a private module (a ``_x`` in its path) from outside the package that
    holds it: ``f1posterior.posterior._batch`` only from ``f1posterior.posterior``."""
    bad = []
    for mod, target, _, line in edges:
        parts = target.split(".")
        private = [i for i, p in enumerate(parts) if p.startswith("_") and not p.startswith("__")]
        if private:
            owner = ".".join(parts[: private[0]])
            if mod != owner and not mod.startswith(owner + "."):
                bad.append(f"{mod}:{line} imports {target} (private to {owner})")
    return bad


def test_private_modules_are_imported_only_inside_their_package() -> None:
    found = _private_modules(ALL_EDGES)
    assert not found, "go through the subpackage's __all__:\n" + "\n".join(found)


def _public_modules(modules: dict[str, Path], public: set[str]) -> list[str]:
    """Modules of a public subpackage that are neither private nor declared public."""
    return [
        mod
        for mod, path in modules.items()
        if path.name != "__init__.py"
        and mod.count(".") >= 2
        and not any(p.startswith("_") for p in mod.split(".")[1:])
        and mod not in public
    ]


def test_implementation_modules_are_private() -> None:
    found = _public_modules(MODULES, PUBLIC_MODULES)
    assert not found, "rename to _name.py (or declare in PUBLIC_MODULES):\n" + "\n".join(found)
    assert PUBLIC_MODULES <= set(MODULES)


def _all_problems(modules: dict[str, Path]) -> list[str]:
    """Each public subpackage's ``__init__`` has ``__all__``: a list of strings naming public
    names it binds."""
    bad = []
    for mod, path in modules.items():
        if path.name != "__init__.py" or mod.count(".") < 1:
            continue
        if any(p.startswith("_") for p in mod.split(".")[1:]):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        bound: set[str] = set()
        listed: list[str] | None = None
        for node in _top_level(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                bound |= {(a.asname or a.name).split(".")[0] for a in node.names}
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                bound.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if isinstance(t, ast.Name) and t.id == "__all__" and node.value is not None:
                        listed = list(ast.literal_eval(node.value))
                    elif isinstance(t, ast.Name):
                        bound.add(t.id)
        if listed is None:
            bad.append(f"{mod}: no __all__")
            continue
        bad += [f"{mod}: __all__ lists the private {n}" for n in listed if n.startswith("_")]
        bad += [f"{mod}: __all__ lists {n}, which it does not bind" for n in set(listed) - bound]
        bad += [f"{mod}: __all__ repeats {n}" for n in set(listed) if listed.count(n) > 1]
    return bad


def test_every_subpackage_lists_its_public_names() -> None:
    found = _all_problems(MODULES)
    assert not found, "\n".join(found)


def _circles(edges: list[tuple[str, str, list[str], int]]) -> list[list[str]]:
    """Import circles between modules (Tarjan's strongly connected components); an import
    of a package (``from ..posterior import x``) is an edge to its ``__init__``."""
    graph: dict[str, set[str]] = {}
    for mod, target, _, _ in edges:
        graph.setdefault(mod, set()).add(target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in graph.get(v, ()):
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return out


def test_no_import_circle() -> None:
    found = _circles(ALL_EDGES)
    assert not found, "import circles (lazy imports count):\n" + "\n".join(map(str, found))


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
        "    from ..report.pages import write_report\n"
        "    import f1posterior.cli\n"
    )
    path = tmp_path / "mod.py"
    path.write_text(src)
    got = {t for t, _, _ in _imports("f1posterior.metrics.mod", path)}
    assert got == {"f1posterior._core.sampling", "f1posterior.report.pages", "f1posterior.cli"}


def _violating_package(tmp_path: Path, files: dict[str, str]) -> dict[str, Path]:
    """A throw-away ``f1posterior`` package of ``files`` (path -> source) under ``tmp_path``."""
    root = tmp_path / "f1posterior"
    for name, src in {"__init__.py": "", **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(src)
    return _modules(root)


def test_the_checks_catch_a_violating_package(tmp_path: Path) -> None:
    mods = _violating_package(
        tmp_path,
        {
            "posterior/__init__.py": "from ._a import run\n",
            "posterior/_a.py": "from ._b import _helper\ndef run(): pass\n",
            "posterior/_b.py": "def f():\n    from ._a import run\n_helper = 1\n",
            "posterior/c.py": "",
            "gating/__init__.py": '__all__ = ["_x", "y"]\n_x = 1\n',
            "gating/_g.py": "from ..posterior._a import run\n",
        },
    )
    edges = _edges(mods)
    assert _private_names(edges) == [
        "f1posterior.posterior._a:1 imports _helper from f1posterior.posterior._b"
    ]
    assert _circles(edges) == [["f1posterior.posterior._a", "f1posterior.posterior._b"]]
    assert _private_modules(edges) == [
        "f1posterior.gating._g:1 imports f1posterior.posterior._a (private to f1posterior.posterior)"
    ]
    assert _public_modules(mods, set()) == ["f1posterior.posterior.c"]
    assert _public_modules(mods, {"f1posterior.posterior.c"}) == []
    assert sorted(_all_problems(mods)) == [
        "f1posterior.gating: __all__ lists the private _x",
        "f1posterior.gating: __all__ lists y, which it does not bind",
        "f1posterior.posterior: no __all__",
    ]


def test_the_checks_pass_a_clean_package(tmp_path: Path) -> None:
    mods = _violating_package(
        tmp_path,
        {
            "_core/__init__.py": "",
            "_core/v.py": "def check(): pass\n",
            "posterior/__init__.py": 'from ._a import run\n__all__ = ["run"]\n',
            "posterior/_a.py": "from .._core.v import check\nfrom ._b import helper\ndef run(): pass\n",
            "posterior/_b.py": "helper = 1\n",
            "gating/__init__.py": "__all__: list[str] = []\n",
            "gating/_g.py": "from ..posterior import run\n",
        },
    )
    edges = _edges(mods)
    assert (_private_names(edges), _circles(edges), _private_modules(edges)) == ([], [], [])
    assert (_public_modules(mods, set()), _all_problems(mods)) == ([], [])


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


def test_a_lazy_package_s_imports_count_and_bind(tmp_path: Path) -> None:
    """A lazy ``__init__`` imports under ``if TYPE_CHECKING:`` what it loads at first use: those
    imports are edges (a circle through them is caught) and bind the names ``__all__`` lists."""
    lazy = (
        "from typing import TYPE_CHECKING\n"
        "from .._core.lazy import attach as _attach\n"
        "if TYPE_CHECKING:\n"
        "    from ._a import run\n"
        "else:\n"
        '    __getattr__, __dir__ = _attach(__name__, {"._a": ("run",)})\n'
        '__all__ = ["run", "walk"]\n'
    )
    mods = _violating_package(
        tmp_path,
        {
            "_core/__init__.py": "",
            "_core/lazy.py": "def attach(): pass\n",
            "posterior/__init__.py": lazy,
            "posterior/_a.py": "def run():\n    from . import run\n",
        },
    )
    edges = _edges(mods)
    assert ("f1posterior.posterior", "f1posterior.posterior._a", ["run"], 4) in edges
    assert _circles(edges) == [["f1posterior.posterior", "f1posterior.posterior._a"]]
    assert _all_problems(mods) == [
        "f1posterior.posterior: __all__ lists walk, which it does not bind"
    ]
