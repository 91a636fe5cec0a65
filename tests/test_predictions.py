"""confusion_matrix and multilabel_confusion_matrix against scikit-learn."""

from __future__ import annotations

import enum

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

from f1posterior._core.confusion import ConfusionMatrix
from f1posterior.metrics._confusion import confusion_matrix, multilabel_confusion_matrix

# --- confusion_matrix -------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    data=st.data(),
    n=st.integers(1, 40),
    kind=st.sampled_from(["int", "str", "float"]),
)
def test_confusion_matrix_equals_sklearn(data, n, kind):
    pool = {"int": [0, 1, 2, 5, -3], "str": ["a", "b", "cc", "z"], "float": [0.0, 1.0, 3.0]}[kind]
    y_true = data.draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
    y_pred = data.draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
    res = confusion_matrix(y_true, y_pred)
    expected_labels = sorted(set(y_true) | set(y_pred))
    assert res.labels == expected_labels
    np.testing.assert_array_equal(res.counts, skm.confusion_matrix(y_true, y_pred))
    assert res.counts.dtype == np.int64
    assert int(res.counts.sum()) == n


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.integers(1, 30))
def test_confusion_matrix_labels_order_and_absent_labels_equal_sklearn(data, n):
    pool = ["a", "b", "c", "d", "e"]
    y_true = data.draw(st.lists(st.sampled_from(pool[:3]), min_size=n, max_size=n))
    y_pred = data.draw(st.lists(st.sampled_from(pool[1:4]), min_size=n, max_size=n))
    labels = data.draw(st.permutations(pool))
    labels = labels[: data.draw(st.integers(1, len(pool)))]
    if not set(labels) & set(y_true):  # scikit-learn and we both reject this case
        with pytest.raises(ValueError, match="at least one label that occurs in y_true"):
            confusion_matrix(y_true, y_pred, labels=labels)
        return
    res = confusion_matrix(y_true, y_pred, labels=labels)
    assert res.labels == list(labels)
    np.testing.assert_array_equal(res.counts, skm.confusion_matrix(y_true, y_pred, labels=labels))


def test_confusion_matrix_numpy_inputs_and_unpacking():
    rng = np.random.default_rng(0)
    y_true = rng.integers(0, 6, size=500)
    y_pred = rng.integers(1, 8, size=500)
    counts, labels = confusion_matrix(y_true, y_pred)
    assert labels == list(range(8))
    assert all(type(v) is int for v in labels)
    np.testing.assert_array_equal(counts, skm.confusion_matrix(y_true, y_pred))
    np.testing.assert_array_equal(
        confusion_matrix(y_true, y_pred, labels=np.array([7, 0, 3])).counts,
        skm.confusion_matrix(y_true, y_pred, labels=[7, 0, 3]),
    )
    s = np.array(["x", "y", "y"])
    assert confusion_matrix(s, s).labels == ["x", "y"]


def test_confusion_matrix_bool_and_mixed_int_float_labels_equal_sklearn():
    t, p = [True, False, True, True], [True, True, False, True]
    np.testing.assert_array_equal(confusion_matrix(t, p).counts, skm.confusion_matrix(t, p))
    t2, p2 = [1, 2, 2, 3], [1.0, 2.0, 3.0, 3.0]
    np.testing.assert_array_equal(confusion_matrix(t2, p2).counts, skm.confusion_matrix(t2, p2))


class Colour(enum.Enum):
    RED = 1
    BLUE = 2


def test_confusion_matrix_any_hashable_labels():
    t = [(1, "a"), (2, "b"), (1, "a")]
    p = [(1, "a"), (1, "a"), (2, "b")]
    res = confusion_matrix(t, p)
    assert res.labels == [(1, "a"), (2, "b")]
    np.testing.assert_array_equal(res.counts, [[1, 1], [1, 0]])
    # tuples of different lengths
    res = confusion_matrix([(1,), (1, 2)], [(1, 2), (1, 2)])
    assert res.labels == [(1,), (1, 2)]
    np.testing.assert_array_equal(res.counts, [[0, 1], [0, 1]])
    # unorderable labels need labels= for their order
    c = [Colour.RED, Colour.BLUE, Colour.BLUE]
    res = confusion_matrix(c, [Colour.BLUE] * 3, labels=[Colour.BLUE, Colour.RED])
    np.testing.assert_array_equal(res.counts, [[2, 0], [1, 0]])
    with pytest.raises(TypeError, match="labels cannot be sorted.*pass labels="):
        confusion_matrix(c, c)


def test_confusion_matrix_is_a_frozen_dataclass():
    res = confusion_matrix([0, 1], [0, 1])
    assert isinstance(res, ConfusionMatrix)
    with pytest.raises(AttributeError):
        res.labels = []  # type: ignore[misc]


