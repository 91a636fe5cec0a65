"""Regression tests for the bugs, validation gaps and scikit-learn differences.

Each test fails on the code before its fix: the caller's SeedSequence was spawned from,
``==``/``hash`` on results raised, bad inputs were accepted or misreported, and weighted
averages differed from scikit-learn (the independent truth for the metric tests).
"""

from __future__ import annotations

import dataclasses
import json
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning as SkUndefinedMetricWarning
from sklearn.metrics import confusion_matrix as sk_confusion_matrix
from sklearn.metrics import precision_recall_fscore_support

import f1posterior as fp
from f1posterior import Floor, NonInferiority, gate_multilabel
from f1posterior._core.results import value_hash_key, values_equal
from f1posterior._core.streams import block_stream, child_seed
from f1posterior.analysis._comparison import compare
from f1posterior.analysis._delta import delta_interval
from f1posterior.analysis._frequentist import FrequentistInterval, bootstrap_interval
from f1posterior.analysis._ranking import rank_classifiers
from f1posterior.analysis._sensitivity import prior_sensitivity
from f1posterior.analysis.thresholds import best_threshold
from f1posterior.gating._gate import gate
from f1posterior.gating._planning import plan
from f1posterior.io._data import figure3
from f1posterior.metrics._divide import UndefinedMetricWarning
from f1posterior.metrics._multiclass import (
    f1,
    fbeta,
    precision,
    recall,
)
from f1posterior.posterior._evaluation import evaluate

C = figure3()
BASE = C + np.diag([3, -1, 0, 0, 0])  # a baseline one class better, one worse
ML_TABLES = np.array([[[50, 3], [7, 40]], [[80, 2], [4, 14]], [[60, 20], [10, 10]]], dtype=float)
ML_BASE = ML_TABLES + np.array([[0, 0], [2, -2]])


# --- 1. the caller's SeedSequence is never consumed -------------------------------------


def _gate_baseline(rng):
    return gate(C, [NonInferiority("macro_f1", 0.01)], baseline=BASE, rng=rng)


def test_gate_gives_one_verdict_per_seed_whatever_the_callers_sequence_did():
    seq = np.random.SeedSequence(42)
    first = _gate_baseline(seq)
    assert seq.n_children_spawned == 0  # gate did not spawn from it
    seq.spawn(2)  # the caller uses its sequence for something else
    again = _gate_baseline(seq)
    from_int = _gate_baseline(42)
    assert first.seed == again.seed == 42
    assert [c.prob for c in first.checks] == [c.prob for c in again.checks]
    assert first == again == from_int


def test_multilabel_gate_with_a_baseline_does_not_spawn_from_the_callers_sequence():
    seq = np.random.SeedSequence(7)
    kw = dict(checks=[NonInferiority("macro_f1", 0.02)], baseline=ML_BASE)
    first = gate_multilabel(ML_TABLES, rng=seq, **kw)
    seq.spawn(3)
    again = gate_multilabel(ML_TABLES, rng=seq, **kw)
    assert first == again == gate_multilabel(ML_TABLES, rng=7, **kw)


def test_plan_compare_and_bootstrap_leave_the_callers_sequence_untouched():
    seq = np.random.SeedSequence(5)
    table = [[45, 5], [8, 42]]
    p1 = plan(table, metric="recall", threshold=0.8, simulations=50, draws=200, rng=seq)
    c1 = compare(C, BASE, metric="macro_f1", draws=2_000, rng=seq)
    b1 = bootstrap_interval(C, metric="macro_f1", resamples=200, rng=seq)
    assert seq.n_children_spawned == 0
    seq.spawn(1)
    assert p1 == plan(table, metric="recall", threshold=0.8, simulations=50, draws=200, rng=seq)
    assert c1 == compare(C, BASE, metric="macro_f1", draws=2_000, rng=seq)
    assert b1 == bootstrap_interval(C, metric="macro_f1", resamples=200, rng=seq)


def test_child_seed_is_the_engines_stream_derivation_and_does_not_mutate_the_root():
    root = np.random.SeedSequence(123, spawn_key=(4,))
    for key in [(0, 0), (3, 17), (2**31, 5)]:
        own = np.random.Generator(np.random.PCG64(child_seed(root, *key)))
        np.testing.assert_array_equal(
            own.integers(0, 2**63, size=8), block_stream(root, *key).integers(0, 2**63, size=8)
        )
    expected = np.random.SeedSequence(123, spawn_key=(4, 9)).generate_state(4)
    np.testing.assert_array_equal(child_seed(root, 9).generate_state(4), expected)
    assert root.n_children_spawned == 0


