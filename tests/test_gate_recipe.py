"""The documented CI recipe is calibrated: the exact command lines of the README's CI step,
docs/ci-gate.md's generic job and docs/examples/gate-workflow.yml's pip job, run through the
real command line, pass a model with micro-F1 0.952 on a 10-class, 540-document test set
against a 0.80 floor.

Negative control: the same command lines with `--prior aligned` (alpha = 1, as in the paper)
added do not pass that model (its 95% HDI of micro-F1 is [0.789, 0.848], INCONCLUSIVE), and
the outputs say the prior dominated the check. A second control: the recipe fails a model
whose micro-F1 is credibly below the floor, so it is not a gate that passes everything.
"""

from __future__ import annotations

import csv
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def _ten_class(correct: int, per_class: int = 54) -> np.ndarray:
    """10 classes of ``per_class`` documents, ``correct`` of them on the diagonal; the errors
    spread over the other classes (one a class at a time, round robin)."""
    m = 10
    c = np.diag(np.full(m, per_class))
    for e in range(m * per_class - correct):
        j = e % m
        c[j, j] -= 1
        c[j, (j + 1 + e // m) % m] += 1
    return c


GOOD = _ten_class(514)  # micro-F1 0.952 on 540 documents
PRODUCTION = _ten_class(459)  # micro-F1 0.850 on 540 documents
BAD = _ten_class(400)  # micro-F1 0.741: credibly below 0.80


def _readme_script() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Use it as a CI gate") :]
    section = section[: section.index("\n## ", 1)]
    (block,) = re.findall(r"```bash\n(.*?)```", section, flags=re.S)
    # the install line is the only one not run here (the package is installed already)
    return "\n".join(ln for ln in block.splitlines() if not ln.startswith("pip install"))


def _doc_script() -> str:
    text = (ROOT / "docs" / "ci-gate.md").read_text(encoding="utf-8")
    section = text[text.index("### A generic CI job") :]
    return re.search(r"```bash\n(.*?)```", section, flags=re.S).group(1)


def _workflow_script() -> str:
    doc = yaml.safe_load((ROOT / "docs" / "examples" / "gate-workflow.yml").read_text())
    (step,) = [s for s in doc["jobs"]["gate-pip"]["steps"] if s.get("name") == "Gate the model"]
    return step["run"]


RECIPES = {"README": _readme_script, "ci-gate.md": _doc_script, "workflow": _workflow_script}


def _write(path: Path, table: np.ndarray) -> None:
    with path.open("w", newline="") as fh:
        csv.writer(fh).writerows(table.tolist())


def _run(script: str, tmp_path: Path, model: np.ndarray) -> tuple[int, str, str]:
    (tmp_path / "eval").mkdir(exist_ok=True)
    _write(tmp_path / "eval" / "confusion.csv", model)
    _write(tmp_path / "eval" / "production.csv", PRODUCTION)
    summary = tmp_path / "summary.md"
    summary.write_text("")
    env = {
        "PATH": f"{BIN}:/usr/bin:/bin",
        "CI_JOB_SUMMARY": str(summary),
        "GITHUB_STEP_SUMMARY": str(summary),
    }
    r = subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300
    )
    return r.returncode, r.stdout + r.stderr, summary.read_text()


def _with_aligned(script: str) -> str:
    """The recipe's floor command with ``--prior aligned`` added after its FILE."""
    return script.replace(
        "f1posterior gate eval/confusion.csv --metric micro_f1 --min",
        "f1posterior gate eval/confusion.csv --prior aligned --metric micro_f1 --min",
    ).replace(
        "f1posterior gate eval/confusion.csv \\\n",
        "f1posterior gate eval/confusion.csv --prior aligned \\\n",
        1,
    )


@pytest.mark.parametrize("where", RECIPES)
def test_documented_recipe_names_no_prior(where):
    script = RECIPES[where]()
    assert script.count("f1posterior gate") == 2
    assert "--prior" not in script  # the default prior, whatever it is called


@pytest.mark.parametrize("where", RECIPES)
def test_documented_recipe_passes_a_095_model_against_a_080_floor(where, tmp_path):
    script = RECIPES[where]()
    status, out, summary = _run(script, tmp_path, GOOD)
    assert status == 0, out
    assert summary.count("### f1posterior gate passed") == 2, summary
    assert "micro_f1 >= 0.8 | 1.0000" in summary  # P(micro-F1 >= 0.80) rounds to 1
    assert "prior-dominated" not in summary + out


@pytest.mark.parametrize("where", RECIPES)
def test_negative_controls_aligned_prior_and_a_bad_model(where, tmp_path):
    script = RECIPES[where]()
    aligned = _with_aligned(script)
    assert aligned != script and "--prior aligned" in aligned
    status, out, summary = _run(aligned, tmp_path, GOOD)
    assert status != 0  # INCONCLUSIVE (exit 3, or 1 under --inconclusive fail)
    assert "### f1posterior gate INCONCLUSIVE" in summary
    assert "[0.789, 0.848]" in summary  # the HDI, far below the observed 0.952
    assert "**prior-dominated**" in summary  # and the gate says why
    assert "f1posterior gate: warning: the prior dominates micro_f1 >= 0.8" in out
    status, out, summary = _run(script, tmp_path, BAD)
    assert status == 1, out  # a model credibly below the floor fails the build
    assert "### f1posterior gate FAILED" in summary


def test_python_recipe_passes_and_its_aligned_control_does_not():
    from f1posterior import Floor, assert_gate

    text = (ROOT / "docs" / "ci-gate.md").read_text(encoding="utf-8")
    call = re.search(r"assert_gate\(confusion, (\[Floor\([^\]]*\])\)", text)
    assert call is not None  # the documented call names no prior
    checks = eval(call.group(1), {"Floor": Floor})  # a literal list of floors
    assert checks == [Floor("micro_f1", 0.80), Floor("recall", 0.60)]
    assert assert_gate(GOOD, checks).verdict == "pass"
    with pytest.raises(AssertionError, match="INCONCLUSIVE"):
        assert_gate(GOOD, checks, alpha=1.0, beta="aligned")
