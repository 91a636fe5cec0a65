"""Slices: evaluate_slices, the SliceFloor gate check, --slice-col, outputs and errors.

Independent truths: each slice's table against ``confusion_matrix`` of its documents;
each slice's posterior against ``evaluate`` of the batch; the joint probability against
the product of the exact per-slice Beta posteriors (the slices' posteriors are
independent), with the smallest per-slice probability as the negative control.
"""

from __future__ import annotations

import json
import math
import re
import shlex
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from f1posterior import (
    Floor,
    JointFloor,
    SliceEvaluation,
    SliceFloor,
    confusion_matrix,
    evaluate,
    evaluate_slices,
    exact_posterior,
    gate,
    gate_multilabel,
)
from f1posterior.cli import main
from f1posterior.io import read_sliced_predictions, slice_tables

DOCS = Path(__file__).resolve().parent.parent / "docs" / "slices.md"
TABLES = np.array([[[40, 2], [3, 45]], [[38, 4], [2, 41]], [[30, 9], [8, 33]]])


def _predictions(seed: int = 0, n: int = 300) -> tuple[list[int], list[int], list[str]]:
    rng = np.random.default_rng(seed)
    groups = rng.choice(["eu", "us", "apac"], size=n).tolist()
    y = rng.integers(0, 3, size=n)
    right = rng.random(n) < 0.8
    pred = np.where(right, y, rng.integers(0, 3, size=n))
    return y.tolist(), pred.tolist(), groups


# --- the tables ------------------------------------------------------------------------


def test_slice_tables_equal_confusion_matrix_of_each_slice() -> None:
    y, p, g = _predictions()
    t = slice_tables(y, p, g)
    assert t.names == ["apac", "eu", "us"] and t.labels == [0, 1, 2]
    for name, table, n in zip(t.names, t.counts, t.support, strict=True):
        idx = [i for i, v in enumerate(g) if v == name]
        ref = confusion_matrix([y[i] for i in idx], [p[i] for i in idx], labels=[0, 1, 2])
        np.testing.assert_array_equal(table, ref.counts)
        assert n == len(idx)
    assert t.counts.sum() == len(y)


def test_slice_tables_errors_name_the_argument() -> None:
    with pytest.raises(ValueError, match="groups must give one slice per document: 3 documents"):
        slice_tables([0, 1, 1], [0, 1, 0], ["a", "b"])
    with pytest.raises(TypeError, match="groups must hold labels of one type"):
        slice_tables([0, 1], [0, 1], np.array([1, "1"], dtype=object))

    class Same:  # two slices whose names are the same text
        def __str__(self) -> str:
            return "same"

    with pytest.raises(ValueError, match="'same' names two slices"):
        slice_tables([0, 1], [0, 1], [Same(), Same()])


def test_read_sliced_predictions_orders_labels_and_slices(tmp_path: Path) -> None:
    f = tmp_path / "p.csv"
    f.write_text("s,y_true,y_pred\n10,10,2\n2,2,2\n10,10,10\n2,10,2\n")
    m = read_sliced_predictions(f, slice_col="s")
    assert m.names == ["2", "10"] and m.labels == ["2", "10"]  # numeric order, as read_predictions
    assert m.counts.tolist() == [[[1, 0], [1, 0]], [[0, 0], [1, 1]]]
    with pytest.raises(ValueError, match="--slice-col: no column 'x'"):
        read_sliced_predictions(f, slice_col="x")
    with pytest.raises(ValueError, match="slice_col must be a column other than the labels"):
        read_sliced_predictions(f, slice_col="y_true")
    f.write_text("s,y_true,y_pred\n,1,1\n")
    with pytest.raises(ValueError, match="line 2: empty slice in column 's'"):
        read_sliced_predictions(f, slice_col="s")


# --- evaluate_slices -------------------------------------------------------------------