@pytest.mark.parametrize(
    ("y_true", "y_pred", "labels", "exc", "match"),
    [
        ([1, 2], [1], None, ValueError, r"one label per document each; got 2 and 1"),
        ([], [], None, ValueError, r"at least one document; got 0"),
        ([1, "a"], [1, 1], None, TypeError, r"y_true must hold labels of one type.*number,str"),
        ([1, 2], ["1", "2"], None, TypeError, r"same type; got number labels in y_true and str"),
        ([1.0, np.nan], [1.0, 1.0], None, ValueError, r"y_true must not contain NaN"),
        ([1.0, 2.0], [1.0, np.inf], None, ValueError, r"y_pred must not contain NaN or infinite"),
        ([[1, 2]], [[1, 2]], None, ValueError, r"1-D sequence of labels.*shape \(1, 2\)"),
        ("abc", "abc", None, TypeError, r"y_true must be a 1-D sequence of labels; got 'abc'"),
        (5, 5, None, TypeError, r"y_true must be a 1-D sequence of labels; got 5"),
        ([1, 2], [1, 2], [], ValueError, r"labels must contain at least one label"),
        ([1, 2], [1, 2], [1, 1, 2], ValueError, r"labels must not repeat a label; got \[1, 1, 2\]"),
        ([1, 2], [1, 2], [3], ValueError, r"at least one label that occurs in y_true; got \[3\]"),
        ([1, 2], [1, 2], "ab", TypeError, r"labels must be a sequence of labels or None"),
        ([1, 2], [1, 2], 3, TypeError, r"labels must be a sequence of labels or None; got 3"),
        ([[1], [2]], [[1], [2]], None, ValueError, r"1-D sequence of labels.*shape \(2, 1\)"),
    ],
)
def test_confusion_matrix_bad_input(y_true, y_pred, labels, exc, match):
    with pytest.raises(exc, match=match):
        confusion_matrix(y_true, y_pred, labels=labels)


def test_confusion_matrix_unhashable_labels():
    with pytest.raises(TypeError, match="hashable"):
        confusion_matrix([{1}, {2}], [{1}, {2}], labels=[1, 2])
    with pytest.raises(TypeError, match="labels must be hashable"):
        confusion_matrix([1, 2], [1, 2], labels=[[1], [2]])


# --- multilabel_confusion_matrix -------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    d=st.integers(1, 30),
    n_labels=st.integers(2, 8),
    seed=st.integers(0, 2**32 - 1),
    density=st.floats(0.0, 1.0),
)
def test_multilabel_confusion_matrix_equals_sklearn(d, n_labels, seed, density):
    rng = np.random.default_rng(seed)
    yt = (rng.random((d, n_labels)) < density).astype(int)
    yp = (rng.random((d, n_labels)) < density).astype(int)
    got = multilabel_confusion_matrix(yt, yp)
    assert got.shape == (n_labels, 2, 2) and got.dtype == np.int64
    np.testing.assert_array_equal(got, skm.multilabel_confusion_matrix(yt, yp))
    # absent labels (all-zero columns) included, bool and float input give the same
    np.testing.assert_array_equal(multilabel_confusion_matrix(yt == 1, yp.astype(float)), got)


def test_multilabel_single_label_is_one_table():
    t = np.array([[1], [0], [1]])
    p = np.array([[1], [1], [0]])
    np.testing.assert_array_equal(multilabel_confusion_matrix(t, p), [[[0, 1], [1, 1]]])


@pytest.mark.parametrize(
    ("yt", "yp", "exc", "match"),
    [
        ([[0, 2]], [[0, 1]], ValueError, r"y_true must hold only 0 and 1; got 2 at"),
        (
            [[0, 1]],
            [[0.5, 1]],
            ValueError,
            r"y_pred must hold only 0 and 1; got 0\.5 at index \(0, 0\)",
        ),
        ([[0, np.nan]], [[0, 1]], ValueError, r"y_true must hold only 0 and 1; got nan"),
        ([[0, -1]], [[0, 1]], ValueError, r"y_true must hold only 0 and 1; got -1"),
        ([0, 1], [0, 1], ValueError, r"y_true must be a non-empty 0/1.*got shape \(2,\)"),
        (np.zeros((0, 3)), np.zeros((0, 3)), ValueError, r"non-empty.*got shape \(0, 3\)"),
        ([[0, 1]], [[0, 1, 1]], ValueError, r"same shape.*got \(1, 2\) and \(1, 3\)"),
        (
            [["a", "b"]],
            [[0, 1]],
            TypeError,
            r"y_true must hold 0/1 indicators as bools, integers or floats; got dtype <U1",
        ),
        ("01", [[0, 1]], TypeError, r"y_true must be an array of 0/1 indicators; got '01'"),
        ([[0, 1], [1]], [[0, 1]], ValueError, r"y_true must be a rectangular"),
    ],
)
def test_multilabel_confusion_matrix_bad_input(yt, yp, exc, match):
    with pytest.raises(exc, match=match):
        multilabel_confusion_matrix(yt, yp)
