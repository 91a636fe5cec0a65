"""Metric functions against scikit-learn's point values on the same predictions."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

from f1posterior import (
    accuracy,
    f1,
    fbeta,
    macro_f1_star,
    precision,
    recall,
)
from f1posterior.metrics._divide import UndefinedMetricWarning
from f1posterior.metrics._registry import METRICS


def predictions_from_table(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Expand a count table into (y_true, y_pred) label vectors."""
    m = table.shape[0]
    t, p = np.meshgrid(np.arange(m), np.arange(m), indexing="ij")
    reps = table.astype(int).ravel()
    return np.repeat(t.ravel(), reps), np.repeat(p.ravel(), reps)


tables = (
    st.integers(2, 5)
    .flatmap(
        lambda m: st.lists(st.integers(0, 6), min_size=m * m, max_size=m * m).map(
            lambda v: np.array(v, dtype=float).reshape(m, m)
        )
    )
    .filter(lambda t: t.sum() > 0)
)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    table=tables,
    average=st.sampled_from(["micro", "macro", "weighted", None]),
    zero_division=st.sampled_from([0.0, 1.0, np.nan]),
    beta=st.sampled_from([0.5, 1.0, 2.0]),
)
def test_against_sklearn(table, average, zero_division, beta):
    y_true, y_pred = predictions_from_table(table)
    labels = list(range(table.shape[0]))
    kw = {"average": average, "labels": labels, "zero_division": zero_division}
    np.testing.assert_allclose(
        f1(table, average=average, zero_division=zero_division),
        skm.f1_score(y_true, y_pred, **kw),
        rtol=1e-12,
        equal_nan=True,
    )
    np.testing.assert_allclose(
        fbeta(table, beta=beta, average=average, zero_division=zero_division),
        skm.fbeta_score(y_true, y_pred, beta=beta, **kw),
        rtol=1e-12,
        equal_nan=True,
    )
    np.testing.assert_allclose(
        precision(table, average=average, zero_division=zero_division),
        skm.precision_score(y_true, y_pred, **kw),
        rtol=1e-12,
        equal_nan=True,
    )
    np.testing.assert_allclose(
        recall(table, average=average, zero_division=zero_division),
        skm.recall_score(y_true, y_pred, **kw),
        rtol=1e-12,
        equal_nan=True,
    )
    assert accuracy(table) == pytest.approx(skm.accuracy_score(y_true, y_pred))


@settings(max_examples=30, deadline=None, derandomize=True)
@given(table=tables, data=st.data())
def test_labels_subset_against_sklearn(table, data):
    m = table.shape[0]
    labels = data.draw(
        st.permutations(range(m)).flatmap(lambda p: st.integers(1, m).map(lambda k: list(p[:k])))
    )
    y_true, y_pred = predictions_from_table(table)
    for average in ("micro", "macro", "weighted", None):
        ours = f1(table, average=average, labels=labels, zero_division=0.0)
        theirs = skm.f1_score(y_true, y_pred, average=average, labels=labels, zero_division=0.0)
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


@pytest.mark.parametrize("pos_label", [0, 1])
def test_binary_against_sklearn(pos_label):
    table = np.array([[50, 7], [12, 31]])
    y_true, y_pred = predictions_from_table(table)
    for ours, theirs in [
        (f1, skm.f1_score),
        (precision, skm.precision_score),
        (recall, skm.recall_score),
    ]:
        assert float(ours(table, average="binary", pos_label=pos_label)) == pytest.approx(
            theirs(y_true, y_pred, average="binary", pos_label=pos_label), rel=1e-12
        )