def test_each_slice_is_evaluate_of_the_batch() -> None:
    y, p, g = _predictions()
    res = evaluate_slices(y, p, g, metrics=["macro_f1", "accuracy"], draws=3_000, rng=5)
    t = slice_tables(y, p, g)
    ref = evaluate(t.counts, metrics=["macro_f1", "accuracy"], draws=3_000, rng=5)
    for m in ("macro_f1", "accuracy"):
        np.testing.assert_array_equal(res.evaluation[m].mean, ref[m].mean)
        np.testing.assert_array_equal(res.evaluation[m].hdi, ref[m].hdi)
    assert res.names == ("apac", "eu", "us") and sum(res.support) == len(y)
    again = evaluate_slices(counts=t.counts, names=t.names, metrics=["macro_f1", "accuracy"],
                            draws=3_000, rng=5)  # fmt: skip
    np.testing.assert_array_equal(again.evaluation["macro_f1"].mean, ref["macro_f1"].mean)


def test_joint_probability_is_the_product_of_exact_slice_posteriors() -> None:
    """Disjoint documents: independent posteriors, so P(all >= T) = prod_s P_s (exact Beta)."""
    floor, draws = 0.83, 200_000
    tables = np.array([[[40, 5], [4, 41]], [[41, 4], [5, 40]], [[39, 5], [4, 42]]])
    res = evaluate_slices(counts=tables, metrics="accuracy", floor=floor, alpha=1.0,
                          beta="aligned", draws=draws, rng=11)  # fmt: skip
    each = exact_posterior(tables, "accuracy", alpha=1.0).sf(floor)
    expected = float(np.prod(each))
    se = math.sqrt(expected * (1 - expected) / draws)
    assert abs(res.joint["accuracy"] - expected) < 4.5 * se
    # the per-slice rows are the exact probabilities
    np.testing.assert_allclose(res.evaluation["accuracy"].p_above, each, atol=1e-9)
    # negative control: the smallest per-slice probability is far from the joint one
    assert abs(res.joint["accuracy"] - each.min()) > 20 * se


def test_min_support_skips_and_says_so() -> None:
    y, p, g = _predictions()
    g[:5] = ["tiny"] * 5
    res = evaluate_slices(y, p, g, metrics="macro_f1", floor=0.6, min_support=20,
                          draws=2_000, rng=0)  # fmt: skip
    assert "tiny" in res.names and "tiny" not in res.evaluation.names
    i = res.names.index("tiny")
    assert res.skipped[i] == "5 documents < min_support 20"
    frame = res.to_frame()
    row = frame[frame["slice"] == "tiny"].iloc[0]
    assert row["status"] == "skipped: 5 documents < min_support 20" and math.isnan(row["mean"])
    assert list(frame.columns) == ["slice", "support", "metric", "score", "mean", "std",
                                   "hdi_low", "hdi_high", "p_floor", "status"]  # fmt: skip
    assert "SKIPPED: 5 documents < min_support 20" in str(res)
    assert res.to_dict()["slices"][i] == {"slice": "tiny", "support": 5,
                                          "status": "skipped: 5 documents < min_support 20"}  # fmt: skip
    with pytest.raises(ValueError, match="every slice has fewer than min_support=1000"):
        evaluate_slices(y, p, g, min_support=1_000, draws=1_000)


def test_frame_has_a_row_per_slice_and_metric() -> None:
    y, p, g = _predictions()
    res = evaluate_slices(y, p, g, draws=2_000, rng=1)
    frame = res.to_frame()
    assert len(frame) == 6 and set(frame["metric"]) == {"micro_f1", "macro_f1"}
    assert "p_floor" not in frame.columns and res.joint is None
    sub = frame[frame["metric"] == "macro_f1"]
    np.testing.assert_allclose(sub["mean"].to_numpy(), res.evaluation["macro_f1"].mean)
    assert isinstance(res, SliceEvaluation)


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        (dict(metrics="f1"), ValueError, "'f1' is per class; slices take single-number"),
        (dict(metrics="nope"), ValueError, "metrics must name single-number metrics"),
        (dict(floor="0.8"), TypeError, "floor must be a finite number or None; got"),
        (dict(floor=float("nan")), ValueError, "floor must be a finite number"),
        (dict(min_support=0), ValueError, "min_support must be None or an integer >= 1"),
        (dict(min_support=2.5), TypeError, "min_support must be None or an integer >= 1"),
        (dict(counts=TABLES), ValueError, "give either y_true, y_pred and groups, or counts"),
        (dict(names=["a"]), ValueError, "names= goes with counts="),
    ],
)
def test_evaluate_slices_errors(kwargs: dict, exc: type, match: str) -> None:
    y, p, g = _predictions(n=60)
    with pytest.raises(exc, match=match):
        evaluate_slices(y, p, g, draws=1_000, **kwargs)


