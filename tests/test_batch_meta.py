"""Self-describing batch results: the per-row prior flag, the run's metadata in every row
format, one column naming scheme, and batch defaults that finish (draws rule, early progress)."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest

from f1posterior import __version__, evaluate
from f1posterior.cli import _stream as stream_mod
from f1posterior.cli import main
from f1posterior.io import _rowmeta as rowmeta
from f1posterior.io import _writers as writers

pd = pytest.importorskip("pandas")

# Row 0: two classes no document is of (rows of zeros): their recall is uninformed, and four
# documents leave every metric to the prior. Row 1: thousands of documents: the prior moves
# nothing.
FLAGGED = [[0, 0, 0], [0, 0, 0], [0, 0, 4]]
INFORMED = [[900, 50, 50], [40, 880, 80], [30, 70, 900]]
STACK = np.array([FLAGGED, INFORMED, FLAGGED, INFORMED])
NAMES = ["a", "b", "c", "d"]
TRUTH = [True, False, True, False]  # macro_f1's flag per row, from the construction


def read_metadata(path):
    return rowmeta.read_metadata(path)  # looked up per test: each fails alone without it


def _jsonl(tmp_path):
    f = tmp_path / "b.jsonl"
    f.write_text(
        "".join(
            json.dumps({"name": n, "matrix": m.tolist()}) + "\n"
            for n, m in zip(NAMES, STACK, strict=True)
        )
    )
    return f


def _summarize(tmp_path, *extra):
    argv = ["summarize", str(_jsonl(tmp_path)), "--metric", "macro_f1", "--seed", "5"]
    return main([*argv, "--draws", "1000", *extra])


def test_the_construction_is_what_evaluate_flags():
    ev = evaluate(STACK, metrics="macro_f1", draws=1000, rng=5)
    assert list(ev["macro_f1"].prior_dominated) == TRUTH


@pytest.mark.parametrize("fmt", ["csv", "tsv"])
def test_csv_and_tsv_carry_the_flag_and_the_metadata(tmp_path, fmt):
    out = tmp_path / f"o.{fmt}"
    assert _summarize(tmp_path, "--output", str(out)) == 0
    sep = "," if fmt == "csv" else "\t"
    frame = pd.read_csv(out, comment="#", sep=sep)
    assert list(frame["macro_f1_prior_dominated"]) == TRUTH
    assert frame["macro_f1_prior_dominated"].dtype == bool
    meta = read_metadata(out)
    assert meta is not None
    assert (meta["version"], meta["draws"], meta["seed"], meta["ci_prob"]) == (
        __version__,
        1000,
        5,
        0.95,
    )
    assert meta["prior"].startswith("hierarchical") and meta["source"] == str(tmp_path / "b.jsonl")
    # the standard library's reader, after the one comment line
    text = out.read_text().splitlines()
    assert text[0].startswith("# f1posterior: {")
    rows = list(csv.DictReader(text[1:], delimiter=sep))
    assert [r["macro_f1_prior_dominated"] for r in rows] == ["true", "false", "true", "false"]


def test_ndjson_json_and_long_form_carry_the_flag_and_the_metadata(tmp_path, capsys):
    assert _summarize(tmp_path, "--format", "ndjson") == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert lines[0]["meta"]["draws"] == 1000 and lines[0]["meta"]["version"] == __version__
    assert [r["macro_f1_prior_dominated"] for r in lines[1:]] == TRUTH
    assert _summarize(tmp_path, "--output", str(tmp_path / "o.json")) == 0
    doc = json.loads((tmp_path / "o.json").read_text())
    assert doc["seed"] == 5 and doc["ci_prob"] == 0.95 and doc["version"] == __version__
    assert [r["macro_f1_prior_dominated"] for r in doc["rows"]] == TRUTH
    assert read_metadata(tmp_path / "o.json")["draws"] == 1000
    assert _summarize(tmp_path, "--format", "csv", "--long", "--metric", "recall") == 0
    long = pd.read_csv(io.StringIO(capsys.readouterr().out), comment="#")
    recall = long[long["metric"] == "recall"]
    # the uninformed classes 0 and 1 of the flagged rows, and nothing of the informed ones
    flagged = recall[recall["prior_dominated"]][["name", "class"]].values.tolist()
    assert {"a", "c"} == {n for n, _ in flagged}
    assert {("a", 0), ("a", 1), ("c", 0), ("c", 1)} <= {(n, c) for n, c in flagged}
    assert list(long[long["metric"] == "macro_f1"]["prior_dominated"]) == TRUTH


def test_parquet_carries_the_flag_and_the_metadata(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    out = tmp_path / "o.parquet"
    assert _summarize(tmp_path, "--output", str(out)) == 0
    table = pq.read_table(out)
    assert table.column("macro_f1_prior_dominated").to_pylist() == TRUTH
    meta = json.loads(table.schema.metadata[b"f1posterior"])
    assert meta == read_metadata(out) and meta["draws"] == 1000 and meta["seed"] == 5


def test_dataframes_carry_the_flag_and_the_cli_column_names(tmp_path):
    ev = evaluate(STACK, metrics="macro_f1", draws=1000, rng=5, names=NAMES, ci_prob=0.9)
    wide = ev.to_dataframe(form="wide")
    assert list(wide["macro_f1_prior_dominated"]) == TRUTH
    long = ev.to_dataframe()
    assert list(long["prior_dominated"]) == TRUTH
    # one naming scheme: the command line's hdi_low/hdi_high, the probability beside it
    assert {"hdi_low", "hdi_high", "eti_low", "eti_high"} <= set(long.columns)
    assert not [c for c in long.columns if c.startswith("hdi_9")]
    assert (long["ci_prob"] == 0.9).all()
    assert wide.attrs["ci_prob"] == long.attrs["ci_prob"] == 0.9
    assert wide.attrs["version"] == __version__ and wide.attrs["draws"] == 1000
    # the same names as the command line's CSV for the same run
    out = tmp_path / "o.csv"
    assert _summarize(tmp_path, "--output", str(out), "--seed", "5", "--ci-prob", "0.9") == 0
    cli = pd.read_csv(out, comment="#")
    assert list(cli.columns) == list(wide.columns)
    np.testing.assert_array_equal(cli["macro_f1_hdi_low"], long["hdi_low"])


def test_a_flag_not_checked_is_empty_not_false():
    ev = evaluate(STACK, metrics="macro_f1", draws=500, rng=0, prior_check=False)
    assert ev["macro_f1"].prior_dominated is None
    out = io.StringIO()
    w = writers.RowWriter(out, "csv")
    w.write(ev, NAMES)
    w.close()
    frame = pd.read_csv(io.StringIO(out.getvalue()), comment="#")
    assert frame["macro_f1_prior_dominated"].isna().all()
    assert ev.to_dataframe()["prior_dominated"].isna().all()


def test_a_name_with_a_hash_survives_pandas_comment_skipping():
    ev = evaluate(STACK[:2], metrics="accuracy", draws=500, rng=0)
    out = io.StringIO()
    w = writers.RowWriter(out, "csv")
    w.write(ev, ["run #1", "#2"])
    w.close()
    frame = pd.read_csv(io.StringIO(out.getvalue()), comment="#")
    assert list(frame["name"]) == ["run #1", "#2"]
    np.testing.assert_array_equal(frame["accuracy_mean"], ev["accuracy"].mean)


# ------------------------------------------------------------------ batch defaults


def test_batch_draws_rule():
    batch_draws, DEFAULT_DRAWS = stream_mod.batch_draws, stream_mod.DEFAULT_DRAWS
    BATCH_MIN_DRAWS, BATCH_VARIATES = stream_mod.BATCH_MIN_DRAWS, stream_mod.BATCH_VARIATES
    assert batch_draws(1, 4) == DEFAULT_DRAWS
    assert batch_draws(100_000, 4) == BATCH_MIN_DRAWS  # the floor
    assert batch_draws(None, 4) == BATCH_MIN_DRAWS
    for total, m in [(5_000, 4), (20_000, 3), (3_000, 10), (1_000, 20)]:
        d = batch_draws(total, m)
        assert d % 1000 == 0 and BATCH_MIN_DRAWS <= d <= DEFAULT_DRAWS
        # within the budget unless at the floor, and the next thousand would exceed it
        assert d == BATCH_MIN_DRAWS or total * m * (m + 1) * d <= BATCH_VARIATES
        assert d == DEFAULT_DRAWS or total * m * (m + 1) * (d + 1000) > BATCH_VARIATES


def test_a_large_batch_without_draws_uses_the_rule_and_says_so(tmp_path, capsys, monkeypatch):
    # a smaller budget stands for a larger batch: 4 matrices of 3 x 3 at 1,200 variates
    monkeypatch.setattr(stream_mod, "BATCH_VARIATES", 4 * 12 * 2500)
    monkeypatch.setattr(stream_mod, "BATCH_MIN_DRAWS", 1000)
    out = tmp_path / "o.csv"
    argv = ["summarize", str(_jsonl(tmp_path)), "--metric", "macro_f1", "--output", str(out)]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "4 matrices of 3 x 3: 2,000 draws each (the batch default" in err
    assert read_metadata(out)["draws"] == 2000
    frame = pd.read_csv(out, comment="#")
    # the MC error column says what the fewer draws cost: std / sqrt(draws)
    np.testing.assert_allclose(
        frame["macro_f1_mc_error"], frame["macro_f1_std"] / np.sqrt(2000), rtol=1e-12
    )


def test_one_matrix_keeps_the_full_default(tmp_path, capsys):
    f = tmp_path / "m.json"
    f.write_text(json.dumps(INFORMED))
    assert main(["summarize", str(f), "--format", "json", "--metric", "accuracy"]) == 0
    assert json.loads(capsys.readouterr().out)["draws"] == 50_000
    assert main(["summarize", str(f), "--format", "csv", "--metric", "accuracy"]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out.splitlines()[0][len("# f1posterior: ") :])["draws"] == 50_000
    assert "draws each" not in out.err


def test_progress_is_reported_at_once_and_within_the_first_chunk(tmp_path, monkeypatch):
    calls: list[tuple[int, int]] = []
    monkeypatch.setattr(
        stream_mod, "progress_reporter", lambda flag: lambda d, t: calls.append((d, t))
    )
    stack = np.tile(STACK, (50, 1, 1))  # 200 matrices in one chunk, many engine groups
    f = tmp_path / "big.npy"
    np.save(f, stack)
    argv = ["summarize", str(f), "--format", "csv", "--draws", "20000", "--metric", "accuracy"]
    assert (
        main([*argv, "--max-memory", "32M", "--workers", "1", "--output", str(tmp_path / "o.csv")])
        == 0
    )
    assert calls[0] == (0, 200)  # before any work
    inside = [d for d, _ in calls if 0 < d < 200]
    assert inside, calls  # reports before the first (here: only) chunk ended
    assert calls[-1] == (200, 200)


def test_the_final_progress_line_is_printed_once():
    from f1posterior.cli._progress import progress_reporter

    out = io.StringIO()
    ticks = iter([0.0, 0.1, 0.2, 0.3])
    report = progress_reporter(True, out, clock=lambda: next(ticks))
    report(0, 5)  # at once
    report(5, 5)  # the engine's last group
    report(5, 5)  # the stream's end of chunk: already said
    lines = out.getvalue().splitlines()
    assert lines == [
        "f1posterior: progress: 0 / 5 matrices (0%), 0/s, 0:00 elapsed",
        "f1posterior: progress: 5 / 5 matrices (100%), 25/s, 0:00 elapsed",
    ]
