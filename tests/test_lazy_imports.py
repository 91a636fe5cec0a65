"""The package loads lazily: a one-matrix gate imports only what its checks need.

``f1posterior`` and its subpackages bind their names at first use (a module ``__getattr__``);
the names are also imported under ``if TYPE_CHECKING:`` for type checkers. These tests check
that the two lists agree and resolve, and, in a fresh interpreter (``sys.modules`` of the test
process is shared with other tests), which modules the gate on a 3 x 3 matrix loads.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "f1posterior"
#: The packages whose ``__init__`` binds its names at first use (``attach``).
LAZY = sorted(
    ".".join(p.relative_to(PACKAGE.parent).parent.parts)
    for p in PACKAGE.glob("**/__init__.py")
    if "_attach(__name__" in p.read_text(encoding="utf-8")
)

#: The f1posterior modules a floor check on one matrix loads (a module's last part without
#: its leading underscore, so that a module made private keeps its place in the list).
GATE_MODULES = {
    "f1posterior",
    "_core", "_core.blocks", "_core.describe",
    "_core.labelled", "_core.lazy", "_core.limits", "_core.priors", "_core.results",
    "_core.rowsums", "_core.sampling", "_core.signals", "_core.streams", "_core.text",
    "_core.validation", "_core.version",
    "cli", "cli.common", "cli.gate", "cli.gate_config", "cli.gate_pr", "cli.input_args",
    "cli.receipts",
    "gating", "gating.checks", "gating.config", "gating.draws", "gating.gate", "gating.noise",
    "gating.predictions", "gating.verdicts",
    "io", "io.baseline", "io.cells", "io.readers", "io.receipt", "io.sources",
    "metrics", "metrics.agreement", "metrics.divide", "metrics.multiclass",
    "metrics.multilabel", "metrics.rates", "metrics.registry", "metrics.sums",
    "posterior", "posterior.assemble", "posterior.batch", "posterior.chance",
    "posterior.closed_forms", "posterior.evaluation", "posterior.summary",
}  # fmt: skip

#: Standard-library modules the gate must not load: worker processes, archives (``shutil``
#: pulls ``bz2`` and ``lzma``), exact arithmetic (``statistics`` pulls ``fractions`` and
#: ``decimal``), CSV.
NOT_LOADED = (
    "multiprocessing", "concurrent.futures.process", "zipfile", "shutil", "statistics",
    "fractions", "decimal", "csv",
)  # fmt: skip


def _short(module: str) -> str:
    parts = module.split(".")[1:]
    return ".".join([*parts[:1], *(p.lstrip("_") for p in parts[1:])]) or module


def _loaded(code: str, tmp_path: Path) -> dict:
    """Run ``code`` (after the gate's imports are probed) in a fresh interpreter."""
    (tmp_path / "m.json").write_text("[[50, 3, 2], [4, 40, 6], [1, 5, 39]]")
    prog = (
        "import contextlib, io, json, sys\n"
        f"NOT_LOADED = {NOT_LOADED!r}\n"
        + code
        + "mods = sorted(m for m in sys.modules if m.startswith('f1posterior'))\n"
        "print(json.dumps({'rc': rc, 'modules': mods,\n"
        "                  'stdlib': [m for m in NOT_LOADED if m in sys.modules]}))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", prog], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_a_one_matrix_gate_imports_only_what_its_checks_need(tmp_path):
    out = _loaded(
        "from f1posterior.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    rc = main(['gate', 'm.json', '--metric', 'micro_f1', '--min', '0.5'])\n",
        tmp_path,
    )
    assert out["rc"] == 0 and out["stdlib"] == []
    loaded = {_short(m) for m in out["modules"]}
    assert loaded == GATE_MODULES, (
        f"loaded and not listed: {sorted(loaded - GATE_MODULES)}; "
        f"listed and not loaded: {sorted(GATE_MODULES - loaded)}"
    )


def test_the_probe_sees_what_a_name_loads(tmp_path):
    """Negative control: the frequentist intervals' name loads the analysis layer and
    ``statistics`` (with ``fractions`` and ``decimal``) with it."""
    out = _loaded("import f1posterior\nf1posterior.delta_interval\nrc = 0\n", tmp_path)
    assert {"statistics", "fractions", "decimal"} <= set(out["stdlib"])
    assert "f1posterior.analysis._frequentist" in out["modules"]
    assert "f1posterior.gating" not in out["modules"]


def test_importing_the_package_loads_no_subpackage(tmp_path):
    out = _loaded("import f1posterior\nrc = 0\n", tmp_path)
    assert {_short(m) for m in out["modules"]} == {
        "f1posterior", "_core", "_core.lazy", "_core.signals"
    }  # fmt: skip


def _static_names(package: str) -> tuple[dict[str, str], dict[str, str]]:
    """(name -> module) of the ``if TYPE_CHECKING:`` imports and of the ``attach`` call."""
    path = PACKAGE.parent / package.replace(".", "/") / "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typed: dict[str, str] = {}
    lazy: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom) and imp.level == 1, package
                for a in imp.names:
                    assert a.asname in (None, a.name), f"{package}: {a.name} as {a.asname}"
                    typed[a.name] = "." + (imp.module or "")
            for assign in node.orelse:
                assert isinstance(assign, ast.Assign) and isinstance(assign.value, ast.Call)
                mapping = ast.literal_eval(assign.value.args[1])
                lazy = {name: module for module, names in mapping.items() for name in names}
    return typed, lazy