def test_evaluate_slices_counts_errors() -> None:
    with pytest.raises(TypeError, match="needs y_true, y_pred and groups"):
        evaluate_slices([0, 1], [0, 1])
    with pytest.raises(ValueError, match=r"one table per slice, shape \(S, M, M\); got shape"):
        evaluate_slices(counts=TABLES[0])
    with pytest.raises(ValueError, match="names must name each of the 3 slices once"):
        evaluate_slices(counts=TABLES, names=["a", "a", "b"])


# --- the gate --------------------------------------------------------------------------


def test_gate_slice_rows_and_joint_row_from_the_same_draws() -> None:
    res = gate(TABLES, [SliceFloor("accuracy", 0.78)], names=["eu", "us", "apac"], draws=20_000,
               max_draws=20_000, alpha=1.0, beta="aligned")  # fmt: skip
    items = [c.item for c in res.checks]
    assert items == ["slice eu", "slice us", "slice apac", "every slice"]
    each = exact_posterior(TABLES, "accuracy", alpha=1.0).sf(0.78)
    se = [math.sqrt(p * (1 - p) / 20_000) + 1e-4 for p in each]
    for c, p, s in zip(res.checks[:3], each, se, strict=True):
        assert abs(c.prob - p) < 4.5 * s
    joint = res.checks[-1]
    assert joint.prob <= min(c.prob for c in res.checks[:3])  # the same draws: never above
    expected = float(np.prod(each))
    assert abs(joint.prob - expected) < 4.5 * math.sqrt(expected * (1 - expected) / 20_000)
    assert joint.support == int(TABLES.sum())


def test_gate_joint_verdict_follows_the_judge() -> None:
    """Each slice passes on its own, the joint row does not: the gate is not a PASS."""
    tables = np.array([[[44, 6], [6, 44]]] * 4)  # accuracy 0.88 in each of 4 slices
    res = gate(tables, [SliceFloor("accuracy", 0.8)], names=list("abcd"), alpha=1.0,
               beta="aligned", prob=0.9)  # fmt: skip
    p = float(exact_posterior(tables[0], "accuracy", alpha=1.0).sf(0.8))
    assert 0.9 < p and p**4 < 0.9  # each slice alone would pass, all four together not
    assert [c.verdict for c in res.checks] == ["pass"] * 4 + ["inconclusive"]
    assert res.verdict == "inconclusive"


#: Binary tables of 100 documents, accuracy 0.75, 0.73 and 0.68: exact P(accuracy < 0.8)
#: under alpha=1, beta="aligned" of about 0.924, 0.971 and 0.9987 (asserted below).
UNSURE, LOWISH, LOW = [[37, 13], [12, 38]], [[36, 14], [13, 37]], [[34, 16], [16, 34]]
GOOD = [[47, 3], [3, 47]]


def _below(table: list[list[int]]) -> float:
    """Exact P(accuracy < 0.8) of one slice (the independent truth)."""
    return 1.0 - float(exact_posterior(table, "accuracy", alpha=1.0).sf(0.8))


def _slice_gate(tables: list[list[list[int]]], **kw):
    kw = dict(alpha=1.0, beta="aligned", prob=0.95, rng=3) | kw
    return gate(np.array(tables), [SliceFloor("accuracy", 0.8)], **kw)


def test_joint_row_does_not_fail_on_the_minimum_of_unsure_slices() -> None:
    """Ten slices, none shown below the floor, the smallest surely is: INCONCLUSIVE, not FAIL."""
    q = _below(UNSURE)
    assert 0.9 < q < 0.95  # no slice FAILs on its own, even without a multiplicity bar
    res = _slice_gate([UNSURE] * 10)
    assert [c.verdict for c in res.checks] == ["inconclusive"] * 11
    joint = res.checks[-1]
    # negative control: P(some slice < T) >= prob, the old joint FAIL condition, holds
    assert 1.0 - joint.prob >= 0.95 and 1.0 - (1.0 - q) ** 10 >= 0.95
    assert joint.reason == "FAIL needs a failing slice row; none failed"
    assert "short of its FAIL bar" in joint.text
    assert res.verdict == "inconclusive"


