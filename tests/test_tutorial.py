"""Runs docs/tutorial.md: every ```python block in order in one namespace, and every
``f1posterior`` command line of the ```sh blocks, in a temporary directory."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # tests only

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from f1posterior.cli import main  # noqa: E402

TUTORIAL = Path(__file__).resolve().parent.parent / "docs" / "tutorial.md"
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)


def _blocks() -> list[tuple[str, str]]:
    return BLOCK.findall(TUTORIAL.read_text(encoding="utf-8"))


def test_tutorial_has_examples_of_each_kind():
    kinds = [k for k, _ in _blocks()]
    assert kinds.count("python") >= 8 and kinds.count("sh") >= 2
    assert set(kinds) <= {"python", "sh"}  # every block is executed below


@pytest.mark.filterwarnings("ignore::FutureWarning")  # ArviZ's import notice
def test_tutorial_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "tutorial"}
    for kind, code in _blocks():
        if kind == "python":
            exec(compile(code, str(TUTORIAL), "exec"), namespace)
        else:
            for line in code.splitlines():
                if line.startswith("f1posterior "):
                    assert main(shlex.split(line)[1:]) == 0, line
    plt.close("all")
    out = capsys.readouterr().out
    assert "macro_f1" in out and "A better" in out
    for name in ("macro_f1.png", "per_class_f1.png", "comparison.png", "figure4.png"):
        assert (tmp_path / name).read_bytes().startswith(b"\x89PNG")
    assert "<svg" in (tmp_path / "report.html").read_text()


def test_tutorial_images_exist():
    for link in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", TUTORIAL.read_text(encoding="utf-8")):
        assert (TUTORIAL.parent / link).read_bytes().startswith(b"\x89PNG"), link
