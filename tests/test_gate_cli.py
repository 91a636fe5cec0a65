"""The real console script, as a subprocess: verdicts, exit codes, formats, errors."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NEW = [[40, 10], [5, 45]]
BASE = [[38, 12], [6, 44]]


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "f1posterior", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


@pytest.fixture()
def files(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "new.json").write_text(json.dumps({"matrix": NEW, "labels": ["cat", "dog"]}))
    (tmp_path / "base.csv").write_text(",cat,dog\ncat,38,12\ndog,6,44\n")
    return {k: str(tmp_path / v) for k, v in (("new", "new.json"), ("base", "base.csv"))}


def test_pass_exit_0_exact(files: dict[str, str]) -> None:
    r = cli("gate", files["new"], "--metric", "micro_f1", "--min", "0.75", "--prior", "aligned")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert "seed 20150927" in r.stdout
    assert lines[3].startswith(
        "PASS  micro_f1 >= 0.75: P = 0.9856 >= 0.95 required; observed 0.850"
    )
    assert lines[3].endswith("exact") and "95% HDI [0.765, 0.905]" in lines[3]
    assert lines[0] == lines[-1] == "GATE PASSED: 1 of 1 checks passed"


def test_fail_exit_1_per_class_floor(files: dict[str, str]) -> None:
    # three-state rule: cat's recall 0.80 against 0.75 has P = 0.80, neither >= 0.95 nor
    # <= 0.05, so it is INCONCLUSIVE (it used to be a FAIL); exit 3 when nothing fails
    r = cli("gate", files["new"], "--metric", "recall", "--min", "0.75", "--draws", "4000")
    assert r.returncode == 3, r.stderr
    verdicts = [x for x in r.stdout.splitlines() if x.startswith(("PASS", "FAIL", "INCON"))]
    assert verdicts[0].startswith("INCONCLUSIVE  recall [class cat] >= 0.75")
    assert verdicts[1].startswith("PASS  recall [class dog] >= 0.75")
    assert verdicts[0].endswith("exact")  # recall is Beta under any prior: a closed form
    # a floor well above cat's recall: P(recall < 0.9) >= 0.95, a FAIL, exit 1 (fail wins
    # over dog's inconclusive 0.9 floor)
    r = cli("gate", files["new"], "--metric", "recall", "--min", "0.9", "--draws", "4000")
    assert r.returncode == 1, r.stderr
    verdicts = [x for x in r.stdout.splitlines() if x.startswith(("PASS", "FAIL", "INCON"))]
    assert verdicts[0].startswith("FAIL  recall [class cat] >= 0.9: P = 0.0")
    assert verdicts[1].startswith("INCONCLUSIVE  recall [class dog] >= 0.9")
    assert (
        r.stdout.splitlines()[-1] == "GATE FAILED: 0 of 2 checks passed (1 failed, 1 inconclusive)"
    )


def test_several_pairs_and_baseline_json(files: dict[str, str]) -> None:
    r = cli(
        "gate",
        files["new"],
        "--metric",
        "micro_f1",
        "--min",
        "0.7",
        "--metric",
        "macro_f1",
        "--baseline",
        files["base"],
        "--max-drop",
        "0.1",
        "--draws",
        "4000",
        "--format",
        "json",
    )
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    kinds = [(c["kind"], c["metric"]) for c in out["checks"]]
    assert kinds == [("min", "micro_f1"), ("baseline", "micro_f1"), ("baseline", "macro_f1")]
    assert out["checks"][1]["model"] == "independent posteriors"
    assert out["passed"] is True and out["seed"] == 20150927


def test_markdown_and_append(files: dict[str, str], tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("# CI\n")
    # P = 0.3748 at the observed score 0.85: INCONCLUSIVE under the three-state rule
    args = ["gate", files["new"], "--metric", "micro_f1", "--min", "0.85", "--prior", "aligned"]
    r = cli(*args, "--format", "markdown", "--append-markdown", str(summary))
    assert r.returncode == 3
    assert r.stdout.startswith("### f1posterior gate INCONCLUSIVE")
    assert "| ❔ INCONCLUSIVE | micro_f1 >= 0.85 | 0.3748 | 0.95 |" in r.stdout
    assert summary.read_text() == "# CI\n" + r.stdout
    args = ["gate", files["new"], "--metric", "micro_f1", "--min", "0.92", "--prior", "aligned"]
    r = cli(*args, "--format", "markdown")
    assert r.returncode == 1
    assert r.stdout.startswith("### f1posterior gate FAILED")
    assert "| ❌ FAIL | micro_f1 >= 0.92 | 0.0033 | 0.95 |" in r.stdout


def test_deterministic_and_seed_override(files: dict[str, str]) -> None:
    args = ["gate", files["new"], "--metric", "macro_f1", "--min", "0.8", "--draws", "3000"]
    a, b, c = cli(*args), cli(*args), cli(*args, "--seed", "5")
    assert a.stdout == b.stdout and a.returncode == b.returncode
    assert "seed 5" in c.stdout and c.stdout != a.stdout


def test_within_noise_message(files: dict[str, str]) -> None:
    # P(micro_f1 >= 0.8) is about 0.84 here under the paper's prior (pinned); require 0.843:
    # a verdict within MC noise
    r = cli(
        "gate",
        files["new"],
        "--metric",
        "micro_f1",
        "--min",
        "0.8",
        "--prob",
        "0.843",
        "--draws",
        "2000",
        "--prior",
        "paper",
        "--max-draws",
        "2000",
    )
    # no room for adaptive draws: INCONCLUSIVE, exit 3, with the reason
    assert r.returncode == 3, r.stderr
    assert "; within Monte Carlo noise at 2,000 draws" in r.stdout
    assert r.stdout.splitlines()[3].startswith("INCONCLUSIVE  micro_f1 >= 0.8")


def test_batch_named_rows(tmp_path: Path) -> None:
    f = tmp_path / "b.jsonl"
    f.write_text(
        json.dumps({"name": "good", "matrix": NEW})
        + "\n"
        + json.dumps({"name": "bad", "matrix": [[20, 30], [25, 25]]})
        + "\n"
    )
    r = cli("gate", str(f), "--metric", "micro_f1", "--min", "0.7", "--prior", "aligned")
    assert r.returncode == 1
    assert "PASS  micro_f1 [good] >= 0.7" in r.stdout and "FAIL  micro_f1 [bad] >= 0.7" in r.stdout


def test_predictions_input(tmp_path: Path) -> None:
    f = tmp_path / "p.csv"
    f.write_text("id,truth,guess\n" + "\n".join(f"{i},a,a" for i in range(60)) + "\n1,b,b\n")
    r = cli(
        "gate",
        str(f),
        "--true-col",
        "truth",
        "--pred-col",
        "guess",
        "--labels",
        "a,b,c",
        "--metric",
        "micro_f1",
        "--min",
        "0.8",
        "--metric",
        "recall",
        "--min",
        "0.01",
        "--prior",
        "aligned",
    )
    assert r.returncode == 0, r.stderr
    assert "PASS  recall [class c] >= 0.01" in r.stdout  # absent class added by --labels


CHECK = ["--metric", "micro_f1", "--min", "0.5"]
OK = "[[5, 1], [2, 7]]"


@pytest.mark.parametrize(
    "name,content,args,message",
    [
        ("m.json", "[[1, 2], [3,", CHECK, r"m.json: broken JSON at line 1"),
        ("m.json", "[[1, 2], [3]]", CHECK, r"m.json: ragged rows"),
        ("m.json", "[[1, 2, 3], [4, 5, 6]]", CHECK, r"m.json: counts must be square"),
        ("m.json", "[[1, -2], [3, 4]]", CHECK, r"m.json: counts must be non-negative"),
        ("m.json", "[[0.4, 0.1], [0.2, 0.3]]", CHECK, r"looks normalised"),
        ("m.csv", "", CHECK, r"m.csv: the file is empty"),
        ("m.csv", "1,2\n3,x\n", CHECK, r"m.csv, line 2, column 2: expected a count; got 'x'"),
        ("p.csv", "y_true,y_pred\na,b\nz,a\n", [*CHECK, "--labels", "a,b"], r"line 3: unknown"),
        ("m.json", OK, ["--metric", "nope", "--min", "0.5"], r"invalid choice: 'nope'"),
        ("m.json", OK, [*CHECK, "--prob", "1.5"], r"--prob: expected a number in \(0.5, 1\)"),
        (
            "m.json",
            OK,
            ["--metric", "f1", "--min", "2"],
            r"--min for --metric f1 must be a number in \[0, 1\]; .*got 2\n",
        ),
        (
            "m.json",
            OK,
            ["--metric", "mcc", "--min", "-2"],
            r"--min for --metric mcc must be a number in \[-1, 1\]",
        ),
        (
            "m.json",
            OK,
            ["--metric", "f1", "--min", "nan"],
            r"--min: expected a finite number; got 'nan'",
        ),
        (
            "m.json",
            OK,
            ["--metric", "fpr", "--min", "0.1"],
            r"fpr is lower-is-better .* gate specificity = 1 - fpr instead",
        ),
        ("m.json", OK, ["--min", "0.5"], r"--min 0.5 must follow the --metric"),
        ("m.json", OK, ["--metric", "f1"], r"--metric f1 has no --min"),
        ("m.json", OK, [], r"nothing to check"),
        ("m.json", OK, ["--baseline", "missing.json"], r"missing.json: no such file"),
    ],
)
def test_input_errors_exit_2(
    tmp_path: Path, name: str, content: str, args: list[str], message: str
) -> None:
    (tmp_path / name).write_text(content)
    r = cli("gate", name, *args, cwd=tmp_path)
    assert r.returncode == 2
    assert r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "Traceback" not in r.stderr
    assert re.search(message, r.stderr), r.stderr


def test_missing_file_exit_2(tmp_path: Path) -> None:
    r = cli("gate", str(tmp_path / "none.json"), "--metric", "micro_f1", "--min", "0.5")
    assert r.returncode == 2 and r.stderr.strip().endswith("none.json: no such file")


def test_summarize_batch_markdown(tmp_path: Path) -> None:
    import numpy as np

    np.save(tmp_path / "s.npy", np.stack([NEW, BASE]))
    r = cli(
        "summarize",
        str(tmp_path / "s.npy"),
        "--metric",
        "micro_f1",
        "--prior",
        "aligned",
        "--format",
        "markdown",
    )
    assert r.returncode == 0, r.stderr
    # a batch is written as rows: name, then {metric}_{stat} columns (mc_error 0: exact)
    assert "| 0 | 0.8500 | 0.8365 | 0.0361 | 0.0000 |" in r.stdout
    assert "| 1 | 0.8200 |" in r.stdout


def test_docs_ci_example_runs(tmp_path: Path) -> None:
    """The copy-paste CI job in docs/ci-gate.md runs: summary appended, exit status kept."""
    text = (ROOT / "docs" / "ci-gate.md").read_text()
    script = re.search(r"```bash\n(.*?)```", text, re.S)
    assert script is not None
    (tmp_path / "eval").mkdir()
    (tmp_path / "eval" / "confusion.csv").write_text(",cat,dog\ncat,40,10\ndog,5,45\n")
    (tmp_path / "eval" / "production.csv").write_text(",cat,dog\ncat,38,12\ndog,6,44\n")
    env_summary = tmp_path / "summary.md"
    bindir = Path(sys.executable).parent
    r = subprocess.run(
        ["bash", "-c", script.group(1)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
        env={"PATH": f"{bindir}:/usr/bin:/bin", "CI_JOB_SUMMARY": str(env_summary)},
    )
    assert r.returncode in (0, 1, 3), r.stderr  # 3: a check is inconclusive
    assert env_summary.read_text().startswith("### f1posterior gate")


# --- multi-label input (--multilabel) ----------------------------------------------------

SCRIPT = Path(sys.executable).parent / "f1posterior"
ML_TABLES = [[[50, 3], [7, 40]], [[80, 2], [4, 14]], [[60, 20], [10, 10]]]


def console(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The installed ``f1posterior`` console script itself."""
    exe = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "f1posterior"]
    return subprocess.run([*exe, *args], capture_output=True, text=True, cwd=cwd, timeout=120)


