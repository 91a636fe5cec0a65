"""Every input format, and one test per malformed-input message."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from f1posterior.io._predictions import read_predictions
from f1posterior.io._readers import read_input, read_matrix

M = [[8, 2, 0], [1, 9, 3], [0, 4, 7]]


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_json_list_and_object(tmp_path: Path) -> None:
    a = read_matrix(write(tmp_path, "a.json", json.dumps(M)))
    b = read_matrix(write(tmp_path, "b.json", json.dumps({"matrix": M, "labels": [1, 2, 3]})))
    np.testing.assert_array_equal(a.counts, M)
    assert a.labels is None and b.labels == ["1", "2", "3"]


@pytest.mark.parametrize(
    "text,labels",
    [
        ("8,2,0\n1,9,3\n0,4,7\n", None),
        ("a,b,c\n8,2,0\n1,9,3\n0,4,7\n", ["a", "b", "c"]),
        (",a,b,c\na,8,2,0\nb,1,9,3\nc,0,4,7\n", ["a", "b", "c"]),
        ("true\\pred,a,b,c\na,8,2,0\nb,1,9,3\nc,0,4,7\n", ["a", "b", "c"]),
        ("a,8,2,0\nb,1,9,3\nc,0,4,7\n", ["a", "b", "c"]),
        (",1,2,3\n1,8,2,0\n2,1,9,3\n3,0,4,7\n", ["1", "2", "3"]),
        ("\n8, 2, 0\n\n1,9,3\n0,4,7.0\n", None),
    ],
)
def test_csv_layouts(tmp_path: Path, text: str, labels: list[str] | None) -> None:
    m = read_matrix(write(tmp_path, "m.csv", text))
    np.testing.assert_array_equal(m.counts, M)
    assert m.labels == labels


def test_tsv(tmp_path: Path) -> None:
    m = read_matrix(write(tmp_path, "m.tsv", "8\t2\t0\n1\t9\t3\n0\t4\t7\n"))
    np.testing.assert_array_equal(m.counts, M)


def test_npy_matrix_and_stack(tmp_path: Path) -> None:
    np.save(tmp_path / "one.npy", np.array(M, dtype=np.int32))
    np.save(tmp_path / "two.npy", np.stack([M, np.transpose(M)]))
    one, two = read_matrix(tmp_path / "one.npy"), read_matrix(tmp_path / "two.npy")
    np.testing.assert_array_equal(one.counts, M)
    assert two.counts.shape == (2, 3, 3) and two.names == ["0", "1"]


def test_jsonl_batch_names(tmp_path: Path) -> None:
    text = (
        json.dumps({"name": "model-a", "matrix": M, "labels": ["x", "y", "z"]})
        + "\n\n"
        + json.dumps(np.transpose(M).tolist())
        + "\n"
    )
    m = read_matrix(write(tmp_path, "b.jsonl", text))
    assert m.counts.shape == (2, 3, 3) and m.names == ["model-a", "line 3"]
    assert m.labels == ["x", "y", "z"]


def test_transpose_and_labels(tmp_path: Path) -> None:
    p = write(tmp_path, "m.json", json.dumps({"matrix": M, "labels": ["a", "b", "c"]}))
    np.testing.assert_array_equal(read_matrix(p, transpose=True).counts, np.transpose(M))
    m = read_matrix(p, labels=["c", "d", "a", "b"])
    assert m.labels == ["c", "d", "a", "b"]
    np.testing.assert_array_equal(m.counts[0], [7, 0, 0, 4])
    np.testing.assert_array_equal(m.counts[1], 0)
    named = read_matrix(write(tmp_path, "n.json", json.dumps(M)), labels=["p", "q", "r"])
    assert named.labels == ["p", "q", "r"]


def test_predictions_csv(tmp_path: Path) -> None:
    from sklearn.metrics import confusion_matrix

    rng = np.random.default_rng(0)
    yt, yp = rng.integers(0, 12, 300), rng.integers(0, 12, 300)
    rows = "\n".join(f"{i},{t},x,{p}" for i, (t, p) in enumerate(zip(yt, yp, strict=True)))
    f = write(tmp_path, "p.csv", "id,truth,other,guess\n" + rows + "\n")
    m = read_predictions(f, true_col="truth", pred_col="guess")
    labels = sorted(set(yt) | set(yp))
    assert m.labels == [str(x) for x in labels]  # numeric order: 2 before 10
    np.testing.assert_array_equal(m.counts, confusion_matrix(yt, yp, labels=labels))


def test_predictions_labels_fix_order_and_add_absent(tmp_path: Path) -> None:
    f = write(tmp_path, "p.csv", "y_true,y_pred\ncat,dog\ndog,dog\ncat,cat\n")
    m = read_input(f)  # detected from the header
    assert m.labels == ["cat", "dog"] and m.counts.tolist() == [[1, 1], [0, 1]]
    m = read_input(f, labels=["dog", "bird", "cat"])
    assert m.counts.tolist() == [[1, 0, 0], [0, 0, 0], [1, 0, 1]]


@pytest.mark.parametrize(
    "name,text,match",
    [
        ("e.json", "  \n", r"e.json: the file is empty"),
        ("b.json", "[[1, 2], [3,", r"b.json: broken JSON at line 1"),
        ("r.json", "[[1, 2], [3]]", r"r.json: ragged rows: row 0 has 2 entries but row 1 has 1"),
        ("s.json", "[[1, 2, 3], [4, 5, 6]]", r"s.json: counts must be square"),
        ("n.json", "[[1, -2], [3, 4]]", r"n.json: counts must be non-negative counts; got -2"),
        ("f.json", "[[0.4, 0.1], [0.2, 0.3]]", r"f.json: .*whole-number .*looks normalised"),
        ("c.csv", "1,2\n3,x\n", r"c.csv, line 2, column 2: expected a count; got 'x'"),
        ("c.csv", "1,2\n3,4,5\n", r"c.csv, line 2: ragged rows: 3 cells, but line 1 has 2"),
        ("c.csv", "1,2,3\n4,5,6\n", r"c.csv: expected a square confusion matrix; got 2 rows"),
        ("c.csv", "a,b\n1,-2\n3,4\n", r"c.csv, line 2, column 2: must be a non-negative count"),
        ("c.csv", "0.5,0.5\n0.25,0.75\n", r"c.csv, line 1, column 1: .*looks normalised"),
        ("c.csv", "1,nan\n3,4\n", r"c.csv, line 1, column 2: must be a finite count"),
        ("c.csv", "0,0\n0,0\n", r"c.csv: counts must count at least one document"),
        ("c.csv", "a,b\n", r"c.csv: no rows of counts after the header line 1"),
        ("c.csv", ",a,b\nb,1,2\na,3,4\n", r"header labels \['a', 'b'\] differ from index"),
        ("c.csv", "a,b,c\n1,2\n3,4\n", r"c.csv, line 1: the header has 3 cells for a 2 x 2"),
        ("x.txt", "1", r"x.txt: unknown file type '.txt'; expected one of .json"),
        (
            "l.jsonl",
            '[[1,2],[3,4]]\n{"matrix": [[1,0,0],[0,1,0],[0,0,1]]}\n',
            r"l.jsonl, line 2: a 3 x 3 matrix, but line 1 has a 2 x 2",
        ),
        ("l.jsonl", '{"matrix": [[1]]}\n', r"l.jsonl, line 1: .* M >= 2 classes .* \(1, 1\)"),
        ("l.jsonl", "[[1,2],[3,4]]\n[[1,2],\n", r"l.jsonl, line 2: broken JSON"),
        (
            "l.jsonl",
            '{"name": "a", "matrix": [[1, 0], [0, 1]]}\n{"name": "a", "matrix": [[2, 0], [0, 1]]}\n',
            r"l.jsonl, line 2: the name 'a' is used twice",
        ),
        ("l.jsonl", '{"name": [1], "matrix": [[1]]}\n', r'l.jsonl, line 1: "name" must be a str'),
        (
            "l.jsonl",
            '{"matrix": [[1, 2], [3, 4]], "labels": ["a", "b"]}\n'
            '{"matrix": [[1, 2], [3, 4]], "labels": ["b", "a"]}\n',
            r"line 2: labels \['b', 'a'\]",
        ),
        ("l.jsonl", '{"matrix": [[1, "x"]]}\n', r"l.jsonl, line 1: cell \[0\]\[1\] must be a num"),
    ],
)
def test_malformed_matrix_files(tmp_path: Path, name: str, text: str, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        read_matrix(write(tmp_path, name, text))


def test_missing_file(tmp_path: Path) -> None:
    for name in ("none.json", "none.csv", "none.npy", "none.jsonl"):
        with pytest.raises(ValueError, match=f"{name}: no such file"):
            read_input(tmp_path / name)


def test_npy_errors(tmp_path: Path) -> None:
    np.save(tmp_path / "o.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(ValueError, match=r"o.npy: not a numeric .npy array .*never unpickled"):
        read_matrix(tmp_path / "o.npy")
    (tmp_path / "g.npy").write_bytes(b"garbage")
    with pytest.raises(ValueError, match=r"g.npy: not a numeric .npy array"):
        read_matrix(tmp_path / "g.npy")
    np.save(tmp_path / "s.npy", np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"s.npy: expected a square matrix .*got shape \(2, 3\)"):
        read_matrix(tmp_path / "s.npy")
    np.save(tmp_path / "b.npy", np.ones((2, 2), dtype=bool))
    with pytest.raises(ValueError, match=r"b.npy: expected an array of counts; got dtype bool"):
        read_matrix(tmp_path / "b.npy")
    np.save(tmp_path / "n.npy", np.stack([np.eye(2), -np.eye(2)]))
    with pytest.raises(ValueError, match=r"n.npy, cell \[1, 0, 0\]: must be a non-negative"):
        read_matrix(tmp_path / "n.npy")


def test_label_errors(tmp_path: Path) -> None:
    p = write(tmp_path, "m.json", json.dumps({"matrix": M, "labels": ["a", "b", "c"]}))
    with pytest.raises(ValueError, match=r"m.json: the file's label\(s\) \['c'\] are not among"):
        read_matrix(p, labels=["a", "b"])
    q = write(tmp_path, "q.json", json.dumps(M))
    with pytest.raises(ValueError, match=r"q.json: 2 labels given for a 3 x 3 matrix"):
        read_matrix(q, labels=["a", "b"])
    with pytest.raises(ValueError, match=r"labels must not repeat a class; got 'a' twice"):
        read_matrix(q, labels=["a", "a", "b"])
    with pytest.raises(TypeError, match=r"transpose must be True or False; got 'yes'"):
        read_matrix(q, transpose="yes")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "text,kw,match",
    [
        ("a,b\n1,2\n", {}, r"p.csv, line 1: no column 'y_true' in the header; columns are"),
        ("y_true,y_pred\n", {}, r"p.csv: no predictions after the header line"),
        ("y_true,y_pred\na,b\nc\n", {}, r"p.csv, line 3: 1 cells; the header has 2"),
        ("y_true,y_pred\na, \n", {}, r"p.csv, line 2: empty label in column 'y_pred'"),
        (
            "y_true,y_pred\na,b\nb,z\n",
            {"labels": ["a", "b"]},
            r"p.csv, line 3: unknown label 'z' in column 'y_pred'; labels are \['a', 'b'\]",
        ),
    ],
)
def test_malformed_predictions(tmp_path: Path, text: str, kw: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        read_predictions(write(tmp_path, "p.csv", text), **kw)


def test_transpose_rejected_for_predictions(tmp_path: Path) -> None:
    f = write(tmp_path, "p.csv", "y_true,y_pred\na,b\n")
    with pytest.raises(ValueError, match="transpose applies to confusion-matrix files"):
        read_input(f, transpose=True)


@pytest.mark.parametrize("kind", ["fifo", "device", "directory"])
@pytest.mark.parametrize(
    "command", [["summarize"], ["gate", "--metric", "micro_f1", "--min", "0.5"]]
)
def test_non_regular_files_are_refused_at_once(tmp_path, kind, command):
    """A FIFO would block forever and /dev/zero never ends: refused before opening, exit 2."""
    import os
    import subprocess
    import sys
    import time

    path = tmp_path / "cm.json"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        path.symlink_to("/dev/zero")
    else:
        path.mkdir()
    t0 = time.perf_counter()
    run = subprocess.run(
        [sys.executable, "-m", "f1posterior", command[0], str(path), *command[1:]],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "only regular files are read" in lines[0]
    assert {"fifo": "a FIFO", "device": "a device", "directory": "a directory"}[kind] in lines[0]
    assert time.perf_counter() - t0 < 30  # at once (the interpreter's start-up dominates)


@pytest.mark.parametrize(
    ("reader", "name", "data", "match"),
    [
        ("matrix", "x", b"1", r"x: unknown file type '\(no suffix\)'; expected one of .json, "),
        ("documents", "d.npy", b"1", r"d.npy: unknown documents file type '.npy'; expected .json"),
        ("multilabel", "m.csv", b"1", r"m.csv: unknown multi-label file type '.csv'; expected "),
        ("format", "f.TXT", b"1", r"f.TXT: unknown file type '.txt'; expected one of .json"),
        ("matrix", "u.csv", b"1,\xe9\n", r"u.csv: not UTF-8 text; expected a text file"),
        ("matrix", "u.json", b"[\xe9]", r"u.json: not UTF-8 text; expected a JSON confusion"),
        (
            "documents",
            "u.json",
            b"{\xe9}",
            r'u.json: not UTF-8 text; expected a JSON object with "',
        ),
    ],
)
def test_every_reader_names_the_file_and_what_it_expected(tmp_path, reader, name, data, match):
    from f1posterior.io._documents import read_documents
    from f1posterior.io._multilabel import read_multilabel
    from f1posterior.io._sources import input_format_of

    path = tmp_path / name
    path.write_bytes(data)
    read = {
        "matrix": read_matrix,
        "documents": read_documents,
        "multilabel": read_multilabel,
        "format": input_format_of,
    }[reader]
    with pytest.raises(ValueError, match=match):
        read(path)


def test_a_directory_with_a_known_suffix_is_refused_before_it_is_read(tmp_path):
    (tmp_path / "dir.json").mkdir()
    with pytest.raises(ValueError, match=r"dir.json: a directory; only regular files are read"):
        read_matrix(tmp_path / "dir.json")
