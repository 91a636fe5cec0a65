"""README.md is a front page that stays true: its Python blocks run, the two commands
that work on a fresh machine are there verbatim, what the first one prints is what it
prints, its calibration table is the calibration page's, and every link resolves."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
TEXT = README.read_text(encoding="utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", TEXT, flags=re.S)
FRESH_MACHINE = (
    "python -m pip install . && python -m f1posterior summarize",
    "python -m pip install --upgrade pip && python -m pip install -e . --group test"
    " && python -m pytest --all",
)


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_block_runs(code):
    exec(compile(code, str(README), "exec"), {})


def test_readme_has_python_blocks():
    assert len(BLOCKS) >= 2


def test_the_two_fresh_machine_commands_are_there_verbatim():
    sh_blocks = [b.strip() for b in re.findall(r"```sh\n(.*?)```", TEXT, flags=re.S)]
    assert sh_blocks[:2] == list(FRESH_MACHINE)


def test_ci_runs_the_readme_test_command():
    run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    test_command = FRESH_MACHINE[1].rpartition(" && ")[2]
    assert f"\nstep {test_command}\n" in run


def test_what_the_first_command_prints_is_what_it_prints():
    shown = re.search(r"## What the first command prints\n\n```text\n(.*?)```", TEXT, re.S)
    assert shown, "README lost its 'What the first command prints' section"
    run = subprocess.run(
        [sys.executable, "-m", "f1posterior", "summarize"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    assert shown.group(1) == run.stdout


def _table_after(text: str, marker: str) -> list[str]:
    rest = text[text.index(marker) :]
    start = rest.index("\n| 95% interval coverage")
    lines = rest[start + 1 :].splitlines()
    return [ln for ln in lines[: next(i for i, ln in enumerate(lines) if not ln.startswith("|"))]]


def test_which_prior_table_is_the_calibration_pages():
    calibration = (ROOT / "docs" / "calibration.md").read_text(encoding="utf-8")
    readme_table = _table_after(TEXT, "## Which prior?")
    assert len(readme_table) >= 8  # header, rule, six rows
    assert readme_table == _table_after(calibration, "## The study in short")


def _slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    headings = re.findall(r"^#+ (.*)$", path.read_text(encoding="utf-8"), flags=re.M)
    return {_slug(h) for h in headings}


def test_slug_matches_github_for_a_heading_with_punctuation():
    assert _slug("The paper's Table 1, reproduced") == "the-papers-table-1-reproduced"


def test_every_relative_link_resolves():
    links = re.findall(r"\]\(([^)\s]+)\)", TEXT)
    local = [ln for ln in links if not ln.startswith(("http://", "https://"))]
    assert len(local) >= 10
    for link in local:
        target, _, anchor = link.partition("#")
        path = ROOT / target
        assert path.exists(), f"README links to a missing file: {link}"
        if anchor:
            assert anchor in _anchors(path), f"README links to a missing section: {link}"


def test_front_page_is_short_and_speaks_of_the_project_alone():
    assert len(TEXT.splitlines()) <= 150
    commit = r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b"  # letters and digits
    assert not re.search(r"(?i)\bissue\b|#\d+\b|" + commit, TEXT)
    assert "hdi_prob" not in TEXT and "hdi-prob" not in TEXT
