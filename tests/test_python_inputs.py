"""Python-side inputs: pandas DataFrames and ConfusionMatrix as counts, names=, wide frames.

Truths are independent of f1posterior: scikit-learn's metrics and confusion
matrices on the raw labels, and the CSV header of the command line's writer.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import accuracy_score, f1_score, recall_score
from sklearn.metrics import confusion_matrix as sk_confusion_matrix

from f1posterior import (
    Floor,
    NonInferiority,
    compare,
    confusion_matrix,
    evaluate,
    gate,
    rank_classifiers,
    sample_posterior,
)
from f1posterior._core.labelled import labelled_counts
from f1posterior._core.validation import as_counts, check_counts
from f1posterior.io._writers import RowWriter
from f1posterior.posterior._table import (
    evaluation_rows,
    format_markdown,
    format_table,
    rows,
    run_metadata,
)

# The case: predictions a categorical whose class order differs from the truth's.
Y_TRUE = ["a", "a", "b", "b", "c", "b", "c"]
Y_PRED = ["a", "a", "c", "c", "b", "b", "b"]


def misaligned_crosstab() -> pd.DataFrame:
    return pd.crosstab(
        pd.Series(Y_TRUE, name="true"), pd.Categorical(Y_PRED, categories=["a", "c", "b"])
    )


# --------------------------------------------------------------------- DataFrames


def test_misaligned_crosstab_reads_the_true_accuracy():
    df = misaligned_crosstab()
    naive = df.to_numpy()
    assert np.trace(naive) / naive.sum() == pytest.approx(6 / 7)  # 0.857: the old reading
    truth = accuracy_score(Y_TRUE, Y_PRED)
    assert truth == pytest.approx(3 / 7)  # 0.429
    res = evaluate(df, metrics=["accuracy", "macro_f1"], draws=2000, rng=0)
    assert res["accuracy"].score == pytest.approx(truth, abs=1e-12)
    assert res["macro_f1"].score == pytest.approx(f1_score(Y_TRUE, Y_PRED, average="macro"))
    assert res.labels == ["a", "b", "c"]
    table, labels = labelled_counts(df)
    np.testing.assert_array_equal(table, sk_confusion_matrix(Y_TRUE, Y_PRED, labels=labels))


def test_dataframe_equals_the_aligned_array_bit_for_bit():
    df = misaligned_crosstab()
    aligned = sk_confusion_matrix(Y_TRUE, Y_PRED, labels=["a", "b", "c"])
    kw = dict(metrics=["micro_f1", "f1"], draws=3000, rng=7)
    a, b = evaluate(df, **kw), evaluate(aligned, labels=["a", "b", "c"], **kw)
    for m in a:
        np.testing.assert_array_equal(a[m].mean, b[m].mean)
        np.testing.assert_array_equal(a[m].hdi, b[m].hdi)
    assert a.labels == b.labels


def test_labels_reorder_a_dataframe():
    df = misaligned_crosstab()
    res = evaluate(df, metrics="recall", labels=["c", "a", "b"], draws=1000, rng=0)
    assert res.labels == ["c", "a", "b"]
    want = recall_score(Y_TRUE, Y_PRED, labels=["c", "a", "b"], average=None)
    np.testing.assert_allclose(res["recall"].score, want)


@pytest.mark.parametrize(
    "y_true, y_pred",
    [
        (["a", "b", "c", "c", "b", "a"], ["b", "b", "c", "d", "d", "b"]),  # a never predicted
        (["x", "y", "y", "x"], ["x", "y", "z", "z"]),  # z predicted, never true: zero row
        ([0, 1, 2, 2, 1], [0, 1, 1, 1, 0]),  # 2 never predicted: zero column
    ],
)
def test_classes_on_one_side_get_a_zero_row_or_column(y_true, y_pred):
    df = pd.crosstab(pd.Series(y_true), pd.Series(y_pred))
    assert df.shape[0] != df.shape[1] or list(df.index) != list(df.columns)
    res = evaluate(df, metrics=["accuracy", "macro_f1"], draws=1000, rng=0)
    assert res["accuracy"].score == pytest.approx(accuracy_score(y_true, y_pred))
    assert res["macro_f1"].score == pytest.approx(
        f1_score(y_true, y_pred, average="macro", zero_division=0)
    )
    table, labels = labelled_counts(df)
    np.testing.assert_array_equal(table, sk_confusion_matrix(y_true, y_pred, labels=labels))


def test_dataframe_errors():
    positional = pd.DataFrame([[5, 1], [2, 7]], index=["cat", "dog"])  # columns 0, 1
    with pytest.raises(ValueError, match=r"index labels \['cat', 'dog'\].*column labels \[0, 1\]"):
        evaluate(positional)
    swapped_types = pd.DataFrame([[5, 1], [2, 7]], index=[1, 2], columns=["1", "2"])
    with pytest.raises(ValueError, match="labels of different types"):
        evaluate(swapped_types)
    disjoint = pd.DataFrame([[5, 1], [2, 7]], index=["a", "b"], columns=["c", "d"])
    with pytest.raises(ValueError, match="no label in common"):
        evaluate(disjoint)
    with pytest.raises(ValueError, match="must not repeat a label; got 'a' twice"):
        evaluate(pd.DataFrame([[5, 1], [2, 7]], index=["a", "a"], columns=["a", "b"]))
    multi = pd.DataFrame(
        [[5, 1], [2, 7]], index=pd.MultiIndex.from_tuples([("a", 1), ("b", 2)]), columns=["a", "b"]
    )
    with pytest.raises(ValueError, match="got a MultiIndex on its index"):
        evaluate(multi)
    margins = pd.crosstab(pd.Series(Y_TRUE), pd.Series(Y_PRED), margins=True)
    with pytest.raises(ValueError, match=r"margins=True\)\): drop the margins"):
        evaluate(margins)
    with pytest.raises(TypeError, match="counts must hold numbers, not booleans"):
        evaluate(pd.DataFrame([[True, False], [False, True]], index=[0, 1], columns=[0, 1]))
    with pytest.raises(ValueError, match=r"labels must list the classes of counts.*\['z'\] not in"):
        evaluate(misaligned_crosstab(), labels=["a", "b", "z"])
    with pytest.raises(ValueError, match=r"counts's \['c'\] missing"):
        evaluate(misaligned_crosstab(), labels=["a", "b"])
    with pytest.raises(TypeError, match="labels must be a sequence of class labels; got 'abc'"):
        evaluate(misaligned_crosstab(), labels="abc")
    with pytest.raises(ValueError, match=r"labels must not repeat a label; got 'a' twice"):
        evaluate(misaligned_crosstab(), labels=["a", "a", "b"])


def test_list_of_dataframes_is_an_aligned_batch():
    y2_pred = ["a", "b", "b", "b", "c", "b", "a"]
    d1 = misaligned_crosstab()
    d2 = pd.crosstab(pd.Series(Y_TRUE), pd.Categorical(y2_pred, categories=["c", "b", "a"]))
    res = evaluate([d1, d2], metrics="accuracy", draws=1000, rng=0, names=["m1", "m2"])
    np.testing.assert_allclose(
        res["accuracy"].score, [accuracy_score(Y_TRUE, Y_PRED), accuracy_score(Y_TRUE, y2_pred)]
    )
    with pytest.raises(TypeError, match="got a mix: item 1 is"):
        evaluate([d1, np.eye(3)])
    other = pd.DataFrame(np.eye(3) + 1, index=list("abd"), columns=list("abd"))
    with pytest.raises(ValueError, match=r"the classes of counts\[0\] must list the classes"):
        evaluate([d1, other])
    rk = rank_classifiers([d1, d2], metric="accuracy", draws=2000, rng=0)
    assert rk.p_best.shape == (2,)


# ----------------------------------------------------------------- ConfusionMatrix


def test_confusion_matrix_is_accepted_everywhere_counts_are():
    cm = confusion_matrix(Y_TRUE, Y_PRED)
    kw = dict(metrics=["accuracy", "f1"], draws=2000, rng=3)
    res = evaluate(cm, **kw)
    same = evaluate(cm.counts, labels=cm.labels, **kw)
    assert res.labels == ["a", "b", "c"]
    np.testing.assert_array_equal(res["f1"].mean, same["f1"].mean)
    assert res["accuracy"].score == pytest.approx(accuracy_score(Y_TRUE, Y_PRED))
    np.testing.assert_array_equal(
        sample_posterior(cm, draws=5, rng=1), sample_posterior(cm.counts, draws=5, rng=1)
    )
    np.testing.assert_array_equal(check_counts(cm), cm.counts.astype(float))
    g = gate(cm, [Floor("recall", 0.2)], draws=2000, rng=0)
    assert any("class a" in c.text for c in g.checks)
    c = compare(cm, misaligned_crosstab(), metric="accuracy", draws=2000, rng=0)
    assert c.difference.score == pytest.approx(0.0)  # the same table, once aligned


def test_compare_and_gate_match_the_second_table_by_label():
    a = pd.DataFrame([[40, 10], [5, 45]], index=["neg", "pos"], columns=["neg", "pos"])
    b = pd.DataFrame([[8, 42], [30, 20]], index=["pos", "neg"], columns=["neg", "pos"])
    b_aligned = np.array([[30, 20], [8, 42]])  # rows neg, pos
    kw = dict(metric="macro_f1", draws=2000, rng=1)
    np.testing.assert_array_equal(
        compare(a, b, **kw).draws, compare(a.to_numpy(), b_aligned, **kw).draws
    )
    g1 = gate(a, [Floor("f1", 0.5), NonInferiority("micro_f1")], baseline=b, draws=2000, rng=0)
    g2 = gate(a.to_numpy(), [Floor("f1", 0.5), NonInferiority("micro_f1")], baseline=b_aligned, labels=["neg", "pos"], draws=2000, rng=0)  # fmt: skip
    assert [c.text for c in g1.checks] == [c.text for c in g2.checks]


def test_confusion_matrix_errors():
    cm = confusion_matrix(Y_TRUE, Y_PRED)
    with pytest.raises(ValueError, match=r"labels must list the classes of counts"):
        evaluate(cm, labels=["a", "b", "x"])
    c, lab = as_counts(cm, labels=["c", "b", "a"])
    np.testing.assert_array_equal(c, cm.counts[::-1, ::-1])
    assert lab == ["c", "b", "a"]
    broken = type(cm)(counts=np.ones((3, 3)), labels=["a", "b"])
    with pytest.raises(ValueError, match=r"an \(M, M\) table for its M labels; got shape \(3, 3\)"):
        evaluate(broken)


# ----------------------------------------------------------------------- names=


def test_names_are_stored_and_shown():
    stack = np.array([[[8, 2], [1, 9]], [[5, 5], [4, 6]]])
    res = evaluate(stack, metrics="micro_f1", draws=1000, rng=0, names=["model|A", "B"])
    assert res.names == ["model|A", "B"]
    assert [r["item"] for r in rows(res)] == ["model|A", "B"]
    assert "micro_f1 [model|A]" in format_table(res)
    assert "micro_f1 [model\\|A]" in format_markdown(res)
    long = res.to_dataframe()
    assert long["matrix"].tolist() == ["model|A", "B"]
    assert res.to_dict()["names"] == ["model|A", "B"]


@pytest.mark.parametrize(
    "counts, names, err, match",
    [
        (np.ones((2, 2, 2)), ["a"], ValueError, r"one name per matrix \(2\); got 1 names"),
        (np.ones((2, 2, 2)), ["a", "a"], ValueError, "names must be unique; got 'a' twice"),
        (np.ones((2, 2, 2)), ["a", 1], TypeError, "names must be strings; got 1"),
        (np.ones((2, 2, 2)), "ab", TypeError, "names must be a sequence of strings; got 'ab'"),
        (np.ones((2, 2)), ["a"], ValueError, r"1-D batch .*got counts of batch shape \(\)"),
        (np.ones((1, 2, 2, 2)), ["a"], ValueError, r"batch shape \(1, 2\)"),
    ],
)
def test_names_errors(counts, names, err, match):
    with pytest.raises(err, match=match):
        evaluate(counts, names=names, draws=10)


# -------------------------------------------------------------------- wide frames


def _csv(res, names):
    out = io.StringIO()
    w = RowWriter(out, "csv", meta=run_metadata(res))
    w.write(*evaluation_rows(res, names))
    w.close()
    text = io.StringIO(out.getvalue())  # round_trip: pandas < 3 parses floats inexactly by default
    return pd.read_csv(text, dtype={"name": str}, comment="#", float_precision="round_trip")


def test_wide_frame_has_the_cli_csv_columns_and_values():
    stack = np.array([[[8, 2, 1], [1, 9, 0], [0, 2, 7]], [[5, 5, 0], [4, 6, 1], [1, 1, 9]]])
    res = evaluate(stack, metrics=["micro_f1", "recall"], labels=["x", "y", "z"], ref=0.5,
                   names=["first", "second"], draws=1500, rng=2)  # fmt: skip
    wide = res.to_dataframe(form="wide")
    csv = _csv(res, ["first", "second"])
    assert list(wide.columns) == list(csv.columns)
    assert "recall_y_p_above" in wide.columns and "micro_f1_hdi_low" in wide.columns
    pd.testing.assert_frame_equal(wide, csv, check_exact=True)
    np.testing.assert_array_equal(wide["recall_z_mean"], res["recall"].mean[:, 2])
    np.testing.assert_array_equal(wide["micro_f1_hdi_high"], res["micro_f1"].hdi[:, 1])


def test_wide_frame_of_one_matrix_and_of_a_2d_batch():
    one = evaluate([[8, 2], [1, 9]], metrics="accuracy", draws=1000, rng=0)
    wide = one.to_dataframe(form="wide")
    assert wide.shape == (1, 7) and wide.loc[0, "accuracy_score"] == 0.85
    grid = evaluate(np.ones((2, 3, 2, 2)) * [[5, 1], [2, 6]], metrics="accuracy", draws=500, rng=0)
    wide = grid.to_dataframe(form="wide")
    assert list(wide.columns[:2]) == ["matrix_0", "matrix_1"] and len(wide) == 6
    assert wide[["matrix_0", "matrix_1"]].values.tolist()[-1] == [1, 2]
    np.testing.assert_array_equal(wide["accuracy_mean"], grid["accuracy"].mean.reshape(-1))
    with pytest.raises(ValueError, match="form must be one of 'long', 'wide'; got 'tall'"):
        grid.to_dataframe(form="tall")
