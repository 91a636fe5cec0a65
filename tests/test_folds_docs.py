"""The across-folds section of docs/compare.md stays true: its examples (scikit-learn's
digits, 5 folds, two models, answered in one call; the gate across folds) run as doctests,
and its calibration table is the one benchmarks/folds_calibration.py wrote."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TEXT = (ROOT / "docs" / "compare.md").read_text(encoding="utf-8")
START = TEXT.index("## Across folds, seeds or test sets")
SECTION = TEXT[START : TEXT.index("\n## ", START + 1)]


def test_the_examples_run():
    pytest.importorskip("sklearn")
    blocks = re.findall(r"```pycon\n(.*?)```", SECTION, flags=re.S)
    assert len(blocks) == 2
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    test = parser.get_doctest("\n".join(blocks), {}, "compare.md across folds", None, 0)
    runner.run(test, clear_globs=False)
    assert runner.failures == 0, f"{runner.failures} doctest failure(s) (printed above)"
    assert test.globs["res"].verdict == "pass"


def test_the_calibration_table_is_the_benchmarks():
    table = (ROOT / "benchmarks" / "results" / "folds_calibration.md").read_text()
    assert table.strip() in SECTION
