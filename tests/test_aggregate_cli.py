"""The aggregate command and the forest plot: outputs equal the library's, errors are one line."""

from __future__ import annotations

import csv
import io
import json
import re

import numpy as np
import pytest

from f1posterior import aggregate
from f1posterior._core.results import values_equal
from f1posterior._core.streams import DEFAULT_SEED
from f1posterior.cli import main
from f1posterior.io import split_intervals

FOLDS = [
    [[40, 10], [5, 45]],
    [[38, 12], [6, 44]],
    [[42, 8], [4, 46]],
    [[30, 20], [9, 41]],
]


@pytest.fixture
def files(tmp_path):
    out = []
    for i, t in enumerate(FOLDS):
        f = tmp_path / f"fold{i}.json"
        f.write_text(json.dumps({"matrix": t, "labels": ["neg", "pos"]}))
        out.append(str(f))
    return out


def _run(capsys, *args):
    code = main(["aggregate", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_equals_the_library(files, capsys):
    code, out, err = _run(capsys, *files, "--metric", "accuracy", "--draws", "2000",
                          "--format", "json")  # fmt: skip
    assert code == 0, err
    got = json.loads(out)
    want = aggregate(np.array(FOLDS), metric="accuracy", draws=2000, rng=DEFAULT_SEED,
                     names=files, alpha="adaptive", beta="adaptive")  # fmt: skip
    assert got["summary"]["mean"] == want.summary.mean
    assert [got["summary"]["hdi_low"], got["summary"]["hdi_high"]] == want.summary.hdi.tolist()
    assert got["heterogeneity"]["i2_median"] == want.heterogeneity.i2_median
    assert [t["name"] for t in got["tables"]] == files
    assert got["labels"] == ["neg", "pos"]
    assert got["predictive"]["score"] is None  # strict JSON: no NaN


def test_pooled_and_prior_options(files, capsys):
    code, out, _ = _run(capsys, *files, "--method", "pooled", "--prior", "jeffreys",
                        "--draws", "1000", "--seed", "3", "--format", "json")  # fmt: skip
    assert code == 0
    got = json.loads(out)
    want = aggregate(np.array(FOLDS), method="pooled", draws=1000, rng=3, alpha=0.5, beta=0.5)
    assert got["summary"] == json.loads(json.dumps(split_intervals(want.summary.to_dict())))
    assert got["method"] == "pooled" and got["predictive"] is None


def test_one_batch_file_is_k_tables(tmp_path, capsys):
    f = tmp_path / "folds.jsonl"
    f.write_text("".join(json.dumps({"matrix": t, "name": f"fold {i}"}) + "\n"
                         for i, t in enumerate(FOLDS)))  # fmt: skip
    code, out, _ = _run(capsys, str(f), "--draws", "500", "--format", "json")
    assert code == 0
    assert [t["name"] for t in json.loads(out)["tables"]] == [f"fold {i}" for i in range(4)]
    npy = tmp_path / "folds.npy"
    np.save(npy, np.array(FOLDS))
    code, out, _ = _run(capsys, str(npy), "--draws", "500", "--format", "csv")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out.split("\n", 1)[1])))
    assert [r["name"] for r in rows] == ["0", "1", "2", "3", "aggregate", "new table"]


def test_csv_and_markdown_escape_names(tmp_path, capsys):
    evil = tmp_path / "a|b*\x1b[31m.json"
    evil.write_text(json.dumps(FOLDS[0]))
    other = tmp_path / "c.json"
    other.write_text(json.dumps(FOLDS[1]))
    code, out, _ = _run(capsys, str(evil), str(other), "--draws", "500", "--format", "markdown")
    assert code == 0
    assert "\x1b" not in out and "a\\|b\\*\\\\x1b\\[31m.json" in out
    assert out.count("\n| ") == 5  # header + 2 tables + aggregate + new table
    code, out, _ = _run(capsys, str(evil), str(other), "--draws", "500", "--format", "csv")
    assert "\x1b" not in out and "\\x1b[31m" in out
    rows = list(csv.DictReader(io.StringIO(out.split("\n", 1)[1])))
    assert rows[2]["kind"] == "random_effects" and rows[3]["score"] == "nan"
    code, out, _ = _run(capsys, str(evil), str(other), "--draws", "500")
    assert "\x1b" not in out and "I^2" in out


def test_csv_is_written_by_the_batch_writer(tmp_path, capsys):
    # the batch CSV's conventions: metadata line, formula escaping, quoting of "#",
    # shortest round-trip floats
    names = ["=cmd()", "run #2", "@sum(A1)", "plain"]
    f = tmp_path / "folds.jsonl"
    f.write_text("".join(json.dumps({"matrix": t, "name": n}) + "\n"
                         for n, t in zip(names, FOLDS, strict=True)))  # fmt: skip
    code, out, err = _run(capsys, str(f), "--draws", "500", "--seed", "4", "--format", "csv")
    assert code == 0, err
    head, body = out.split("\n", 1)
    assert head.startswith("# f1posterior: ")
    meta = json.loads(head.removeprefix("# f1posterior: "))
    assert (meta["draws"], meta["seed"], meta["method"]) == (500, 4, "random_effects")
    rows = list(csv.DictReader(io.StringIO(body)))
    assert [r["name"][:2] for r in rows[:4]] == ["'=", "ru", "'@", "pl"]  # not run as formulas
    assert '"run #2","table",' in body  # the row holding "#" is quoted whole
    want = aggregate(np.array(FOLDS), draws=500, rng=4, names=names).rows()
    for r, w in zip(rows, want, strict=True):
        assert r["mean"] == repr(w["mean"]) and float(r["hdi_low"]) == w["hdi_low"]
    assert list(rows[0]) == list(want[0])