# --- 1. == and hash on result objects ----------------------------------------------------


def _results(seed: int) -> dict[str, object]:
    y = np.array([0, 1, 1, 0, 1, 0, 1, 1, 0, 1])
    s = np.linspace(0.05, 0.95, 10)
    return {
        "GateResult": gate(C, [Floor("macro_f1", 0.8)], rng=seed),
        "Check": gate(C, [Floor("macro_f1", 0.8)], rng=seed).checks[0],
        "Comparison": compare(C, BASE, metric="macro_f1", draws=1_000, rng=seed),
        "Ranking": rank_classifiers([C, BASE], metric="macro_f1", draws=1_000, rng=seed),
        "PriorSensitivity": prior_sensitivity(C, metric="macro_f1", draws=1_000, rng=seed),
        "FrequentistInterval": bootstrap_interval(
            np.stack([C, BASE]), metric="macro_f1", resamples=100, rng=seed
        ),
        "PlanResult": plan(
            [[45, 5], [8, 42]], metric="recall", threshold=0.8, simulations=50, draws=200, rng=seed
        ),  # fmt: skip
        "ThresholdResult": best_threshold(y if seed == 1 else 1 - y, s),
    }


def test_results_compare_by_value_and_hash_consistently():
    a, same, other = _results(1), _results(1), _results(2)
    for name in a:
        x, y, z = a[name], same[name], other[name]
        assert type(x).__name__ == name
        assert x == y and not x != y, name
        assert x != z, name
        assert hash(x) == hash(y), name
        assert len({x, y}) == 1, name
        assert x != "not a result", name


def test_result_equality_is_nan_aware_and_the_hash_ignores_array_contents():
    r = delta_interval(np.stack([C, BASE]), metric="macro_f1")
    assert isinstance(r, FrequentistInterval)
    nan = dataclasses.replace(r, interval=np.full_like(r.interval, np.nan))
    assert nan == dataclasses.replace(r, interval=np.full_like(r.interval, np.nan))
    assert nan != r
    h = hash(nan)
    nan.interval[...] = 0.5  # arrays stay mutable in a frozen dataclass: the hash must not move
    assert hash(nan) == h
    assert values_equal(np.array([np.nan, 1.0]), np.array([np.nan, 1.0]))
    assert not values_equal(np.array([1.0, 2.0]), np.array([[1.0, 2.0]]))  # shape
    assert not values_equal(0.5, "0.5") and not values_equal([1, 2], (1, 2))
    assert values_equal(np.float64(1.0), 1) and value_hash_key(np.float64(1.0)) == value_hash_key(1)


# --- 2. validation -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"alpha": 1 + 1j}, TypeError,
         r"alpha must be a positive real number, an array of them or a preset name; "
         r"got \(1\+1j\)"),
        ({"beta": np.full(5, 1 + 0j)}, TypeError,
         r"beta must be a positive real number, .*; got array of shape \(5,\) and dtype "
         r"complex128"),
        ({"alpha": np.True_}, TypeError, r"alpha must be a positive real number, .*; got np\.True_"),
        ({"alpha": 1e308}, ValueError,
         r"alpha must be finite, > 0 and at most 1e300 everywhere; got minimum 1e\+308"),
        ({"beta": np.ones((5, 5))}, ValueError,
         r"beta must broadcast to shape \(5,\) \(it may not add batch axes\); "
         r"got shape \(5, 5\)"),
        ({"keep_draws": "no"}, TypeError, r"keep_draws must be True or False; got 'no'"),
        ({"labels": ["a", "b"]}, ValueError,
         r"labels must give one label per class \(5, one per row of counts\); got 2: "
         r"\['a', 'b'\]"),
        ({"labels": "abcde"}, TypeError,
         r"labels must be a sequence of 5 class labels \(a list, not a string\); got 'abcde'"),
    ],
)  # fmt: skip
def test_evaluate_refuses_bad_arguments_by_name(kwargs, error, message):
    with pytest.raises(error, match=message):
        evaluate(C, draws=100, rng=0, **kwargs)


