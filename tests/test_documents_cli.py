"""``f1posterior summarize --documents``: read_documents, results, formats, one-line errors."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn import metrics as skm

from f1posterior._core.streams import DEFAULT_SEED
from f1posterior.cli import main
from f1posterior.io._documents import read_documents
from f1posterior.posterior._documents import evaluate_documents


def _data(seed: int = 3, d: int = 60, n_labels: int = 4):
    rng = np.random.default_rng(seed)
    yt = (rng.random((d, n_labels)) < 0.4).astype(int)
    yt[0] = 0  # a document without true labels
    yp = np.where(rng.random((d, n_labels)) < 0.8, yt, 1 - yt)
    yp[1] = 0  # a document without predicted labels
    s = (rng.random((d, n_labels)) + 0.6 * yt).round(3)
    return yt, yp, s


YT, YP, S = _data()


@pytest.fixture()
def doc_json(tmp_path: Path) -> Path:
    path = tmp_path / "docs.json"
    path.write_text(json.dumps({"y_true": YT.tolist(), "y_pred": YP.tolist(), "scores": S.tolist(),
                                "labels": list("abcd")}))  # fmt: skip
    return path


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(["summarize", *argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_file_equals_evaluate_documents_and_sklearn(doc_json, capsys) -> None:
    out = run_json(capsys, "--documents", str(doc_json), "--draws", "3000", "--ref", "0.6")
    want = evaluate_documents(YT, YP, S, draws=3000, rng=DEFAULT_SEED, ref=0.6)
    assert list(out["metrics"]) == list(want) == [
        "samples_f1", "hamming_loss", "subset_accuracy",
        "average_precision", "one_error", "ranking_loss", "coverage",
    ]  # fmt: skip
    for name, s in want.items():
        got = out["metrics"][name]
        assert got["mean"] == s.mean and [got["hdi_low"], got["hdi_high"]] == list(s.hdi)
        assert got["p_below"] == s.p_below
    assert out["source"] == str(doc_json)
    m = out["metrics"]
    assert m["samples_f1"]["score"] == pytest.approx(skm.f1_score(YT, YP, average="samples",
                                                                  zero_division=0))  # fmt: skip
    assert m["coverage"]["score"] == pytest.approx(skm.coverage_error(YT, S))
    assert m["average_precision"]["score"] == pytest.approx(
        skm.label_ranking_average_precision_score(YT, S)
    )


def test_npz_scores_only_fbeta_and_zero_division(tmp_path, capsys) -> None:
    path = tmp_path / "d.npz"
    np.savez(path, y_true=YT.astype(bool), scores=S)
    out = run_json(capsys, "--documents", str(path), "--metric", "ranking_loss", "--draws", "500")
    assert list(out["metrics"]) == ["ranking_loss"]
    assert out["metrics"]["ranking_loss"]["score"] == pytest.approx(skm.label_ranking_loss(YT, S))
    np.savez(path, y_true=YT, y_pred=YP.astype(float))
    out = run_json(capsys, "--documents", str(path), "--metric", "samples_fbeta", "--metric",
                   "samples_precision", "--f-beta", "2", "--zero-division", "1", "--draws", "500")  # fmt: skip
    kw = {"average": "samples", "zero_division": 1}
    m = out["metrics"]
    assert m["samples_fbeta"]["score"] == pytest.approx(skm.fbeta_score(YT, YP, beta=2, **kw))
    assert m["samples_precision"]["score"] == pytest.approx(skm.precision_score(YT, YP, **kw))
    # negative control: zero_division changes the score (document 1 predicts nothing)
    assert m["samples_precision"]["score"] != pytest.approx(
        skm.precision_score(YT, YP, average="samples", zero_division=0)
    )


def test_table_and_markdown(doc_json, capsys) -> None:
    args = ["summarize", "--documents", str(doc_json), "--metric", "subset_accuracy"]
    assert main([*args, "--draws", "800"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"Input: {doc_json} (documents: 60 documents, 4 labels)"
    assert "Bayesian bootstrap over 60 documents" in lines[1] and "seed 20150927" in lines[1]
    assert lines[3].startswith(f"subset_accuracy  {skm.accuracy_score(YT, YP):.3f}")
    assert main([*args, "--draws", "800", "--format", "markdown"]) == 0
    md = capsys.readouterr().out
    assert f"| subset_accuracy | {skm.accuracy_score(YT, YP):.3f} |" in md


def test_read_documents_values(tmp_path) -> None:
    path = tmp_path / "d.json"
    path.write_text('{"y_true": [[1, 0], [0, 0]], "scores": [[0.5, 1], [2, -1]]}')
    doc = read_documents(path)
    assert doc.y_true.dtype == bool and doc.y_true.tolist() == [[True, False], [False, False]]
    assert doc.y_pred is None and doc.scores.dtype == np.float64
    assert doc.scores.tolist() == [[0.5, 1.0], [2.0, -1.0]] and doc.source == str(path)


def test_console_script(doc_json) -> None:
    exe = Path(sys.executable).parent / "f1posterior"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "f1posterior"]
    ok = subprocess.run([*cmd, "summarize", "--documents", str(doc_json), "--draws", "500"],
                        capture_output=True, text=True, timeout=120)  # fmt: skip
    assert ok.returncode == 0 and "coverage" in ok.stdout, ok.stderr
    bad = subprocess.run([*cmd, "summarize", "--documents", str(doc_json) + ".missing.json"],
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert bad.returncode == 2 and bad.stdout == "" and "Traceback" not in bad.stderr
    assert bad.stderr.strip().endswith("docs.json.missing.json: no such file")


J = "d.json"
TRUE2 = '"y_true": [[1, 0], [0, 1]]'
ERRORS = [
    (J, None, [], r"d.json: no such file"),
    ("d.csv", "y_true\n1\n", [], r"d.csv: unknown documents file type '.csv'; expected .json or .npz"),
    (J, "", [], r'd.json: the file is empty; expected a JSON object with "y_true", "y_pred"'),
    (J, '{"y_true": [[1, 0]', [], r"d.json: broken JSON at line 1"),
    (J, "[[1, 0]]", [], r"d.json: expected a JSON object with .*; got a JSON list"),
    (J, '{"y_true": [[1]], "y_score": [[1]]}', [], r"d.json: unknown entries \['y_score'\]"),
    (J, '{"y_pred": [[1]]}', [], r'd.json: "y_true" \(the true label indicators\) is missing'),
    (J, '{"y_true": [[1]]}', [], r'd.json: give "y_pred" \(predicted labels\), "scores"'),
    (J, '{"y_true": [[1, 2]], "y_pred": [[1, 0]]}', [],
     r'd.json: "y_true" must hold only 0 and 1; got 2 at index'),
    (J, '{"y_true": [[1, 0], [1]], "y_pred": [[1, 0]]}', [], r'"y_true" must be a rectangular'),
    (J, '{"y_true": [[1, null]], "y_pred": [[1, 0]]}', [], r'"y_true" must hold 0/1 indicators as bools, integers or floats; got dtype object'),
    (J, '{"y_true": [1, 0], "y_pred": [1, 0]}', [], r'"y_true" must be a non-empty 0/1 indicator '
     r"matrix of shape \(D documents, L labels\); got shape \(2,\)"),
    (J, '{"y_true": [[1, 0]], "y_pred": [[1, 0, 1]]}', [],
     r'"y_pred" must have the shape of "y_true", \(1, 2\) .*got shape \(1, 3\)'),
    (J, '{"y_true": [[1, 0]], "y_pred": [[1, 0.5]]}', [], r'"y_pred" must hold only 0 and 1; got 0.5'),
    (J, "{" + TRUE2 + ', "scores": [[0.1, NaN], [1, 2]]}', [],
     r'd.json: "scores" must be finite \(no NaN or inf\); got nan at index \(0, 1\)'),
    (J, "{" + TRUE2 + ', "scores": [[0.1, 0.2]]}', [],
     r'"scores" must have the shape of "y_true", \(2, 2\); got shape \(1, 2\)'),
    (J, "{" + TRUE2 + ', "scores": [["a", "b"], ["c", "d"]]}', [],
     r'"scores" must hold integers or floats; got dtype <U1'),
    (J, "{" + TRUE2 + ', "scores": [[1, 0], [0, 1]]}', ["--metric", "samples_f1"],
     r'd.json: --metric samples_f1 needs "y_pred" \(predicted labels\)'),
    (J, "{" + TRUE2 + ', "y_pred": [[1, 0], [0, 1]]}', ["--metric", "coverage"],
     r'd.json: --metric coverage needs "scores" \(a score matrix\)'),
    (J, "{" + TRUE2 + ', "scores": [[1, 0], [0, 1]]}', ["--metric", "macro_f1"],
     r"--metric macro_f1 is not a document-level metric; with --documents use one of samples_f1"),
    (J, '{"y_true": [[0, 0], [0, 1]], "scores": [[1, 0], [0, 1]]}', ["--metric", "margin"],
     r"d.json: margin is undefined for documents with no true labels .*first at index 0"),
    (J, "{" + TRUE2 + ', "scores": [[1, 0], [0, 1]]}', ["--multilabel"],
     r"--documents takes no --multilabel: document-level metrics come from"),
    (J, "{" + TRUE2 + ', "scores": [[1, 0], [0, 1]]}', ["--prior", "aligned"],
     r"--documents takes no --prior aligned: .*\(no prior to choose\)"),
    (J, "{" + TRUE2 + ', "scores": [[1, 0], [0, 1]]}', ["other.json"], r"--documents takes no FILE"),
    (J, "{" + TRUE2 + ', "scores": [[1, 0], [0, 1]]}', ["--f-beta", "0"],
     r"d.json: f_beta must be a finite number > 0; got 0"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "content", "argv", "match"), ERRORS)
def test_malformed_input_one_line_exit_2(tmp_path, capsys, monkeypatch, name, content, argv, match):
    monkeypatch.chdir(tmp_path)
    if content is not None:
        (tmp_path / name).write_text(content)
    assert main(["summarize", "--documents", name, "--draws", "50", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1 and "Traceback" not in captured.err
    assert re.search(match, captured.err), captured.err


def _npz_object(path: Path) -> None:
    np.savez(path, y_true=np.array([[1, 0]], dtype=object), y_pred=np.array([[1, 0]]))


NPZ_ERRORS = [
    (lambda p: p.write_bytes(b"not a zip archive"), r"d.npz: not a .npz archive of numeric arrays"),
    (lambda p: p.write_bytes(b"PK\x03\x04broken"), r"d.npz: not a readable .npz archive"),
    (_npz_object, r"d.npz: not a .npz archive of numeric arrays \(.*allow_pickle=False"),
    (lambda p: np.save(open(p, "wb"), np.eye(2)), r"d.npz: expected a .npz archive of arrays; got"),
    (lambda p: np.savez(p, y_true=np.eye(2), y_pred=np.eye(2), extra=np.eye(2)),
     r"d.npz: unknown entries \['extra'\]; expected"),
    (lambda p: np.savez(p, y_pred=np.eye(2)), r'd.npz: "y_true" .* is missing'),
    (lambda p: np.savez(p, y_true=np.eye(2), y_pred=np.eye(3)), r'"y_pred" must have the shape'),
    (lambda p: np.savez(p, y_true=np.eye(2), scores=np.array([[np.inf, 0], [0, 1]])),
     r'"scores" must be finite \(no NaN or inf\); got inf at index \(0, 0\)'),
]  # fmt: skip


@pytest.mark.parametrize(("write", "match"), NPZ_ERRORS)
def test_malformed_npz_one_line_exit_2(tmp_path, capsys, write, match):
    path = tmp_path / "d.npz"
    write(path)
    assert main(["summarize", "--documents", str(path), "--draws", "50"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert re.search(match, err), err


def test_zero_division_needs_documents(capsys) -> None:
    assert main(["summarize", "--zero-division", "1"]) == 2
    assert "--zero-division applies to document-level metrics; add --documents" in (
        capsys.readouterr().err
    )