@pytest.mark.parametrize("package", LAZY)
def test_the_typed_and_the_lazy_names_agree_and_resolve(package):
    """The names type checkers see are the names bound at first use, each the object its
    module defines."""
    typed, lazy = _static_names(package)
    assert lazy and typed == lazy
    pkg = importlib.import_module(package)
    for name, module in lazy.items():
        source = importlib.import_module(module, package)
        expected = getattr(source, name, None) or importlib.import_module(
            f"{source.__name__}.{name}"
        )
        assert getattr(pkg, name) is expected, f"{package}.{name}"
    assert set(pkg.__all__) <= set(dir(pkg)) and set(lazy) <= set(dir(pkg))


def test_an_unknown_name_is_an_attribute_error_naming_it():
    import f1posterior

    with pytest.raises(AttributeError, match="'f1posterior' has no attribute 'evalute'"):
        f1posterior.evalute  # noqa: B018
    with pytest.raises(AttributeError, match="'f1posterior.gating' has no attribute 'nope'"):
        f1posterior.gating.nope  # noqa: B018


def test_plain_ascii_text_is_returned_as_it_is_and_controls_still_escaped():
    """The fast path of ``escape_text`` (printable ASCII, no ``unicodedata``) agrees with the
    character-by-character rule on every ASCII character and on a mixed string."""
    import unicodedata

    from f1posterior._core.text import escape_text

    def by_category(text: str) -> str:
        bad = ("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn")
        return "".join(
            repr(ch)[1:-1] if unicodedata.category(ch) in bad and ch not in "'\"" else ch
            for ch in text
        )

    for code in range(128):
        assert escape_text(chr(code)) == by_category(chr(code)), code
    text = "".join(map(chr, range(128))) + "é\u202e"
    assert escape_text(text) == by_category(text) and "\\x1b" in escape_text(text)


@pytest.mark.parametrize("columns", [None, "57", "0", "wide"])
def test_the_help_is_as_wide_as_shutil_says(monkeypatch, columns):
    """The command line's help width (read without importing ``shutil``) is the width
    ``shutil.get_terminal_size`` gives, with ``COLUMNS`` set, unset and unusable."""
    import shutil

    from f1posterior.cli import _terminal_columns, build_parser

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert _terminal_columns() == shutil.get_terminal_size().columns
    sub = build_parser(["gate"])._subparsers._group_actions[0].choices["gate"]  # type: ignore
    ours = sub.format_help()
    sub.formatter_class = argparse.HelpFormatter  # argparse's own, its width from shutil
    assert ours == sub.format_help() and len(ours.splitlines()) > 20
