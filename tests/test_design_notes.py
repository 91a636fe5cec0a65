"""The design notes (docs/design.md) and the modules stay tied: every pointer a docstring
makes resolves to a section, every section names a module that exists, and module
docstrings stay short (the notes live on the page, not in the source)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "f1posterior"
PAGE = ROOT / "docs" / "design.md"
POINTER = re.compile(r"docs/design\.md#([a-z0-9-]+)")
SECTION = re.compile(r"^### `([^`]+\.py)` \{ #([a-z0-9-]+) \}$", re.M)
#: A module docstring says what the module is for; longer notes go to the page.
MAX_MODULE_DOCSTRING = 12


def _sections(text: str) -> dict[str, str]:
    return {anchor: path for path, anchor in SECTION.findall(text)}


def _pointers(root: Path) -> list[tuple[str, str]]:
    return [
        (str(path.relative_to(root)), anchor)
        for path in sorted(root.rglob("*.py"))
        for anchor in POINTER.findall(path.read_text(encoding="utf-8"))
    ]


def _long_module_docstrings(root: Path) -> list[str]:
    long = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        first = tree.body[0] if tree.body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            lines = (first.end_lineno or first.lineno) - first.lineno + 1
            if isinstance(first.value.value, str) and lines > MAX_MODULE_DOCSTRING:
                long.append(f"{path.relative_to(root)}: {lines} lines")
    return long


def test_every_pointer_resolves():
    sections = _sections(PAGE.read_text(encoding="utf-8"))
    pointers = _pointers(PACKAGE) + _pointers(ROOT / "tests")
    assert len(pointers) >= 30
    missing = [f"{path} -> #{anchor}" for path, anchor in pointers if anchor not in sections]
    assert not missing, "pointers to no section of docs/design.md: " + ", ".join(missing)


def test_every_section_names_a_module():
    sections = _sections(PAGE.read_text(encoding="utf-8"))
    assert len(sections) >= 30
    gone = [f"#{a}: {p}" for a, p in sections.items() if not (PACKAGE / p).is_file()]
    assert not gone, "design notes of modules that do not exist: " + ", ".join(gone)


def test_module_docstrings_are_short():
    long = _long_module_docstrings(PACKAGE)
    assert not long, "move the notes to docs/design.md: " + ", ".join(long)


def test_checks_can_fail(tmp_path):
    # negative controls: a dangling pointer, a section of a missing module, a long docstring
    (tmp_path / "m.py").write_text(
        '"""Doc.\n'
        + "\n" * MAX_MODULE_DOCSTRING
        + "Design notes: docs/design.md"
        + '#nowhere\n"""\n'
    )
    assert _pointers(tmp_path) == [("m.py", "nowhere")]
    assert "nowhere" not in _sections(PAGE.read_text(encoding="utf-8"))
    assert _sections("### `gone/_x.py` { #gone-x }\n") == {"gone-x": "gone/_x.py"}
    assert not (PACKAGE / "gone/_x.py").exists()
    assert _long_module_docstrings(tmp_path) == [f"m.py: {MAX_MODULE_DOCSTRING + 3} lines"]