def test_labels_of_the_right_length_are_kept_in_order():
    assert evaluate(C, draws=100, rng=0, labels=list("vwxyz")).labels == list("vwxyz")


def test_a_count_of_2_to_the_64_is_named_not_called_ragged():
    with pytest.raises(
        ValueError,
        match=r"counts must hold numbers of at most 64 bits \(\|count\| < 2\*\*64\); "
        r"got 18446744073709551616",
    ):
        evaluate([[2**64, 1], [2, 4]], draws=100, rng=0)


# --- 3. scikit-learn's weighted average ----------------------------------------------------


def _sk(y_true, y_pred, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SkUndefinedMetricWarning)
        return precision_recall_fscore_support(y_true, y_pred, **kw)


def test_weighted_average_leaves_out_nan_classes_as_scikit_learn_does():
    # class 2 is never predicted: its precision (and nothing else) is 0/0 = nan
    y_true = [0, 0, 1, 1, 2, 2, 2, 0]
    y_pred = [0, 1, 1, 1, 0, 1, 0, 0]
    table = sk_confusion_matrix(y_true, y_pred, labels=[0, 1, 2])
    p, r, f, _ = _sk(y_true, y_pred, average="weighted", zero_division=np.nan)
    assert np.isfinite(p)
    assert precision(table, average="weighted", zero_division=np.nan) == pytest.approx(p)
    assert recall(table, average="weighted", zero_division=np.nan) == pytest.approx(r)
    assert f1(table, average="weighted", zero_division=np.nan) == pytest.approx(f)


def test_weighted_average_over_labels_without_support_is_the_plain_mean():
    y_true = [0, 0, 1, 1]
    y_pred = [0, 2, 1, 1]  # class 2 is predicted once, never true: no support
    table = sk_confusion_matrix(y_true, y_pred, labels=[0, 1, 2])
    for zd in (0.0, 1.0):
        p, r, f, _ = _sk(y_true, y_pred, labels=[2], average="weighted", zero_division=zd)
        assert (p, r, f) == (0.0, zd, 0.0)  # scikit-learn: the mean of the class's values
        kw = dict(labels=[2], average="weighted", zero_division=zd)
        assert precision(table, **kw) == p
        assert recall(table, **kw) == r
        assert f1(table, **kw) == f