def test_a_slice_fails_at_the_bar_shared_by_the_slices() -> None:
    """The same slice FAILs alone (bar prob) and is INCONCLUSIVE among four (1 - 0.05/4)."""
    q = _below(LOWISH)
    assert 0.95 < q < 1.0 - 0.05 / 4
    alone = _slice_gate([LOWISH])
    assert [c.verdict for c in alone.checks] == ["fail", "fail"]
    assert alone.checks[0].reason == "" and alone.checks[1].reason == "failed: slice 0"
    res = _slice_gate([GOOD, GOOD, GOOD, LOWISH], names=list("abcd"))
    row, joint = res.checks[3], res.checks[4]
    assert abs((1.0 - row.prob) - q) < 4.5 * row.mc_error  # the slice's own posterior
    assert row.verdict == "inconclusive" and joint.verdict == "inconclusive"
    assert row.reason == "FAIL needs P(opposite) >= 0.9875"
    assert "P(opposite) = 0.97" in row.text and "short of its FAIL bar" in row.text
    assert res.verdict == "inconclusive"


def test_joint_row_fails_with_the_slice_that_fails() -> None:
    assert _below(LOW) > 1.0 - 0.05 / 4
    res = _slice_gate([GOOD, LOW, GOOD, GOOD], names=["eu", "us", "apac", "latam"])
    assert [c.verdict for c in res.checks] == ["pass", "fail", "pass", "pass", "fail"]
    assert res.checks[1].reason == "FAIL needs P(opposite) >= 0.9875"
    assert res.checks[-1].reason == "failed: slice us"
    assert res.verdict == "fail"
    # two slices below: both named; a skipped slice does not count in the bar (1 judged)
    two = _slice_gate([LOW, [[2, 0], [0, 1]], LOW, GOOD], names=list("abcd"))
    assert two.checks[-1].reason == "failed: slice a, slice c"
    skip = gate(np.array([LOWISH, [[2, 0], [0, 1]]]), [SliceFloor("accuracy", 0.8, min_support=10)],
                alpha=1.0, beta="aligned", rng=3)  # fmt: skip
    assert [c.verdict for c in skip.checks] == ["fail", "skipped", "fail"]  # 1 judged: bar 0.95


def test_noise_band_of_a_row_without_its_own_fail_bar() -> None:
    from f1posterior.gating._noise import noisy

    hits, n = np.array([50.0]), 1_000  # P = 0.05, on the FAIL bound 1 - 0.95
    assert noisy(hits, n, 0.95)[0] and noisy(hits, n, 0.95, np.array([0.95]))[0]
    assert not noisy(hits, n, 0.95, np.array([np.nan]))[0]  # the joint row: no FAIL bound
    assert noisy(np.array([10.0]), n, 0.95, np.array([0.99]))[0]  # a slice's bar: 1 - 0.99


def test_gate_groups_slices_the_predictions() -> None:
    """``gate(y_true=, y_pred=, groups=)`` is the gate of the slices' tables, named by value."""
    y, pred, groups = _predictions()
    checks = [SliceFloor("macro_f1", 0.6)]
    res = gate(y_true=y, y_pred=pred, groups=groups, checks=checks, draws=2_000)
    t = slice_tables(y, pred, groups)
    assert res == gate(t.counts, checks, names=t.names, labels=t.labels, draws=2_000)
    assert [c.item for c in res.checks] == ["slice apac", "slice eu", "slice us", "every slice"]
    assert [c.support for c in res.checks[:3]] == t.support.tolist()


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(counts=TABLES), r"groups= slices predictions .*; got counts"),
        (dict(y_true=[0, 1]), r"groups= slices predictions .*; got only one of y_true= and"),
        (dict(names=["a"]), r"names= does not go with it"),
        (dict(baseline_pred=[0, 1]), r"baseline_pred= does not go with it"),
        (dict(cluster=["u", "v"]), r"cluster= does not go with it"),
    ],
)
def test_gate_groups_errors(kw, match) -> None:
    base = dict(y_true=[0, 1], y_pred=[0, 1], groups=["a", "b"])
    if "counts" in kw:
        base = dict(groups=["a", "b"])
    elif "y_true" in kw:
        base = dict(groups=["a", "b"], y_true=[0, 1])
        kw = {}
    with pytest.raises(TypeError, match=match):
        gate(checks=[SliceFloor("accuracy", 0.5)], **(base | kw))
    with pytest.raises(ValueError, match="groups must give one slice per document"):
        gate(y_true=[0, 1], y_pred=[0, 1], groups=["a"], checks=[SliceFloor("accuracy", 0.5)])


