"""``--cluster-col`` on the command line: summarize, compare, gate and plan.

Each command's answer equals the Python call on the same columns (same seed), every
output names the unit (clusters of documents, with the counts), and bad input is one
line on stderr with exit 2.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from f1posterior import compare_predictions, evaluate_clusters, gate
from f1posterior._core.streams import DEFAULT_SEED
from f1posterior.cli import main
from f1posterior.gating import Floor

UNIT = "40 clusters of documents (1,000 documents)"


def _data():
    rng = np.random.default_rng(0)
    user = np.repeat(np.arange(40), 25)
    skill = rng.uniform(0.6, 0.95, 40)[user]
    y = rng.integers(0, 2, user.size)
    a = np.where(rng.random(user.size) < skill, y, 1 - y)
    b = np.where(rng.random(user.size) < skill - 0.05, y, 1 - y)
    return [str(v) for v in y], [str(v) for v in a], [str(v) for v in b], [f"u{u}" for u in user]


Y, A, B, USER = _data()


@pytest.fixture()
def files(tmp_path: Path) -> tuple[str, str]:
    new, base = tmp_path / "new.csv", tmp_path / "base.csv"
    for path, pred in ((new, A), (base, B)):
        with path.open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["user", "y_true", "y_pred", "other"])
            w.writerows(zip(USER, Y, pred, B if pred is A else A, strict=True))
    return str(new), str(base)


def test_summarize_equals_evaluate_clusters_and_names_the_unit(files, capsys):
    argv = ["summarize", files[0], "--cluster-col", "user", "--draws", "3000"]
    assert main([*argv, "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    res = evaluate_clusters(Y, A, USER, draws=3_000, rng=DEFAULT_SEED)
    got = out["metrics"]["macro_f1"]
    assert [got["hdi_low"], got["hdi_high"]] == list(res["macro_f1"].hdi)
    assert out["clusters"]["n_clusters"] == 40 and UNIT in out["prior"]
    assert out["clusters"]["design_effect"]["micro_f1"] == res.design_effect["micro_f1"]
    for fmt in ("table", "markdown"):
        assert main([*argv, "--format", fmt]) == 0
        cap = capsys.readouterr()
        assert f"Unit: {UNIT}; design effect micro_f1" in cap.out
        # 40 clusters, below MIN_CLUSTERS: one warning line on stderr
        assert cap.err.startswith("f1posterior: warning: only 40 clusters of documents")
        assert cap.err.count("\n") == 1


def test_compare_paired_files_and_predictions_equal_compare_predictions(files, capsys):
    res = compare_predictions(Y, A, B, cluster=USER, draws=3_000, rng=DEFAULT_SEED)
    for argv in (
        ["compare", *files, "--cluster-col", "user"],
        ["compare", "--predictions", files[0], "--models", "y_pred", "other",
         "--cluster-col", "user"],
    ):  # fmt: skip
        assert main([*argv, "--draws", "3000", "--format", "json"]) == 0
        out = json.loads(capsys.readouterr().out)
        got = [out["difference"]["hdi_low"], out["difference"]["hdi_high"]]
        assert got == pytest.approx(list(res.difference.hdi), abs=0)
        assert UNIT in out["prior"] and "clusters of documents" in out["source"]


def test_gate_equals_gate_with_cluster(files, capsys):
    argv = ["gate", files[0], "--metric", "micro_f1", "--min", "0.75", "--cluster-col", "user"]
    code = main([*argv, "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    res = gate(y_true=Y, y_pred=A, cluster=USER, checks=[Floor("micro_f1", 0.75)])
    assert out["checks"][0]["prob"] == res.checks[0].prob
    assert code == {"pass": 0, "fail": 1, "inconclusive": 3}[res.verdict]
    assert UNIT in out["checks"][0]["text"] and UNIT in out["prior"]
    main(["gate", files[0], "--metric", "micro_f1", "--min", "0.5", "--baseline", files[1],
          "--cluster-col", "user", "--draws", "2000"])  # fmt: skip
    text = capsys.readouterr().out
    assert "design effect of the difference" in text and UNIT in text


def test_plan_in_clusters(files, capsys):
    argv = ["plan", files[0], "--metric", "micro_f1", "--min", "0.8", "--simulations", "100"]
    assert main([*argv, "--cluster-col", "user", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    deff = evaluate_clusters(Y, A, USER, metrics="micro_f1", draws=20_000, rng=DEFAULT_SEED)
    assert out["clusters"]["design_effect"] == deff.design_effect["micro_f1"]
    assert out["clusters"]["cluster_size"] == 25
    assert main([*argv, "--icc", "0.1", "--cluster-size", "11"]) == 0
    assert "clusters of documents (11 documents each; design effect 2)" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["summarize", "{new}", "--cluster-col", "nope"], "--cluster-col: no column 'nope'"),
        (["summarize", "{new}", "--cluster-col", "user", "--format", "csv"], "row output"),
        (["summarize", "{new}", "--cluster-col", "user", "--prior", "uniform"], "--prior"),
        (["compare", "{new}", "{base}", "{third}", "--cluster-col", "user"], "two models"),
        (
            [
                "plan",
                "{new}",
                "--metric",
                "micro_f1",
                "--min",
                "0.8",
                "--cluster-col",
                "user",
                "--icc",
                "0.1",
            ],
            "leave out --design-effect/--icc",
        ),  # fmt: skip
        (
            ["plan", "{new}", "--metric", "micro_f1", "--min", "0.8", "--icc", "0.1"],
            "icc needs cluster_size",
        ),  # fmt: skip
    ],
)
def test_errors_are_one_line_exit_2(files, capsys, argv, message):
    third = Path(files[1]).with_name("third.csv")
    third.write_text(Path(files[1]).read_text())
    argv = [a.format(new=files[0], base=files[1], third=third) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_matrix_file_has_no_clusters(tmp_path, capsys):
    m = tmp_path / "m.csv"
    m.write_text("5,1\n1,5\n")
    assert main(["summarize", str(m), "--cluster-col", "user"]) == 2
    assert "reads a predictions CSV" in capsys.readouterr().err