def test_plot_draws_one_bar_per_table_and_a_diamond(files, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    png = tmp_path / "forest.png"
    code, _, err = _run(capsys, *files, "--draws", "500", "--plot", str(png))
    assert code == 0 and png.stat().st_size > 1000 and "plot written" in err


def test_plot_aggregate_content():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")  # tests only: the library never selects a backend
    from f1posterior.report.plots import plot_aggregate

    res = aggregate(np.array(FOLDS), metric="accuracy", draws=1000, rng=0)
    fig = plot_aggregate(res, ref=0.8)
    ax = fig.axes[0]
    bars = next(c for c in ax.collections if c.get_gid() == "hdi_bars")
    segs = bars.get_segments()
    assert len(segs) == len(FOLDS)  # one interval per table
    np.testing.assert_allclose([s[:, 0] for s in segs], res.tables.hdi)
    diamond = next(p for p in ax.patches if p.get_gid() == "aggregate")
    xy = diamond.get_xy()
    assert xy[:, 0].min() == pytest.approx(res.summary.hdi[0])
    assert xy[:, 0].max() == pytest.approx(res.summary.hdi[1])
    ticks = [t.get_text() for t in ax.get_yticklabels()]
    assert ticks == [f"table {i}" for i in range(4)] + ["aggregate (mean)", "new table"]
    pooled = aggregate(np.array(FOLDS), method="pooled", draws=1000, rng=0)
    ax2 = plot_aggregate(pooled).axes[0]
    assert [t.get_text() for t in ax2.get_yticklabels()][-1] == "aggregate (pooled)"
    with pytest.raises(TypeError, match=r"result must be an Aggregate from aggregate\(\); got 3"):
        plot_aggregate(3)


def test_ref_adds_probabilities(files, capsys):
    code, out, _ = _run(capsys, *files, "--draws", "800", "--ref", "0.8", "--format", "json")
    assert code == 0
    got = json.loads(out)
    want = aggregate(np.array(FOLDS), draws=800, rng=DEFAULT_SEED, ref=0.8, names=files)
    assert got["summary"]["p_above"] == want.summary.p_above
    assert got["predictive"]["p_above"] == want.predictive.p_above
    code, out, _ = _run(capsys, *files, "--draws", "800", "--ref", "0.8")
    assert f"P(aggregate > 0.8) = {want.summary.p_above:.4f}" in out


def test_seed_is_deterministic(files, capsys):
    outs = [_run(capsys, *files, "--draws", "500", "--seed", "9")[1] for _ in range(2)]
    assert outs[0] == outs[1]


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (["--method", "fixed"], r"argument --method: invalid choice: 'fixed'"),
        (["--metric", "f1"], r"argument --metric: invalid choice: 'f1'"),
        (["--tau-scale", "0"], r"--tau-scale: expected 'auto' or a number > 0 and at most 1e\+06; got '0'"),
        (["--plot", "x.gif"], r"argument --plot: expected a file name ending in"),
        (["--scale", "identity", "--draws", "100", "--metric", "accuracy", "--method",
          "pooled", "--format", "bogus"], r"argument --format: invalid choice: 'bogus'"),
    ],
)  # fmt: skip
def test_usage_errors(files, capsys, args, match):
    with pytest.raises(SystemExit) as e:
        main(["aggregate", *files, *args])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert re.search(match, err), err


def test_input_errors_are_one_line_exit_2(tmp_path, files, capsys):
    three = tmp_path / "three.json"
    three.write_text(json.dumps([[1, 2, 3], [4, 5, 6], [7, 8, 9]]))
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"matrix": [[1, 2], [3, 4]], "labels": ["x", "y"]}))
    cases = [
        ([files[0]], r"at least 2 tables for method='random_effects'.*got 1 table"),
        ([files[0], str(three)], r"three.json: 3 classes, but .*fold0.json has 2"),
        ([files[0], str(other)], r"other.json: different class labels from .*fold0.json"),
        ([files[0], files[0]], r"table '.*fold0.json' is given twice"),
        ([files[0], str(tmp_path / "missing.json")], r"missing.json: no such file"),
    ]
    for paths, match in cases:
        code, out, err = _run(capsys, *paths, "--draws", "100")
        assert code == 2 and out == ""
        assert err.count("\n") == 1 and err.startswith("f1posterior aggregate: error: "), err
        assert re.search(match, err), err


def test_single_table_pooled_equals_the_library(files, capsys):
    code, out, _ = _run(capsys, files[0], "--method", "pooled", "--draws", "800", "--format",
                        "json")  # fmt: skip
    assert code == 0
    want = aggregate(np.array(FOLDS[:1]), method="pooled", draws=800, rng=DEFAULT_SEED)
    got = json.loads(out)
    assert got["heterogeneity"] is None
    assert values_equal(got["summary"]["mean"], want.summary.mean)
