"""The summarize command: the embedded example, JSON output, and one-line errors."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from f1posterior.cli import main


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "f1posterior", *args], capture_output=True, text=True, timeout=120
    )


def test_embedded_example_prints_table1_side_by_side():
    proc = run("summarize")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "embedded example: Zhang et al. (2015), Figure 3" in out
    assert "Table 1, reproduced under the paper's prior" in out
    # our micro-F1 mean beside the paper's: DESIGN.md's exact 0.80274 under alpha = beta = 1,
    # so the reproduction really ran under the paper's prior (the default's mean is 0.814)
    assert re.search(r"^\s+mean\s+0\.803\s+0\.803\s", out, flags=re.M), out
    assert "[0.782, 0.823]" in out  # the paper's micro-F1 HDI, printed beside ours
    assert proc.stderr == ""


def test_json_output(tmp_path, capsys):
    f = tmp_path / "m.json"
    f.write_text(json.dumps({"matrix": [[40, 10], [5, 45]], "labels": ["neg", "pos"]}))
    code = main(
        [
            "summarize",
            str(f),
            "--format",
            "json",
            "--draws",
            "2000",
            "--ref",
            "0.8",
            "--metric",
            "micro_f1",
            "--metric",
            "f1",
        ]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    micro = out["metrics"]["micro_f1"]
    assert set(micro) >= {"score", "mean", "std", "mc_error", "hdi", "p_below", "p_above"}
    assert micro["score"] == pytest.approx(0.85)
    assert len(micro["hdi"]) == 2 and out["draws"] == 2000
    assert "adaptive" in out["prior"]  # the default prior, named in the output
    assert len(out["metrics"]["f1"]["mean"]) == 2


def test_seed_is_deterministic(tmp_path, capsys):
    f = tmp_path / "m.json"
    f.write_text("[[40, 10], [5, 45]]")
    outs = []
    for _ in range(2):
        main(["summarize", str(f), "--format", "json", "--draws", "1000", "--seed", "7"])
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1]


@pytest.mark.parametrize(
    ("content", "args", "match"),
    [
        ("[[1, 2], [3]]", [], "ragged rows"),
        ("[[1, -2], [3, 4]]", [], "counts must be non-negative"),
        ("[[0.5, 0.5], [0.2, 0.8]]", [], "looks normalised"),
        ("{broken", [], "broken JSON at line 1"),
        ("[[1, 2], [3, 4]]", ["--draws", "0"], "expected an integer >= 1; got '0'"),
        ("[[1, 2], [3, 4]]", ["--ci-prob", "1.5"], r"expected a number in \(0, 1\); got '1.5'"),
        ("[[1, 2], [3, 4]]", ["--metric", "f7"], "invalid choice: 'f7'"),
    ],
)
def test_errors_are_one_line_with_status_2(tmp_path, content, args, match):
    f = tmp_path / "m.json"
    f.write_text(content)
    proc = run("summarize", str(f), *args)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert re.search(match, lines[0]), lines[0]


def test_missing_file(tmp_path):
    proc = run("summarize", str(tmp_path / "nope.json"))
    assert proc.returncode == 2 and "no such file" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