def test_gate_min_support_skips_slices() -> None:
    tables = np.concatenate([TABLES, [[[2, 0], [0, 1]]]])
    res = gate(tables, [SliceFloor("accuracy", 0.7, min_support=10)], names=list("abcd"),
               draws=4_000)  # fmt: skip
    assert [c.verdict for c in res.checks] == ["pass", "pass", "pass", "skipped", "pass"]
    assert res.checks[3].reason == "3 documents < min_support 10"
    assert res.checks[-1].item == "every slice with >= 10 documents (3 of 4)"
    none = gate(tables, [SliceFloor("accuracy", 0.7, min_support=1_000)], draws=1_000)
    assert none.checks[-1].verdict == "skipped"
    assert none.checks[-1].reason == "every slice has fewer than 1000 documents"


def test_slice_floor_errors() -> None:
    with pytest.raises(ValueError, match="SliceFloor takes a single-number metric"):
        gate(TABLES, [SliceFloor("f1", 0.7)])
    with pytest.raises(ValueError, match=r"one confusion matrix per slice, shape \(S, M, M\)"):
        gate(TABLES[0], [SliceFloor("accuracy", 0.7)])
    with pytest.raises(ValueError, match="SliceFloor checks slices of a single-label gate"):
        gate_multilabel([[[5, 1], [1, 5]]], [SliceFloor("micro_f1", 0.7)])
    with pytest.raises(ValueError, match=r"SliceFloor\('accuracy'\).threshold must be a number"):
        SliceFloor("accuracy", 1.5)
    with pytest.raises(ValueError, match=r"SliceFloor\('accuracy'\).min_support must be None"):
        SliceFloor("accuracy", 0.5, min_support=0)
    assert gate(TABLES, [SliceFloor("accuracy", 0.5), Floor("accuracy", 0.5),
                         JointFloor("recall", 0.5)], draws=1_000).passed  # fmt: skip


def test_slice_names_are_escaped_in_every_output() -> None:
    names = ["a|b", "x\n# y", "<z>"]
    res = gate(TABLES, [SliceFloor("accuracy", 0.7)], names=names, draws=2_000)
    text = str(res)
    assert "slice x\\n# y" in text and "\n# y" not in text
    md = res.to_markdown()
    assert "slice a\\|b" in md and "slice x\\\\n\\# y" in md and "slice &lt;z&gt;" in md
    cases = ET.fromstring(res.to_junit_xml()).findall("testcase")
    assert [c.get("name") for c in cases] == [
        "accuracy [slice a|b] >= 0.7", "accuracy [slice x\\n# y] >= 0.7",
        "accuracy [slice <z>] >= 0.7", "accuracy [every slice] >= 0.7",
    ]  # fmt: skip
    assert [c["item"] for c in res.to_dict()["checks"]][:3] == [f"slice {n}" for n in names]
    ev = evaluate_slices(counts=TABLES, names=names, metrics="accuracy", draws=1_000, rng=0)
    assert "x\\n# y" in str(ev) and "\n# y" not in str(ev)
    assert "a\\|b" in ev.to_markdown() and "&lt;z&gt;" in ev.to_markdown()


# --- the command line ------------------------------------------------------------------


@pytest.fixture()
def sliced_csv(tmp_path: Path) -> Path:
    y, p, g = _predictions(seed=3, n=600)
    g[:4] = ["tiny|<b>"] * 4
    lines = ["region,y_true,y_pred"] + [f"{a},{b},{c}" for a, b, c in zip(g, y, p, strict=True)]
    f = tmp_path / "pred.csv"
    f.write_text("\n".join(lines) + "\n")
    return f


