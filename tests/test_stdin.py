"""Standard input: FILE ``-`` with --input-format or sniffing, for gate, summarize, compare."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import forged_npy

from f1posterior.cli import main
from f1posterior.io._readers import read_input
from f1posterior.io._sources import parse_npy, sniff_format

MATRIX = [[50, 10], [5, 40]]
NEW_PREDS = "y_true,y_pred\n" + "a,a\n" * 50 + "a,b\n" * 10 + "b,a\n" * 5 + "b,b\n" * 40


def _npy_bytes(arr: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, arr)
    return buf.getvalue()


#: The same 2 x 2 matrix in every input format (class labels a, b where the format has them).
FORMATS = {
    "json": json.dumps({"matrix": MATRIX, "labels": ["a", "b"]}).encode(),
    "csv": b",a,b\na,50,10\nb,5,40\n",
    "tsv": b"\ta\tb\na\t50\t10\nb\t5\t40\n",
    "jsonl": (json.dumps({"matrix": MATRIX, "labels": ["a", "b"], "name": "m"}) + "\n").encode(),
    "npy": _npy_bytes(np.array(MATRIX)),
    "predictions": NEW_PREDS.encode(),
}


def _stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


GATE = ("--metric", "accuracy", "--min", "0.7", "--seed", "5", "--format", "json")


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_gate_reads_each_format_from_stdin(
    fmt: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _stdin(monkeypatch, FORMATS[fmt])
    code, out, err = _run(capsys, "gate", "-", "--input-format", fmt, *GATE)
    assert (code, err) == (0, "")
    result = json.loads(out)
    assert result["source"] == "<stdin>"
    (check,) = result["checks"]
    assert check["verdict"] == "pass"
    assert check["score"] == pytest.approx(90 / 105)


@pytest.mark.parametrize("fmt", ["json", "csv", "tsv", "npy", "predictions"])
def test_stdin_gives_the_result_of_the_file(
    fmt: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    suffix = {"predictions": ".csv"}.get(fmt, f".{fmt}")
    path = tmp_path / f"m{suffix}"
    path.write_bytes(FORMATS[fmt])
    _, from_file, _ = _run(capsys, "gate", str(path), *GATE)
    _stdin(monkeypatch, FORMATS[fmt])
    _, from_stdin, _ = _run(capsys, "gate", "-", *GATE)  # sniffed
    a, b = json.loads(from_file), json.loads(from_stdin)
    assert b["source"] == "<stdin>" and a["source"] == str(path)
    assert a["checks"] == b["checks"]


@pytest.mark.parametrize(
    ("fmt", "expected"),
    [("json", "json"), ("csv", "csv"), ("tsv", "tsv"), ("npy", "npy"), ("predictions", "csv")],
)
def test_sniff_format(fmt: str, expected: str) -> None:
    assert sniff_format(FORMATS[fmt]) == expected


def test_sniff_json_lines_of_two_matrices() -> None:
    assert sniff_format(b"[[1, 2], [3, 4]]\n[[5, 6], [7, 8]]\n") == "jsonl"


def test_sniff_pretty_printed_json_object() -> None:
    assert sniff_format(b'{\n  "matrix": [[1, 2],\n [3, 4]]\n}\n') == "json"


def test_sniff_unknown_format_asks_for_it() -> None:
    with pytest.raises(ValueError, match=r"^<stdin>: cannot tell the input format .*give --input"):
        sniff_format(b"hello world\n")


def test_sniff_binary_that_is_not_npy() -> None:
    with pytest.raises(ValueError, match=r"neither UTF-8 text nor a \.npy array; give --input-"):
        sniff_format(b"\xff\xfe\x00garbage")


def test_read_input_from_stdin_in_python(monkeypatch: pytest.MonkeyPatch) -> None:
    _stdin(monkeypatch, FORMATS["tsv"])
    m = read_input("-", input_format="tsv")
    assert (m.source, m.labels, m.counts.tolist()) == ("<stdin>", ["a", "b"], MATRIX)
    # read once: reading - again gives the same bytes
    assert read_input("-").counts.tolist() == MATRIX


def test_read_input_rejects_an_unknown_format(monkeypatch: pytest.MonkeyPatch) -> None:
    _stdin(monkeypatch, FORMATS["json"])
    with pytest.raises(ValueError, match=r"^input_format must be one of json, csv, .*got 'xml'$"):
        read_input("-", input_format="xml")


def test_summarize_reads_stdin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _stdin(monkeypatch, FORMATS["csv"])
    code, out, err = _run(
        capsys, "summarize", "-", "--input-format", "csv", "--metric", "accuracy", "--seed", "1"
    )
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == "Input: <stdin>"
    assert "accuracy" in out and "0.857" in out


def test_compare_reads_one_file_from_stdin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "b.json"
    other.write_text("[[40, 20], [15, 30]]")
    _stdin(monkeypatch, FORMATS["npy"])
    code, out, err = _run(capsys, "compare", "-", str(other), "--format", "json", "--seed", "2")
    assert (code, err) == (0, "")
    result = json.loads(out)
    assert result["models"] == {"A": "<stdin>", "B": str(other)}
    assert result["p_a_better"] > 0.95


def test_compare_predictions_from_stdin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    table = "y_true\tm1\tm2\n" + "a\ta\ta\n" * 30 + "b\tb\ta\n" * 10 + "b\tb\tb\n" * 20
    _stdin(monkeypatch, table.encode())
    code, out, err = _run(
        capsys, "compare", "--predictions", "-", "--input-format", "tsv", "--format", "json"
    )
    assert (code, err) == (0, "")
    assert json.loads(out)["source"] == "<stdin> (paired: same documents)"


def test_gate_stdin_paired_with_baseline_by_id(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = NEW_PREDS.splitlines()[1:]
    new = "id,y_true,y_pred\n" + "".join(f"d{i},{r}\n" for i, r in enumerate(rows))
    base_rows = [f"d{i},{r}\n" for i, r in enumerate(rows)][::-1]
    base = tmp_path / "base.csv"
    base.write_text("id,y_true,y_pred\n" + "".join(base_rows))
    _stdin(monkeypatch, new.encode())
    code, out, err = _run(
        capsys, "gate", "-", "--baseline", str(base), "--id-col", "id", "--max-drop", "0.05",
        "--format", "json", "--seed", "4",
    )  # fmt: skip
    assert (code, err) == (0, "")
    assert json.loads(out)["checks"][0]["model"] == "paired model (same documents)"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["gate", "-", "--baseline", "-", "--metric", "accuracy"], "FILE and --baseline BASEFILE"),
        (["compare", "-", "-"], "2 inputs are -; standard input can be read once"),
        (["gate", "{m}", "--input-format", "json", *GATE[:4]], "no input is -"),
        (["compare", "{m}", "{m}", "--input-format", "json"], "no input is -"),
    ],
)
def test_stdin_usage_errors(
    argv: list[str],
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    m = tmp_path / "m.json"
    m.write_text(json.dumps(MATRIX))
    _stdin(monkeypatch, FORMATS["json"])
    code, out, err = _run(capsys, *[a.format(m=m) for a in argv])
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and message in err


@pytest.mark.parametrize(
    ("data", "extra", "message"),
    [
        (b"", [], "<stdin>: the input is empty"),
        (b"  \n", ["--input-format", "csv"], "<stdin>: the input is empty"),
        (b"hello\n", [], "<stdin>: cannot tell the input format"),
        (b"[[1, 2], [3", [], "<stdin>: broken JSON at line 1"),
        (forged_npy((100000000, 100000000), bytes(64)), [], "header claims shape"),
        (forged_npy((2, 2), bytes(8)), ["--input-format", "npy"], "the file is truncated"),
        (b"\x93NUMPY\x01", [], "<stdin>: not a numeric .npy array"),
        (FORMATS["json"], ["--input-format", "npy"], "<stdin>: not a numeric .npy array"),
        ("y_true,y_pred\na,\xe9\n".encode("latin-1"), ["--input-format", "csv"], "not UTF-8"),
    ],
)
def test_bad_stdin_exit_2_one_line(
    data: bytes,
    extra: list[str],
    message: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _stdin(monkeypatch, data)
    code, out, err = _run(capsys, "gate", "-", *GATE, *extra)
    assert (code, out) == (2, "")
    assert err.startswith("f1posterior gate: error: ") and err.count("\n") == 1
    assert message in err


def test_object_npy_is_never_unpickled(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    buf = io.BytesIO()
    np.save(buf, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    _stdin(monkeypatch, buf.getvalue())
    code, _, err = _run(capsys, "gate", "-", *GATE)
    assert code == 2
    assert "it holds Python objects, which are never unpickled" in err


def test_parse_npy_checks_length_before_allocating() -> None:
    # 10^16 doubles would be 80 PB: refused from the header, nothing allocated
    with pytest.raises(ValueError, match=r"claims shape \(100000000, 100000000\) of float64"):
        parse_npy(forged_npy((100000000, 100000000), bytes(64)), "x.npy")


def test_parse_npy_fortran_order() -> None:
    arr = np.asfortranarray(np.array([[1, 2], [3, 4]], dtype=np.int32))
    out = parse_npy(_npy_bytes(arr), "x.npy")
    assert out.tolist() == [[1, 2], [3, 4]]


def test_file_npy_also_checks_the_header(tmp_path: Path) -> None:
    path = tmp_path / "forged.npy"
    path.write_bytes(forged_npy((100000000, 100000000), bytes(64)))
    with pytest.raises(ValueError, match=r"forged\.npy: the \.npy header claims shape"):
        read_input(path)


def _cli(*args: str, stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "f1posterior", *args], input=stdin, capture_output=True, timeout=120
    )


def test_stdin_through_a_real_pipe() -> None:
    r = _cli("gate", "-", *GATE, stdin=FORMATS["npy"])
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["checks"][0]["verdict"] == "pass"


def test_stdin_twice_through_a_real_pipe() -> None:
    r = _cli("gate", "-", "--baseline", "-", "--metric", "accuracy", stdin=FORMATS["json"])
    assert r.returncode == 2
    lines = r.stderr.decode().splitlines()
    assert len(lines) == 1 and "only one input may be -" in lines[0]
