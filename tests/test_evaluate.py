"""evaluate(): properties, shapes, reproducibility and input errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from f1posterior import evaluate, f1, sample_posterior

C = np.array([[30, 4, 2], [6, 25, 5], [1, 3, 40]])
ALL = ("micro_f1", "macro_f1", "weighted_f1", "macro_f1_star", "accuracy",
       "macro_precision", "macro_recall", "f1", "precision", "recall")  # fmt: skip

tables = (
    st.integers(2, 4)
    .flatmap(
        lambda m: st.lists(st.integers(0, 30), min_size=m * m, max_size=m * m).map(
            lambda v: np.array(v).reshape(m, m)
        )
    )
    .filter(lambda c: c.sum() > 0)
)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(counts=tables, seed=st.integers(0, 2**32))
def test_scores_in_unit_interval_and_hdi_properties(counts, seed):
    res = evaluate(counts, metrics=ALL, draws=400, rng=seed, ref=0.5)
    for s in res.values():
        for v in (s.mean, s.median, s.hdi, s.eti):
            assert np.all((np.asarray(v) >= 0) & (np.asarray(v) <= 1))
        h, e = np.asarray(s.hdi), np.asarray(s.eti)
        assert np.all(h[..., 1] - h[..., 0] <= e[..., 1] - e[..., 0] + 1e-12)
        assert np.all(h[..., 0] <= h[..., 1])
        np.testing.assert_array_less(-1e-12, np.asarray(s.std))
        assert np.all(np.asarray(s.p_below) + np.asarray(s.p_above) <= 1 + 1e-12)


def test_micro_f1_equals_accuracy_draw_for_draw():
    res = evaluate(C, metrics=("micro_f1", "accuracy"), draws=5000, rng=1)
    a, b = res["micro_f1"], res["accuracy"]
    assert a.mean == pytest.approx(b.mean, rel=1e-12)
    np.testing.assert_allclose(a.hdi, b.hdi, rtol=1e-12)


def test_same_seed_same_numbers():
    a = evaluate(C, metrics=ALL, draws=3000, rng=123)
    b = evaluate(C, metrics=ALL, draws=3000, rng=123)
    for k in ALL:
        assert a[k].to_dict() == b[k].to_dict()
    assert a["macro_f1"].mean != evaluate(C, draws=3000, rng=124)["macro_f1"].mean


def test_metric_draws_equal_metric_of_sample_posterior():
    res = evaluate(C, metrics=("macro_f1", "f1"), draws=2000, rng=5, keep_draws=True)
    p = sample_posterior(C, draws=2000, rng=5)
    np.testing.assert_array_equal(res.metric_draws["macro_f1"], f1(p, average="macro"))
    np.testing.assert_array_equal(res.metric_draws["f1"], np.moveaxis(f1(p, average=None), 0, -1))


def test_permuting_classes_permutes_per_class_results():
    perm = [2, 0, 1]
    cp = C[np.ix_(perm, perm)]
    n = 40_000
    a = evaluate(C, metrics=("micro_f1", "macro_f1", "f1"), draws=n, rng=1)
    b = evaluate(cp, metrics=("micro_f1", "macro_f1", "f1"), draws=n, rng=2)
    np.testing.assert_allclose(b["f1"].score, a["f1"].score[perm])
    assert b["macro_f1"].score == pytest.approx(a["macro_f1"].score)
    for key, sa, sb in [
        ("micro_f1", a["micro_f1"], b["micro_f1"]),
        ("macro_f1", a["macro_f1"], b["macro_f1"]),
    ]:
        se = np.hypot(sa.mc_error, sb.mc_error)
        assert abs(sa.mean - sb.mean) < 4.5 * se, key
    se = np.hypot(a["f1"].mc_error[perm], b["f1"].mc_error)
    assert np.all(np.abs(a["f1"].mean[perm] - b["f1"].mean) < 4.5 * se)


@pytest.mark.parametrize("k", [2, 4, 16])
def test_more_data_narrows_the_posterior(k):
    a = evaluate(C, draws=20_000, rng=0)
    b = evaluate(k * C, draws=20_000, rng=0)
    for name in ("micro_f1", "macro_f1"):
        # std scales like 1/sqrt(N): a ratio near sqrt(k), far from MC noise (~1%)
        assert b[name].std < a[name].std / np.sqrt(k) * 1.1
        wa, wb = np.diff(a[name].hdi)[0], np.diff(b[name].hdi)[0]
        assert wb < wa


@pytest.mark.parametrize("batch", [(), (3,), (2, 2)])
def test_batch_shapes(batch):
    rng = np.random.default_rng(4)
    counts = rng.integers(1, 20, size=(*batch, 3, 3))
    res = evaluate(counts, metrics=("micro_f1", "f1"), draws=500, rng=0, ref=0.6)
    s, f = res["micro_f1"], res["f1"]
    for v in (s.score, s.mean, s.median, s.std, s.mc_error, s.p_below, s.p_above):
        assert np.shape(v) == batch
    assert s.hdi.shape == (*batch, 2) and s.eti.shape == (*batch, 2)
    assert np.shape(f.mean) == (*batch, 3) and f.hdi.shape == (*batch, 3, 2)
    if batch == ():
        assert isinstance(s.mean, float)
    assert res.batch_shape == batch


def test_batched_equals_per_matrix():
    stack = np.stack([C, C.T, 3 * C])
    res = evaluate(stack, draws=20_000, rng=8)
    first = evaluate(C, draws=20_000, rng=8)
    # matrix 0 uses the same random streams as a lone matrix: identical numbers
    assert res["macro_f1"].mean[0] == first["macro_f1"].mean
    for b in (1, 2):
        alone = evaluate(stack[b], draws=20_000, rng=100 + b)
        for name in ("micro_f1", "macro_f1"):
            se = np.hypot(res[name].mc_error[b], alone[name].mc_error)
            assert abs(res[name].mean[b] - alone[name].mean) < 4.5 * se
            assert res[name].score[b] == alone[name].score


def test_callable_metric():
    def tp_share(t):
        return np.trace(t, axis1=-2, axis2=-1) / t.sum(axis=(-2, -1))

    res = evaluate(C, metrics=[tp_share, "accuracy"], draws=1000, rng=0)
    assert list(res) == ["tp_share", "accuracy"]
    assert res["tp_share"].mean == pytest.approx(res["accuracy"].mean)


def test_printed_table_states_prior_and_scores():
    text = str(evaluate(C, draws=1000, rng=0, ref=0.8, alpha="jeffreys", beta="jeffreys"))
    assert "alpha=0.5 (jeffreys), beta=0.5 (jeffreys)" in text
    assert "below < 0.8 < above" in text and "95% HDI" in text
    assert "micro_f1" in text and "macro_f1" in text


# --- errors: one per message -------------------------------------------------------

BAD = [
    (np.ones((2, 3)), ValueError, r"counts must be square confusion matrices .* got shape \(2, 3\)"),
    ([["a", "b"], ["c", "d"]], TypeError, r"counts must hold integers or floats; got dtype <U1"),
    ([[1, 2], [3]], ValueError, r"counts must be a rectangular array of numbers; got ragged"),
    ([[True, False], [False, True]], TypeError, r"counts must hold numbers, not booleans"),
    ([[1, -2], [3, 4]], ValueError, r"counts must be non-negative counts; got -2 at index \(0, 1\)"),
    ([[1, np.nan], [3, 4]], ValueError, r"counts must be finite; got nan at index \(0, 1\)"),
    ([[1, np.inf], [3, 4]], ValueError, r"counts must be finite; got inf at index \(0, 1\)"),
    ([[1.5, 2], [3, 4]], ValueError, r"counts must be whole-number document counts; got 1.5 at"),
    ([[0.6, 0.4], [0.3, 0.7]], ValueError, r"the table looks normalised"),
    ([[0, 0], [0, 0]], ValueError, r"counts must count at least one document per matrix"),
]  # fmt: skip


@pytest.mark.parametrize(("counts", "exc", "match"), BAD)
def test_bad_counts(counts, exc, match):
    with pytest.raises(exc, match=match):
        evaluate(counts, draws=10)


def test_error_all_zero_matrix_in_batch_is_located():
    counts = np.ones((3, 2, 2))
    counts[1] = 0
    with pytest.raises(ValueError, match=r"all-zero table at batch index \(1,\)"):
        evaluate(counts, draws=10)


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"draws": 0}, ValueError, r"draws must be an integer >= 1; got 0"),
        ({"draws": 10.0}, TypeError, r"draws must be an integer >= 1; got 10.0"),
        ({"alpha": 0.0}, ValueError, r"alpha must be finite, > 0 and at most 1e300 everywhere; got minimum 0.0, maximum 0.0"),
        ({"beta": -1.0}, ValueError, r"beta must be finite, > 0 and at most 1e300 everywhere; got minimum -1.0, maximum -1.0"),
        ({"alpha": np.ones((3, 3))}, ValueError, r"alpha must broadcast to shape \(2, 2\) \(it may not add batch axes\); got shape \(3, 3\)"),
        ({"beta": np.ones(3)}, ValueError, r"beta must broadcast to shape \(2,\) \(it may not add batch axes\); got shape \(3,\)"),
        ({"alpha": "flat"}, ValueError, r"alpha must be a positive number, an array or one of 'hierarchical', 'adaptive', 'paper', 'uniform', 'jeffreys', 'perks'; got 'flat'"),
        ({"beta": "laplace"}, ValueError, r"beta must be .* 'aligned'; got 'laplace'"),
        ({"alpha": True}, TypeError, r"alpha must be a positive real number, an array of them or a preset name; got True"),
        ({"ci_prob": 1.0}, ValueError, r"ci_prob must be in the open interval \(0, 1\); got 1.0"),
        ({"ci_prob": 0}, ValueError, r"ci_prob must be in the open interval \(0, 1\); got 0"),
        ({"metrics": ["micro_f1", "f2"]}, ValueError, r"metrics must name known metrics \(micro_f1, .*got 'f2'"),
        ({"metrics": []}, ValueError, r"metrics must name at least one metric"),
        ({"metrics": ["accuracy", "accuracy"]}, ValueError, r"metrics must not repeat a name"),
        ({"metrics": 3}, TypeError, r"metrics must be a metric name, a callable, or a sequence"),
        ({"rng": 1.5}, TypeError, r"rng must be None, an int, a numpy.random.SeedSequence or a numpy.random.Generator; got 1.5"),
        ({"rng": -1}, ValueError, r"rng must be a non-negative integer seed; got -1"),
        ({"ref": "0.8"}, TypeError, r"ref must be a finite number or None; got '0.8'"),
        ({"ref": np.nan}, ValueError, r"ref must be a finite number or None; got nan"),
        ({"dtype": np.int32}, ValueError, r"dtype must be numpy.float64 or numpy.float32; got int32"),
    ],
)  # fmt: skip
def test_bad_arguments(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        evaluate([[5, 1], [2, 7]], **{"draws": 10, **kwargs})


def test_error_metric_with_wrong_shape():
    with pytest.raises(ValueError, match=r"metric 'bad' must map a \(\.\.\., M, M\) table"):
        evaluate([[5, 1], [2, 7]], metrics=[bad], draws=10)


def bad(t):
    return np.zeros(3)


@pytest.mark.parametrize(
    "make_rng",
    [
        lambda: 20150927,
        lambda: np.random.SeedSequence(7),
        lambda: np.random.SeedSequence(7).spawn(3)[2],  # a child: it has a spawn key
        lambda: np.random.default_rng(11),
    ],
    ids=["int", "SeedSequence", "child SeedSequence", "Generator"],
)
def test_seed_reproduces_the_run(make_rng):
    # result.seed, passed back as rng=, gives the same numbers
    kw = dict(metrics=("macro_f1", "f1", "recall"), draws=2000)
    res = evaluate(C, rng=make_rng(), **kw)
    again = evaluate(C, rng=res.seed, **kw)
    assert again == res and again.seed == res.seed
    # and through its JSON form: SeedSequence(**d), or the int
    j = res.to_dict()["seed"]
    seq = j if isinstance(j, int) else np.random.SeedSequence(**j)
    assert evaluate(C, rng=seq, **kw) == res
    # negative control: the root entropy alone (the old seed) does not reproduce a child
    if isinstance(j, dict) and j["spawn_key"]:
        alone = np.random.SeedSequence(j["entropy"])
        assert evaluate(C, rng=alone, **kw)["macro_f1"].mean != res["macro_f1"].mean


def test_seed_prints_and_compares():
    res = evaluate(C, draws=1000, rng=42)
    assert res.seed == 42 and res.to_dict()["seed"] == 42 and "seed 42" in str(res)
    child = evaluate(C, draws=1000, rng=np.random.SeedSequence(42, spawn_key=(1, 2)))
    assert child.seed != 42 and "seed 42/1/2" in str(child)
    assert child.to_dict()["seed"] == {"entropy": 42, "spawn_key": [1, 2]}
    assert hash(res) == hash(evaluate(C, draws=1000, rng=42))
