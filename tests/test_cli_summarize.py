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
    assert set(micro) >= {"score", "mean", "std", "mc_error", "hdi_low", "hdi_high", "p_below"}
    assert micro["score"] == pytest.approx(0.85)
    assert micro["hdi_low"] < micro["hdi_high"] and out["draws"] == 2000
    assert "hierarchical" in out["prior"]  # the default prior, named in the output
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
        ("[[1, 2], [3, 4]]", ["--draws", "0"], "expected an integer >= 2; got '0'"),
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


def _matrix_file(tmp_path):
    f = tmp_path / "m.json"
    f.write_text(json.dumps({"matrix": [[900, 100], [20, 180]], "labels": ["neg", "pos"]}))
    return f


def test_prevalence_and_chance_in_json(tmp_path, capsys):
    f = _matrix_file(tmp_path)
    base = ["summarize", str(f), "--format", "json", "--draws", "2000", "--metric", "precision"]
    assert main([*base, "--prevalence", "0.9,0.1", "--chance"]) == 0
    out = json.loads(capsys.readouterr().out)
    prec = out["metrics"]["precision"]
    # PPV = pi TPR / (pi TPR + (1 - pi) FPR) at pi = 0.1 on the observed table: 0.5
    assert prec["score"][1] == pytest.approx(0.1 * 0.9 / (0.1 * 0.9 + 0.9 * 0.1))
    assert prec["chance_score"] == pytest.approx([0.9, 0.1])  # precision by chance = pi
    assert prec["p_above_chance"][1] == 1.0
    assert out["prevalence"] == {"kind": "fixed", "values": [0.9, 0.1]} and out["chance"]
    assert main([*base, "--prevalence", "dirichlet:90,10"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["prevalence"] == {"kind": "dirichlet", "values": [90.0, 10.0]}
    assert "chance" not in out["metrics"]["precision"]


def test_chance_columns_in_csv(tmp_path):
    f = _matrix_file(tmp_path)
    proc = run("summarize", str(f), "--format", "csv", "--draws", "1000", "--metric", "accuracy",
               "--chance", "--prevalence", "0.5,0.5")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    meta, header, row = proc.stdout.splitlines()[:3]
    assert json.loads(meta.removeprefix("# f1posterior: "))["prevalence"]["kind"] == "fixed"
    cols = header.split(",")
    assert cols[-3:] == ["accuracy_chance", "accuracy_p_above_chance", "accuracy_prior_dominated"]
    values = dict(zip(cols, row.split(","), strict=True))
    # accuracy by chance at pi = (0.5, 0.5): sum_u pi_u k_u = 0.5 whatever the columns
    assert float(values["accuracy_chance"]) == pytest.approx(0.5, abs=1e-12)
    assert float(values["accuracy_score"]) == pytest.approx(0.5 * 0.9 + 0.5 * 0.9)


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (["--prevalence", "0.5;0.5"], r"--prevalence must be comma-separated numbers .*'0.5;0.5'"),
        (["--prevalence", "beta:1,2"], r"--prevalence must be .*got 'beta:1,2'"),
        (["--prevalence", "0.4,0.4"], r"prevalence must sum to 1"),
        (["--prevalence", "0.2,0.3,0.5"], r"prevalence must have a last axis of length M = 2"),
        (["--prevalence", "dirichlet:0,5"], r"prevalence\[1\] must hold finite positive"),
        (["--chance", "--prior-sensitivity"], r"--chance is not available with --prior-sens"),
    ],
)
def test_bad_deployment_options(tmp_path, args, match):
    proc = run("summarize", str(_matrix_file(tmp_path)), "--draws", "100", *args)
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert re.search(match, proc.stderr), proc.stderr


def test_streamed_batch_header_records_the_target(tmp_path, capsys):
    """A streamed batch's JSON header says which prevalence and chance options made its rows."""
    path = tmp_path / "b.jsonl"
    path.write_text(
        '{"name": "a", "matrix": [[5, 1], [2, 7]]}\n{"name": "b", "matrix": [[9, 1], [3, 7]]}\n'
    )
    args = ["summarize", str(path), "--format", "json", "--draws", "500"]
    assert main([*args, "--prevalence", "0.9,0.1", "--chance"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["prevalence"] == {"kind": "fixed", "values": [0.9, 0.1]} and out["chance"] is True
    assert [r["name"] for r in out["rows"]] == ["a", "b"]
    assert main(args) == 0  # without the options the header has neither key
    plain = json.loads(capsys.readouterr().out)
    assert "prevalence" not in plain and "chance" not in plain