@pytest.fixture()
def ml_files(tmp_path: Path) -> dict[str, str]:
    import numpy as np

    np.save(tmp_path / "t.npy", np.array(ML_TABLES))
    np.save(tmp_path / "base.npy", np.array(ML_TABLES) + [[0, 0], [2, -2]])
    (tmp_path / "t.json").write_text(json.dumps({"tables": ML_TABLES, "labels": list("abc")}))
    rng = np.random.default_rng(0)
    yt = (rng.random((300, 3)) < 0.4).astype(int)
    yp = np.where(rng.random((300, 3)) < 0.9, yt, 1 - yt)
    (tmp_path / "p.json").write_text(json.dumps({"y_true": yt.tolist(), "y_pred": yp.tolist()}))
    return {k: str(tmp_path / f) for k, f in [("npy", "t.npy"), ("base", "base.npy"),
                                               ("json", "t.json"), ("preds", "p.json")]}  # fmt: skip


def test_multilabel_fail_exit_1_exact_per_label_floors(ml_files: dict[str, str]) -> None:
    r = console("gate", ml_files["json"], "--multilabel", "--metric", "micro_f1", "--min", "0.7",
                "--metric", "f1", "--min", "0.5", "--prior", "aligned", "--draws", "3000")  # fmt: skip
    # micro_f1 (P = 0.73) and label c (P = 0.1245) are neither >= 0.95 nor <= 0.05:
    # INCONCLUSIVE under the three-state rule (they used to FAIL), exit 3
    assert r.returncode == 3, r.stderr
    lines = r.stdout.splitlines()[1:]  # after the verdict line
    assert lines[0] == f"Input: {ml_files['json']}"
    assert lines[1].endswith("exact where marked, 3,000 draws otherwise; seed 20150927")
    assert (
        lines[2].startswith("INCONCLUSIVE  micro_f1 >= 0.7: P = 0.") and "(3,000 draws)" in lines[2]
    )
    assert lines[3].startswith("PASS  f1 [label a] >= 0.5: P = 1.0000 >= 0.95 required")
    assert lines[5].startswith("INCONCLUSIVE  f1 [label c] >= 0.5: P = 0.1245; neither it nor")
    assert all(x.endswith("; exact") for x in lines[3:6:2])
    # label b (18 positive documents): alpha = 1 moves its F1 by over half a posterior SD
    assert lines[4].endswith("; exact; prior-dominated")
    assert lines[6].startswith("warning: the prior dominates f1 [label b] >= 0.5: ")
    assert lines[-1] == "GATE INCONCLUSIVE: 2 of 4 checks passed (2 inconclusive)"
    r = console("gate", ml_files["json"], "--multilabel", "--metric", "f1", "--min", "0.6",
                "--prior", "aligned")  # fmt: skip
    assert r.returncode == 1, r.stderr
    assert "FAIL  f1 [label c] >= 0.6: P = 0.0082; P(opposite) = 0.9918 >= 0.95" in r.stdout


