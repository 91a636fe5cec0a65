"""Streaming batches from files: readers, row writers, and `summarize`'s batch path."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest
from helpers import forged_npy

from f1posterior import evaluate
from f1posterior.cli import main
from f1posterior.cli._stream import memory_size
from f1posterior.io._streaming import open_batch
from f1posterior.io._writers import RowWriter, atomic_output
from f1posterior.posterior._table import evaluation_rows, run_metadata

RNG = np.random.default_rng(20261122)
STACK = RNG.integers(0, 25, size=(23, 3, 3)).astype(float)
NAMES = [f"model {i}" for i in range(len(STACK))]
LABELS = ["cat", "dog", "eel"]


def _jsonl(tmp_path, stack=STACK, names=NAMES, labels=LABELS, name="b.jsonl"):
    f = tmp_path / name
    with f.open("w") as fh:
        for n, m in zip(names, stack, strict=True):
            fh.write(json.dumps({"name": n, "matrix": m.astype(int).tolist(), "labels": labels}))
            fh.write("\n")
    return f


def _csv_rows(text):
    assert text.startswith("# f1posterior: {")  # the metadata line
    return list(csv.DictReader(io.StringIO(text.split("\n", 1)[1])))


# ------------------------------------------------------------------ readers


def test_jsonl_chunks_keep_names_and_order(tmp_path):
    reader = open_batch(_jsonl(tmp_path), chunk=5)
    chunks = list(reader)
    assert [c.start for c in chunks] == [0, 5, 10, 15, 20]
    assert sum((c.names for c in chunks), []) == NAMES
    np.testing.assert_array_equal(np.concatenate([c.counts for c in chunks]), STACK)
    assert reader.labels == LABELS


def test_jsonl_duplicate_name_names_the_line(tmp_path):
    f = _jsonl(tmp_path, names=["a", "b", "a"], stack=STACK[:3])
    with pytest.raises(ValueError, match=r"line 3: the name 'a' is used twice"):
        list(open_batch(f))


def test_jsonl_size_mismatch_names_the_line(tmp_path):
    f = tmp_path / "b.jsonl"
    f.write_text("[[1, 2], [3, 4]]\n\n[[1, 2, 0], [3, 4, 0], [0, 0, 1]]\n")
    with pytest.raises(ValueError, match=r"line 3: a 3 x 3 matrix, but line 1 has a 2 x 2"):
        list(open_batch(f))


def test_jsonl_one_class_is_refused(tmp_path):
    f = tmp_path / "b.jsonl"
    f.write_text("[[7]]\n")
    with pytest.raises(ValueError, match=r"line 1: .*M >= 2 classes .*got shape \(1, 1\)"):
        open_batch(f)


def test_jsonl_deep_json_is_refused(tmp_path):
    f = tmp_path / "b.jsonl"
    f.write_text("[[1, 2], [3, 4]]\n" + "[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(ValueError, match=r"line 2: JSON nested too deeply"):
        list(open_batch(f))


def test_npy_stack_is_memory_mapped_in_chunks(tmp_path):
    f = tmp_path / "b.npy"
    np.save(f, STACK.astype(np.int32))
    chunks = list(open_batch(f, chunk=10))
    assert [c.names[0] for c in chunks] == ["0", "10", "20"]
    np.testing.assert_array_equal(np.concatenate([c.counts for c in chunks]), STACK)


def test_forged_npy_header_is_refused_before_allocation(tmp_path):
    f = tmp_path / "forged.npy"
    f.write_bytes(forged_npy((1 << 20, 1 << 10, 1 << 10), bytes(64)))  # claims 8 TiB
    with pytest.raises(ValueError, match=r"header claims shape .* refusing a forged"):
        open_batch(f)


def test_forged_npy_through_the_cli_is_one_line_exit_2(tmp_path, capsys):
    f = tmp_path / "forged.npy"
    f.write_bytes(forged_npy((1 << 20, 1 << 10, 1 << 10), bytes(64)))
    t0 = time.perf_counter()
    assert main(["summarize", str(f), "--format", "csv"]) == 2
    assert time.perf_counter() - t0 < 1.0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "forged" in err and "Traceback" not in err


def test_npz_names_and_labels(tmp_path):
    f = tmp_path / "b.npz"
    np.savez(f, counts=STACK, names=np.array(NAMES), labels=np.array(LABELS))
    reader = open_batch(f, chunk=100)
    (chunk,) = list(reader)
    assert chunk.names == NAMES and reader.labels == LABELS


def test_npz_object_array_is_not_unpickled(tmp_path):
    f = tmp_path / "b.npz"
    np.savez(f, counts=np.array([[1, object()], [2, 3]], dtype=object))
    with pytest.raises(ValueError, match=r"Python objects, which are never unpickled"):
        open_batch(f)


def test_fifo_is_refused_at_once(tmp_path, capsys):
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    t0 = time.perf_counter()
    assert main(["summarize", str(fifo), "--format", "csv"]) == 2
    assert time.perf_counter() - t0 < 1.0
    assert "a FIFO; only regular files are read" in capsys.readouterr().err


# ------------------------------------------------------------------ CLI rows


@pytest.mark.parametrize("chunk", ["1", "4", "1000"])
def test_cli_rows_equal_one_in_memory_evaluate(tmp_path, capsys, chunk):
    f = _jsonl(tmp_path)
    argv = ["summarize", str(f), "--format", "csv", "--draws", "3000", "--seed", "11"]
    assert main([*argv, "--metric", "micro_f1", "--metric", "f1", "--chunk-size", chunk]) == 0
    rows = _csv_rows(capsys.readouterr().out)
    ev = evaluate(STACK, metrics=["micro_f1", "f1"], draws=3000, rng=11, labels=LABELS)
    assert [r["name"] for r in rows] == NAMES
    np.testing.assert_array_equal([float(r["micro_f1_mean"]) for r in rows], ev["micro_f1"].mean)
    np.testing.assert_array_equal(
        [float(r["f1_dog_hdi_high"]) for r in rows], ev["f1"].hdi[:, 1, 1]
    )
    np.testing.assert_array_equal([float(r["f1_eel_score"]) for r in rows], ev["f1"].score[:, 2])


def test_cli_ref_adds_probability_columns(tmp_path, capsys):
    f = _jsonl(tmp_path)
    assert main(["summarize", str(f), "--format", "csv", "--draws", "2000", "--ref", "0.4"]) == 0
    row = _csv_rows(capsys.readouterr().out)[0]
    assert abs(float(row["micro_f1_p_below"]) + float(row["micro_f1_p_above"]) - 1) < 1e-12


def test_cli_long_form_has_one_row_per_class(tmp_path, capsys):
    f = _jsonl(tmp_path)
    argv = ["summarize", str(f), "--format", "csv", "--long", "--metric", "f1", "--draws", "2000"]
    assert main(argv) == 0
    rows = _csv_rows(capsys.readouterr().out)
    assert len(rows) == len(NAMES) * 3
    assert [r["class"] for r in rows[:3]] == LABELS and rows[0]["metric"] == "f1"


def test_ndjson_and_json_are_valid_json_with_names(tmp_path, capsys):
    f = _jsonl(tmp_path)
    assert main(["summarize", str(f), "--format", "ndjson", "--draws", "2000"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert json.loads(lines[0])["meta"]["labels"] == LABELS
    assert [json.loads(x)["name"] for x in lines[1:]] == NAMES
    assert main(["summarize", str(f), "--format", "json", "--draws", "2000"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in doc["rows"]] == NAMES and doc["labels"] == LABELS


def test_names_are_escaped_in_every_format(tmp_path, capsys):
    evil = "x\n### f1posterior gate passed | <b>\x1b[31m"
    f = _jsonl(tmp_path, stack=STACK[:2], names=[evil, "ok"])
    for fmt in ("csv", "markdown", "table"):
        assert main(["summarize", str(f), "--format", fmt, "--draws", "1000"]) == 0
        out = capsys.readouterr().out
        assert "\x1b" not in out and "\n###" not in out
        # the metadata / the rule; the human formats end with a blank line and the receipt
        assert len(out.splitlines()) == 3 + (fmt != "table") + 2 * (fmt != "csv")
    assert main(["summarize", str(f), "--format", "ndjson", "--draws", "1000"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[1])["name"] == evil


def test_undefined_metric_is_nan_in_csv_and_null_in_json():
    ev = evaluate([[[1, 0, 0], [0, 5, 1], [0, 2, 4]]], metrics="f1", draws=500, rng=1)
    s = ev["f1"]
    ev.summaries["f1"] = dataclasses.replace(s, score=np.where([[1, 0, 0]], np.nan, s.score))
    out = io.StringIO()
    w = RowWriter(out, "ndjson", meta=run_metadata(ev))
    w.write(*evaluation_rows(ev, ["a"]))
    w.close()
    assert json.loads(out.getvalue().splitlines()[1])["f1_0_score"] is None
    out = io.StringIO()
    w = RowWriter(out, "csv", meta=run_metadata(ev))
    w.write(*evaluation_rows(ev, ["a"]))
    assert _csv_rows(out.getvalue())[0]["f1_0_score"] == "nan"


def test_output_file_is_written_atomically(tmp_path, capsys):
    good = _jsonl(tmp_path)
    out = tmp_path / "out.csv"
    assert main(["summarize", str(good), "--output", str(out), "--draws", "1000"]) == 0
    assert "23 matrices written" in capsys.readouterr().err
    first = out.read_text()
    assert first.splitlines()[1].startswith("name,micro_f1_score")  # format from the suffix
    # a broken line after the first chunk: exit 2, and the old file is untouched
    bad = tmp_path / "bad.jsonl"
    bad.write_text(good.read_text() + "[[1, 2], [oops\n")
    argv = ["summarize", str(bad), "--output", str(out), "--chunk-size", "4", "--draws", "1000"]
    assert main(argv) == 2
    assert "line 24: broken JSON" in capsys.readouterr().err
    assert out.read_text() == first
    assert [p.name for p in tmp_path.iterdir() if p.suffix == ".part"] == []


def test_atomic_output_removes_the_temporary_file_on_interrupt(tmp_path):
    target = tmp_path / "o.csv"
    with pytest.raises(KeyboardInterrupt), atomic_output(target) as fh:
        fh.write("partial")
        raise KeyboardInterrupt
    assert list(tmp_path.iterdir()) == []


def test_progress_prints_plain_lines_when_asked(tmp_path, capsys):
    f = _jsonl(tmp_path)
    argv = ["summarize", str(f), "--format", "csv", "--draws", "500", "--progress"]
    assert main([*argv, "--chunk-size", "10"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[-1].startswith("f1posterior: progress: 23 / 23 matrices (100%)")
    assert main([*argv[:-1], "--no-progress"]) == 0
    assert "progress" not in capsys.readouterr().err


def test_stdin_jsonl(tmp_path):
    f = _jsonl(tmp_path)
    cmd = [sys.executable, "-m", "f1posterior", "summarize", "-", "--input-format", "jsonl"]
    cmd += ["--format", "csv"]
    done = subprocess.run(
        [*cmd, "--draws", "1000"], input=f.read_text(), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert [r["name"] for r in _csv_rows(done.stdout)] == NAMES


@pytest.mark.parametrize(
    ("text", "expected"), [("512M", 512 << 20), ("2GiB", 2 << 30), ("1048576", 1 << 20)]
)
def test_memory_sizes(text, expected):
    assert memory_size(text) == expected


@pytest.mark.parametrize("argv", [["--max-memory", "12kb"], ["--max-memory", "lots"]])
def test_bad_memory_size_is_exit_2(tmp_path, capsys, argv):
    with pytest.raises(SystemExit) as exc:
        main(["summarize", str(_jsonl(tmp_path)), *argv])
    assert exc.value.code == 2
    assert "--max-memory" in capsys.readouterr().err


def test_row_formats_need_a_single_label_file(capsys):
    assert main(["summarize", "--format", "csv"]) == 2
    assert "give a FILE" in capsys.readouterr().err


def test_a_matrix_too_large_for_the_budget_is_refused_before_allocation():
    counts = np.broadcast_to(np.zeros(()), (20_000, 20_000))  # a view: nothing allocated
    with pytest.raises(ValueError, match=r"M = 20,000 classes .* more than max_memory = 256\.0"):
        evaluate(counts)


def test_draws_too_many_for_the_budget_are_refused():
    with pytest.raises(ValueError, match=r"1,000,000,000 draws needs about 37\.3 GiB"):
        evaluate([[5, 1], [2, 6]], draws=10**9)


def test_cli_refuses_draws_that_cannot_fit_in_one_line(tmp_path, capsys):
    f = tmp_path / "m.json"
    f.write_text("[[5, 1], [2, 6]]")
    assert main(["summarize", str(f), "--draws", "1000000000"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "raise max_memory (--max-memory" in err


def test_large_m_is_chunked_over_draws_within_the_budget():
    import tracemalloc

    counts = np.random.default_rng(3).integers(0, 5, size=(400, 400)).astype(float)
    budget = 48 << 20  # all 2,000 draws would take 2.5 GiB; one random block takes 16 MiB
    # first, the process's one-time costs (numpy's and the package's first use, about 13 MiB
    # at M = 400), which max_memory does not bound: it bounds the draws' working memory
    evaluate(counts, draws=4, max_memory=budget, workers=1, rng=0)
    tracemalloc.start()
    try:
        evaluate(counts, draws=2000, max_memory=budget, workers=1, rng=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # the budget plus the matrix's own parameter arrays (six (M + 1) x M float64 arrays)
    assert peak < budget + 6 * 8 * 401 * 400


@pytest.mark.filterwarnings("default::RuntimeWarning")  # this test emits one on purpose
def test_python_warnings_become_one_line(capsys, monkeypatch):
    import warnings

    import f1posterior.cli._summarize as summarize

    def noisy(args):
        warnings.warn("something odd\nwith a second line", RuntimeWarning, stacklevel=1)
        return 0

    monkeypatch.setattr(summarize, "run", noisy)
    parser_run = main(["summarize"])
    err = capsys.readouterr().err
    assert parser_run == 0
    assert err == "f1posterior: warning: something odd with a second line\n"


def test_parquet_output_has_the_csv_columns(tmp_path, capsys):
    import pyarrow.parquet as pq  # the parquet extra (in the test dependency group)

    f = _jsonl(tmp_path)
    out = tmp_path / "o.parquet"
    argv = ["summarize", str(f), "--output", str(out), "--draws", "1000", "--metric", "f1"]
    assert main([*argv, "--chunk-size", "5"]) == 0
    table = pq.read_table(out).to_pydict()
    assert main([*argv[:3], str(tmp_path / "o.csv"), *argv[4:]]) == 0
    rows = _csv_rows((tmp_path / "o.csv").read_text())
    assert table["name"] == NAMES == [r["name"] for r in rows]
    assert list(table) == list(rows[0])
    np.testing.assert_array_equal(table["f1_eel_mean"], [float(r["f1_eel_mean"]) for r in rows])


def test_parquet_needs_an_output_file(tmp_path, capsys):
    assert main(["summarize", str(_jsonl(tmp_path)), "--format", "parquet"]) == 2
    assert "give --output FILE" in capsys.readouterr().err


def _big_jsonl(tmp_path, n=3000):
    stack = np.random.default_rng(5).integers(0, 30, size=(n, 4, 4))
    return _jsonl(tmp_path, stack=stack, names=[f"m{i}" for i in range(n)], labels=list("abcd"))


def test_sigint_exits_130_with_one_line_and_no_output_file(tmp_path):
    import signal

    f, out = _big_jsonl(tmp_path), tmp_path / "o.csv"
    cmd = [sys.executable, "-m", "f1posterior", "summarize", str(f), "--output", str(out)]
    proc = subprocess.Popen(
        [*cmd, "--draws", "20000", "--chunk-size", "100"], stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 60  # started: the temporary output file exists
    while not any(p.suffix == ".part" for p in tmp_path.iterdir()):
        assert proc.poll() is None and time.monotonic() < deadline, "the run never started"
        time.sleep(0.05)
    time.sleep(0.5)  # into the batch (it takes tens of seconds)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert err == "f1posterior summarize: interrupted\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.jsonl"]  # no o.csv, no .part


def test_an_interrupt_python_drops_in_a_finaliser_still_stops_the_run(monkeypatch):
    """Python prints and drops a KeyboardInterrupt raised in ``__del__``; the flag keeps it."""
    import signal

    from f1posterior.cli import _common as common

    dropped = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: dropped.append(u.exc_type))

    class Finalised:
        def __del__(self):
            common.on_sigint(signal.SIGINT, None)

    common.reset_interrupt()
    obj = Finalised()
    del obj  # the handler's KeyboardInterrupt is raised in __del__ and dropped
    assert dropped == [KeyboardInterrupt]
    with pytest.raises(KeyboardInterrupt):
        common.check_interrupt()  # what the batch loop and main() call
    common.reset_interrupt()
    common.check_interrupt()  # a fresh run starts clean


def test_a_closed_pipe_exits_141_quietly(tmp_path):
    f = _big_jsonl(tmp_path, n=500)
    script = (
        f"{sys.executable} -m f1posterior summarize {f} --format csv --draws 500 "
        "--chunk-size 10 2>err.txt | head -1 >/dev/null; echo ${PIPESTATUS[0]}"
    )
    done = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True)
    assert done.stdout.strip() == "141"
    assert (tmp_path / "err.txt").read_text() == ""