def test_cli_summarize_slice_col(sliced_csv: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["summarize", str(sliced_csv), "--slice-col", "region", "--metric", "accuracy"]
    assert main([*args, "--ref", "0.7", "--min-support", "20", "--draws", "2000"]) == 0
    out = capsys.readouterr().out
    assert "SKIPPED: 4 documents < min_support 20" in out and "P(every judged slice >= 0.7)" in out
    assert main([*args, "--format", "json", "--draws", "2000"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["slice"] for r in data["slices"]] == ["apac", "eu", "tiny|<b>", "us"]
    assert main([*args, "--format", "markdown", "--draws", "2000"]) == 0
    assert "| tiny\\|&lt;b&gt; | 4 |" in capsys.readouterr().out


def test_cli_gate_slice_col(
    sliced_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    xml = tmp_path / "j.xml"
    base = ["gate", str(sliced_csv), "--slice-col", "region", "--metric", "accuracy"]
    code = main([*base, "--min", "0.6", "--min-support", "20", "--junit-xml", str(xml)])
    assert code == 0, capsys.readouterr()
    out = capsys.readouterr().out
    assert "SKIPPED  accuracy [slice tiny|<b>] >= 0.6" in out
    assert "PASS  accuracy [every slice with >= 20 documents (3 of 4)] >= 0.6" in out
    assert len(ET.parse(xml).getroot().findall("testcase")) == 5
    assert main([*base, "--min", "0.95"]) == 1
    assert "FAIL  accuracy [every slice] >= 0.95" in capsys.readouterr().out


def test_cli_gate_slice_col_from_the_config(
    sliced_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``slice_col`` in the configuration file is ``--slice-col``; the flag overrides it."""
    cfg = tmp_path / "gate.toml"
    cfg.write_text(
        f'file = {json.dumps(str(sliced_csv))}\nslice_col = "region"\n'
        '[[check]]\nmetric = "accuracy"\nmin = 0.6\n'
    )
    code = main(["gate", "--config", str(cfg)])
    out = capsys.readouterr().out
    flag = ["gate", str(sliced_csv), "--slice-col", "region", "--metric", "accuracy"]
    assert main([*flag, "--min", "0.6"]) == code == 3  # the tiny slice: inconclusive

    def rows(text: str) -> list[str]:
        return [s for s in text.splitlines() if s.split(" ")[0] in ("PASS", "INCONCLUSIVE")]

    assert len(rows(out)) == 5 and rows(out) == rows(capsys.readouterr().out)
    assert main(["gate", "--config", str(cfg), "--slice-col", "nope"]) == 2
    assert "--slice-col: no column 'nope'" in capsys.readouterr().err
    cfg.write_text(cfg.read_text().replace('slice_col = "region"', "slice_col = 3"))
    assert main(["gate", "--config", str(cfg)]) == 2
    assert "slice_col" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "match"),
    [
        (["gate", "--slice-col", "nope", "--metric", "accuracy", "--min", "0.5"],
         "--slice-col: no column 'nope'"),
        (["gate", "--slice-col", "region", "--metric", "accuracy", "--baseline", "{f}"],
         "takes no --baseline"),
        (["summarize", "--slice-col", "region", "--metric", "f1"], "'f1' is per class"),
        (["summarize", "--slice-col", "region", "--format", "csv"], "--format table, json or"),
        (["summarize", "--min-support", "3"], "--min-support skips small slices; add --slice-col"),
    ],
)  # fmt: skip
def test_cli_slice_errors_exit_2_one_line(
    sliced_csv: Path, extra: list[str], match: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [a.replace("{f}", str(sliced_csv)) for a in extra]
    assert main([args[0], str(sliced_csv), *args[1:]]) == 2
    err = capsys.readouterr().err
    assert match in err and len(err.strip().splitlines()) == 1


# --- the worked example ----------------------------------------------------------------


def test_docs_slices_example_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    blocks = re.findall(r"^```(\w+)\n(.*?)^```", DOCS.read_text(encoding="utf-8"), re.S | re.M)
    assert [k for k, _ in blocks].count("python") >= 2 and any(k == "sh" for k, _ in blocks)
    namespace: dict = {"__name__": "slices_doc"}
    for kind, code in blocks:
        if kind == "python":
            exec(compile(code, str(DOCS), "exec"), namespace)
        elif kind == "sh":
            for line in code.splitlines():
                if line.startswith("f1posterior "):
                    assert main(shlex.split(line)[1:]) in (0, 3), line
    out = capsys.readouterr().out
    assert "every slice" in out and "SKIPPED" in out