AVERAGES = [None, "micro", "macro", "weighted", "binary"]
ZERO_DIVISIONS = ["warn", 0.0, 1.0, np.nan]


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    m=st.integers(2, 4),
    data=st.data(),
    average=st.sampled_from(AVERAGES),
    zero_division=st.sampled_from(ZERO_DIVISIONS),
    beta=st.sampled_from([0.5, 1.0, 2.0]),
    use_labels=st.booleans(),
)
def test_point_metrics_equal_scikit_learns(m, data, average, zero_division, beta, use_labels):
    if average == "binary":
        m, use_labels = 2, False
    n = data.draw(st.integers(1, 12), label="n")
    # each side uses a random subset of the classes: classes without support, never
    # predicted, or both (the 0/0 cases zero_division decides) are common
    y = {}
    for side in ("y_true", "y_pred"):
        used = data.draw(st.lists(st.integers(0, m - 1), min_size=1, unique=True), label=side)
        y[side] = data.draw(st.lists(st.sampled_from(used), min_size=n, max_size=n), label=side)
    y_true, y_pred = y["y_true"], y["y_pred"]
    labels = None
    if use_labels:
        labels = data.draw(
            st.lists(st.integers(0, m - 1), min_size=1, max_size=m, unique=True), label="labels"
        )
    table = sk_confusion_matrix(y_true, y_pred, labels=list(range(m)))
    sk_labels = labels if labels is not None else list(range(m))
    kw = dict(average=average, zero_division=zero_division)
    if average == "binary":
        sk_labels = None
    p, r, fb, _ = _sk(y_true, y_pred, labels=sk_labels, beta=beta, **kw)
    _, _, sk_f1, _ = _sk(y_true, y_pred, labels=sk_labels, **kw)
    ours_kw = dict(labels=labels, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        ours = {
            "precision": precision(table, **ours_kw),
            "recall": recall(table, **ours_kw),
            "f1": f1(table, **ours_kw),
            "fbeta": fbeta(table, beta=beta, **ours_kw),
        }
    theirs = {"precision": p, "recall": r, "f1": sk_f1, "fbeta": fb}
    for name, value in ours.items():
        np.testing.assert_allclose(
            np.asarray(value, dtype=float),
            np.asarray(theirs[name], dtype=float),
            rtol=1e-12,
            atol=1e-15,
            equal_nan=True,
            err_msg=f"{name} average={average} zero_division={zero_division} labels={labels}",
        )


def test_input_objects_compare_by_value():
    from f1posterior.io._sources import MatrixInput
    from f1posterior.io._streaming import BatchChunk
    from f1posterior.metrics._confusion import confusion_matrix

    a, b = confusion_matrix([0, 1, 1], [0, 1, 0]), confusion_matrix([0, 1, 1], [0, 1, 0])
    assert a == b and hash(a) == hash(b) and a != confusion_matrix([0, 1, 1], [0, 1, 1])
    m = MatrixInput(counts=np.eye(2), labels=["a", "b"], names=None, source="x")
    assert m == MatrixInput(counts=np.eye(2), labels=["a", "b"], names=None, source="x")
    assert m != MatrixInput(counts=np.eye(2), labels=["b", "a"], names=None, source="x")
    c = BatchChunk(np.ones((1, 2, 2)), ["n"], 0)
    assert c == BatchChunk(np.ones((1, 2, 2)), ["n"], 0) and len({c, c}) == 1


def test_evaluations_compare_by_value():
    import f1posterior as fp

    a = fp.evaluate([[5, 1], [2, 6]], draws=1000, rng=1)
    assert a == fp.evaluate([[5, 1], [2, 6]], draws=1000, rng=1)
    assert a != fp.evaluate([[5, 1], [2, 6]], draws=1000, rng=2)
    assert hash(a) == hash(fp.evaluate([[5, 1], [2, 6]], draws=1000, rng=1))


def test_hdi_ignores_windows_between_two_equal_infinities():
    from f1posterior import hdi

    # the example: [inf, inf] before; (0.2, 0.3) is the narrowest finite window
    np.testing.assert_array_equal(hdi([0.1, 0.2, np.inf, np.inf, 0.3], 0.4), [0.2, 0.3])
    np.testing.assert_array_equal(hdi([1.0, 2.0, np.inf, np.inf, 4.0], 0.4), [1.0, 2.0])
    np.testing.assert_array_equal(hdi([-np.inf, -np.inf, 1.0, 2.0, 4.0], 0.4), [1.0, 2.0])
    np.testing.assert_array_equal(hdi([np.inf] * 4, 0.5), [np.inf, np.inf])


_SEED_COUNTS = np.array([[30, 5, 3], [4, 25, 6], [2, 3, 22]])


@pytest.mark.parametrize(
    "run",
    [
        lambda rng: fp.compare(_SEED_COUNTS, _SEED_COUNTS.T, draws=500, rng=rng),
        lambda rng: fp.rank_classifiers(
            np.stack([_SEED_COUNTS, _SEED_COUNTS.T, _SEED_COUNTS + 1]), draws=500, rng=rng
        ),
        lambda rng: fp.aggregate(np.stack([_SEED_COUNTS, _SEED_COUNTS + 2]), draws=500, rng=rng),
        lambda rng: fp.evaluate_multilabel(
            np.array([[[50, 5], [4, 41]], [[60, 2], [9, 29]]]), draws=500, rng=rng
        ),
        lambda rng: fp.gate(_SEED_COUNTS, [Floor("macro_f1", 0.7)], draws=1000, rng=rng),
    ],
    ids=["compare", "rank_classifiers", "aggregate", "evaluate_multilabel", "gate"],
)
@pytest.mark.parametrize(
    "rng",
    [
        lambda: 11,
        lambda: np.random.SeedSequence(11).spawn(2)[1],
        lambda: np.random.default_rng(11),
    ],
    ids=["int", "child SeedSequence", "Generator"],
)
def test_result_seed_repeats_the_run(run, rng):
    """Every result's ``seed`` can be passed back as ``rng=`` and repeats the numbers."""
    first = run(rng())
    again = run(first.seed)
    np.testing.assert_equal(again.to_dict(), first.to_dict())
    json.dumps(first.to_dict()["seed"])  # the seed's JSON form is plain