def test_zero_division_warn_matches_sklearn_value_and_warns():
    table = np.array([[3, 0, 0], [2, 0, 0], [0, 0, 0]])
    y_true, y_pred = predictions_from_table(table)
    with pytest.warns(UndefinedMetricWarning, match="ill-defined"):
        ours = f1(table, average=None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = skm.f1_score(y_true, y_pred, average=None, labels=[0, 1, 2])
    np.testing.assert_allclose(ours, theirs)


def test_micro_f1_equals_accuracy_on_probabilities():
    rng = np.random.default_rng(3)
    p = rng.dirichlet(np.ones(16), size=(7, 3)).reshape(7, 3, 4, 4)
    np.testing.assert_allclose(f1(p, average="micro"), accuracy(p), rtol=1e-12)


def test_scale_free():
    """N cancels: a table and its normalised version give the same scores."""
    table = np.array([[145, 1, 2], [5, 256, 22], [5, 24, 234.0]])
    for fn in METRICS.values():
        np.testing.assert_allclose(fn(table), fn(table / table.sum()), rtol=1e-12)


def test_macro_f1_star_is_harmonic_mean_of_macro_p_and_r():
    table = np.array([[10, 3, 1], [2, 8, 4], [0, 5, 20]])
    p = precision(table, average="macro")
    r = recall(table, average="macro")
    assert float(macro_f1_star(table)) == pytest.approx(2 * p * r / (p + r))
    assert float(macro_f1_star(table)) != pytest.approx(float(f1(table)))


def test_batch_shapes():
    rng = np.random.default_rng(0)
    for batch in [(), (3,), (2, 4)]:
        t = rng.integers(1, 9, size=(*batch, 4, 4)).astype(float)
        assert f1(t, average="macro").shape == batch
        assert f1(t, average=None).shape == (*batch, 4)
        assert f1(t, average=None, labels=[2, 0]).shape == (*batch, 2)
        flat = t.reshape(-1, 4, 4)
        expected = [float(f1(x, average="weighted")) for x in flat]
        np.testing.assert_allclose(f1(t, average="weighted").ravel(), expected)


# --- errors: one pytest.raises(match=) per message -------------------------------


def test_error_unknown_average():
    with pytest.raises(ValueError, match=r"average must be one of .*'micro'.*got 'samples'"):
        f1([[1, 0], [0, 1]], average="samples")


def test_error_binary_needs_2x2():
    with pytest.raises(ValueError, match=r'average="binary" needs a 2 x 2 table; got M = 3'):
        f1(np.eye(3), average="binary")


def test_error_binary_pos_label():
    with pytest.raises(ValueError, match=r"pos_label must be 0 or 1 .* got 2"):
        f1(np.eye(2), average="binary", pos_label=2)


def test_error_binary_with_labels():
    with pytest.raises(ValueError, match=r'labels must be None with average="binary"'):
        f1(np.eye(2), average="binary", labels=[0])


def test_error_labels_out_of_range():
    with pytest.raises(ValueError, match=r"labels must be class indices in \[0, 3\); got \[0, 3\]"):
        f1(np.eye(3), labels=[0, 3])


def test_error_labels_repeated():
    with pytest.raises(ValueError, match=r"labels must not repeat a class; got \[1, 1\]"):
        f1(np.eye(3), labels=[1, 1])


def test_error_labels_not_integers():
    with pytest.raises(ValueError, match=r"labels must be a non-empty 1-D sequence of class"):
        f1(np.eye(3), labels=["a"])


def test_error_zero_division():
    with pytest.raises(ValueError, match=r'zero_division must be "warn", 0, 1 or numpy.nan; got 2'):
        f1(np.eye(3), zero_division=2)


def test_error_fbeta_beta():
    with pytest.raises(ValueError, match=r"beta must be a finite number > 0; got -1"):
        fbeta(np.eye(3), beta=-1)


def test_error_table_shape():
    with pytest.raises(
        ValueError, match=r"table must have shape \(\.\.\., M, M\).*got shape \(2, 3\)"
    ):
        f1(np.ones((2, 3)))


def test_error_table_negative():
    with pytest.raises(ValueError, match=r"table must be non-negative; got minimum -1"):
        f1([[1, -1], [0, 1]])


def test_error_table_nan():
    with pytest.raises(ValueError, match=r"table must be finite"):
        f1([[1, np.nan], [0, 1]])


def test_error_table_strings():
    with pytest.raises(TypeError, match=r"table must hold integers or floats; got dtype <U1"):
        f1([["a", "b"], ["c", "d"]])