def test_multilabel_pass_exit_0_json_and_markdown(ml_files: dict[str, str]) -> None:
    r = console("gate", ml_files["preds"], "--multilabel", "--metric", "macro_f1", "--min", "0.7",
                "--metric", "recall", "--min", "0.7", "--draws", "2000", "--format", "json",
                "--labels", "x,y,z")  # fmt: skip
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["passed"] is True and out["draws"] == 2000 and out["seed"] == 20150927
    got = [(c["metric"], c["item"]) for c in out["checks"]]
    assert got == [("macro_f1", ""), ("recall", "label x"), ("recall", "label y"),
                   ("recall", "label z")]  # fmt: skip
    assert "per label (M = 2 model)" in out["prior"]
    m = console("gate", ml_files["npy"], "--multilabel", "--metric", "precision", "--min", "0.2",
                "--prior", "aligned", "--format", "markdown")  # fmt: skip
    assert m.returncode == 0, m.stderr
    assert "| ✅ PASS | precision [label 2] >= 0.2 | 0.9673 | 0.95 | 0.333 |" in m.stdout
    assert "GATE PASSED: 3 of 3 checks passed" in m.stdout


def test_multilabel_baseline_and_within_noise(ml_files: dict[str, str]) -> None:
    # P(new - baseline >= -0.02) is about 0.87 under the paper's prior (pinned)
    r = console("gate", ml_files["npy"], "--multilabel", "--metric", "micro_f1", "--baseline",
                ml_files["base"], "--max-drop", "0.02", "--prob", "0.87", "--draws", "2000",
                "--max-draws", "2000", "--prior", "paper")  # fmt: skip
    # within noise with no room for more draws: INCONCLUSIVE (exit 3), with the reason
    assert r.returncode == 3, r.stderr
    line = r.stdout.splitlines()[4]
    assert line.startswith("INCONCLUSIVE  micro_f1: new - baseline >= -0.02: P = 0.8")
    assert line.endswith("independent posteriors; within Monte Carlo noise at 2,000 draws")
    assert r.stdout.splitlines()[2] == f"Baseline: {ml_files['base']}"
    assert "(some verdicts are within Monte Carlo noise; see above)" in r.stdout


@pytest.mark.parametrize(
    "args,message",
    [
        (["--multilabel", "--metric", "hamming_loss", "--min", "0.1"],
         r"--metric hamming_loss is a loss \(lower is better\)"),
        (["--multilabel", "--metric", "accuracy", "--min", "0.1"],
         r"--metric accuracy is not a multi-label metric; with --multilabel use one of micro_f1"),
        (["--metric", "micro_fbeta", "--min", "0.1"],
         r"--metric micro_fbeta is a multi-label metric; add --multilabel"),
        (["--multilabel", "--metric", "fbeta", "--min", "0.1", "--f-beta", "0"],
         r"--f-beta: expected a number > 0; got '0'"),
        (["--metric", "micro_f1", "--min", "0.1", "--f-beta", "2"],
         r"--f-beta 2 applies to the multi-label F-beta metrics; add --multilabel"),
        (["--multilabel", "--metric", "f1", "--min", "0.1", "--transpose"],
         r"--transpose reads single-label confusion matrices"),
        (["--multilabel", "--metric", "f1", "--min", "0.1", "--labels", "a,b"],
         r"2 labels given for 3 per-label tables"),
        (["--multilabel", "--metric", "f1", "--baseline", "small.npy"],
         r"small.npy: 2 labels, but t.npy has 3"),
    ],
)  # fmt: skip
def test_multilabel_errors_exit_2(ml_files: dict[str, str], args: list[str], message: str) -> None:
    import numpy as np

    cwd = Path(ml_files["npy"]).parent
    np.save(cwd / "small.npy", np.array(ML_TABLES[:2]))
    r = console("gate", "t.npy", *args, cwd=cwd)
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    assert re.search(message, r.stderr), r.stderr


def test_multilabel_baseline_label_order_exit_2(ml_files: dict[str, str]) -> None:
    cwd = Path(ml_files["json"]).parent
    (cwd / "cba.json").write_text(json.dumps({"tables": ML_TABLES, "labels": list("cba")}))
    r = console("gate", "t.json", "--multilabel", "--metric", "f1", "--baseline", "cba.json",
                cwd=cwd)  # fmt: skip
    assert r.returncode == 2 and r.stdout == "" and len(r.stderr.strip().splitlines()) == 1
    assert r.stderr.strip().endswith(
        "cba.json: labels ['c', 'b', 'a'] differ from t.json's ['a', 'b', 'c']; both files must "
        "list the per-label tables in one label order"
    )
