"""Delta-method and multinomial-bootstrap intervals (f1posterior.analysis._frequentist).

Independent truths: the published example of Takahashi et al. (2022); the
paper's closed-form variances; a generic numerical delta method (central
finite differences of the registry metrics times the multinomial covariance);
scikit-learn point values; the exact bootstrap variance of micro-F1; a naive
resampling loop; scipy.stats.bootstrap's BCa on the same bootstrap
distribution; a naive leave-one-document-out jackknife.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import f1posterior
from f1posterior.analysis import _frequentist as fq
from f1posterior.analysis._delta import delta_interval
from f1posterior.analysis._frequentist import DegenerateIntervalWarning, bootstrap_interval
from f1posterior.metrics._registry import METRICS

PAPER = np.array([[3, 0, 0], [0, 8, 0], [2, 1, 6]])
Z95 = 1.959963984540054
ANALYTIC = ("micro_f1", "macro_f1", "macro_f1_star", "macro_precision", "macro_recall")


def expand(table):
    """Documents (y_true, y_pred) summarised by a count table."""
    t = np.asarray(table, dtype=int)
    m = t.shape[0]
    idx = np.repeat(np.arange(m * m), t.ravel())
    return idx // m, idx % m


def numerical_se(table, fn, h=1e-6):
    """Generic delta method: finite-difference gradient of fn at p = C / N."""
    t = np.asarray(table, dtype=float)
    m, n = t.shape[0], t.sum()
    p = (t / n).ravel()
    g = np.empty(m * m)
    for k in range(m * m):
        e = np.zeros(m * m)
        e[k] = h
        g[k] = (fn((p + e).reshape(m, m)) - fn((p - e).reshape(m, m))) / (2 * h)
    cov = (np.diag(p) - np.outer(p, p)) / n
    return float(np.sqrt(max(g @ cov @ g, 0.0)))


def random_tables(seed, shape, m, low=0, high=30):
    return np.random.default_rng(seed).integers(low, high, size=(*shape, m, m))


# --- the published example -----------------------------------------------------------------


def test_published_example_macro_f1():
    res = delta_interval(PAPER, "macro_f1")
    assert round(res.estimate, 4) == 0.8304
    assert round(res.std_error, 4) == 0.0891
    assert np.allclose(res.interval, [0.656, 1.005], atol=5e-4)
    assert res.method == "delta" and res.n == 20.0 and not res.clipped


def test_published_example_micro_f1():
    res = delta_interval(PAPER, "micro_f1")
    assert res.estimate == pytest.approx(0.85)
    assert np.allclose(res.interval, [0.6935, 1.0065], atol=5e-5)
    # accuracy is the same estimator
    assert np.allclose(delta_interval(PAPER, "accuracy").interval, res.interval)


def test_clip_limits_to_unit_interval_only_when_asked():
    res = delta_interval(PAPER, "micro_f1", clip=True)
    assert res.interval[1] == 1.0 and res.clipped
    assert res.interval[0] == pytest.approx(delta_interval(PAPER, "micro_f1").interval[0])


# --- closed forms of the paper ----------------------------------------------------------------


def takahashi_macro_var(table):
    """Var(macro-F1) as written in Takahashi et al. (2022), section 3.2 (probabilities)."""
    t = np.asarray(table, dtype=float)
    n = t.sum()
    p = t / n
    r = p.shape[0]
    tp = np.diag(p)
    b = p.sum(0) + p.sum(1)
    a = b - 2 * tp
    f = 2 * tp / b
    first = (f * a / b**2 * (f / 2 + a / b)).sum()
    second = sum(
        p[j, i] * f[i] * f[j] / (b[i] * b[j]) for i in range(r) for j in range(r) if i != j
    )
    return 2 * (first + second) / (r * r * n)


@pytest.mark.parametrize("seed", range(5))
def test_closed_forms_on_random_tables(seed):
    tables = random_tables(seed, (4,), 4, low=1)
    micro = delta_interval(tables, "micro_f1")
    f = np.trace(tables, axis1=-2, axis2=-1) / tables.sum(axis=(-2, -1))
    assert np.allclose(micro.std_error, np.sqrt(f * (1 - f) / tables.sum(axis=(-2, -1))))
    macro = delta_interval(tables, "macro_f1")
    expected = [np.sqrt(takahashi_macro_var(t)) for t in tables]
    assert np.allclose(macro.std_error, expected, rtol=1e-12)
    assert np.allclose(macro.interval[:, 1] - macro.interval[:, 0], 2 * Z95 * macro.std_error)


# --- every formula against the numerical delta method --------------------------------------


@pytest.mark.parametrize("name", ANALYTIC)
@pytest.mark.parametrize("m", [2, 3, 6])
def test_analytic_gradient_matches_numerical_delta(name, m):
    tables = random_tables(100 + m, (3, 2), m)
    tables[0, 0] = 0  # empty cells ...
    tables[0, 0, 0, 0] = 7
    tables[0, 1, :, 1] = 0  # ... a class never predicted
    if m > 2:
        tables[1, 0, 2, :] = 0  # a class never present and never predicted
        tables[1, 0, :, 2] = 0
    res = delta_interval(tables, name)
    assert res.std_error.shape == (3, 2) and res.interval.shape == (3, 2, 2)
    expected = np.array([[numerical_se(t, METRICS[name]) for t in row] for row in tables])
    assert np.allclose(res.std_error, expected, rtol=1e-6, atol=1e-9)
    assert np.allclose(res.estimate, METRICS[name](tables.astype(float)))


@pytest.mark.parametrize("pos", [0, 1])
def test_binary_f1_matches_numerical_delta(pos):
    tables = random_tables(7, (6,), 2)
    tables[0] = [[5, 0], [0, 0]]  # positive class 1 absent and never predicted
    tables[1] = [[0, 3], [4, 0]]  # tp = 0
    res = delta_interval(tables, "binary_f1", pos_label=pos)
    fn = lambda t: METRICS["f1"](t)[..., pos]  # noqa: E731
    assert np.allclose(res.std_error, [numerical_se(t, fn) for t in tables], rtol=1e-6, atol=1e-9)
    assert np.allclose(res.estimate, fn(tables.astype(float)))
    if pos == 1:
        assert np.allclose(res.std_error, delta_interval(tables, "binary_f1").std_error)


def test_binary_f1_seed_formula():
    # the seed's derivatives: dF/dp11 = 2 (1 - F) / d, dF/dp01 = dF/dp10 = -F / d
    t = np.array([[50, 7], [12, 31]])
    n = t.sum()
    p = t / n
    d = 2 * p[1, 1] + p[0, 1] + p[1, 0]
    f = 2 * p[1, 1] / d
    g = np.array([0.0, -f / d, -f / d, 2 * (1 - f) / d])
    pv = p.ravel()
    var = g @ (np.diag(pv) - np.outer(pv, pv)) @ g / n
    assert delta_interval(t, "binary_f1").std_error == pytest.approx(np.sqrt(var), rel=1e-12)


def test_estimates_equal_scikit_learn():
    from sklearn import metrics as skm

    t = np.array([[9, 2, 0, 1], [3, 11, 2, 0], [0, 0, 0, 0], [1, 0, 4, 0]])  # class 2 absent
    y, yhat = expand(t)
    kw = {"labels": range(4), "zero_division": 0}
    sk = {
        "micro_f1": skm.f1_score(y, yhat, average="micro", **kw),
        "macro_f1": skm.f1_score(y, yhat, average="macro", **kw),
        "macro_precision": skm.precision_score(y, yhat, average="macro", **kw),
        "macro_recall": skm.recall_score(y, yhat, average="macro", **kw),
    }
    for name, value in sk.items():
        assert delta_interval(t, name).estimate == pytest.approx(value, abs=1e-12)
        assert bootstrap_interval(t, name, resamples=20, rng=0).estimate == pytest.approx(value)


# --- degenerate tables -------------------------------------------------------------------------


@pytest.mark.parametrize("name", ANALYTIC)
def test_degenerate_tables_give_documented_results(name):
    perfect = np.array([[4, 0], [0, 6]])
    single = np.array([[0, 0], [0, 1]])
    one_cell = np.array([[5, 0], [0, 0]])
    for table in (perfect, single, one_cell):
        d = delta_interval(table, name)
        assert d.std_error == 0.0 and d.interval[0] == d.interval[1] == d.estimate
        for method in ("percentile", "bca"):
            b = bootstrap_interval(table, name, resamples=50, method=method, rng=1)
            assert b.std_error == 0.0 and b.interval[0] == b.interval[1] == b.estimate


def test_class_never_predicted_is_finite_and_consistent_with_bootstrap():
    t = np.array([[20, 0, 5], [3, 0, 9], [1, 0, 30]])  # class 1 never predicted
    for name in ANALYTIC:
        d = delta_interval(t, name)
        b = bootstrap_interval(t, name, resamples=4000, rng=3)
        assert np.isfinite(d.interval).all() and np.isfinite(b.interval).all()
        # bootstrap SD estimates the same spread (N = 68 is small: 25% slack for curvature)
        assert b.std_error == pytest.approx(d.std_error, rel=0.25)


def test_bca_undefined_is_nan_with_warning():
    def occupied(tab):
        return (tab > 0).sum(axis=(-2, -1)).astype(float)

    spread = np.ones((4, 4), dtype=int)  # 16 documents in 16 cells: every resample empties
    fine = np.array([[10, 5, 0, 0], [3, 12, 0, 0], [0, 0, 8, 2], [0, 0, 1, 9]])  # some cell
    with pytest.warns(DegenerateIntervalWarning, match="1 BCa interval"):
        res = bootstrap_interval([spread, fine], occupied, resamples=200, method="bca", rng=0)
    assert np.isnan(res.interval[0]).all() and np.isfinite(res.interval[1]).all()
    # the percentile interval is still defined there
    pct = bootstrap_interval(spread, occupied, resamples=200, rng=0)
    assert np.isfinite(pct.interval).all() and pct.interval[1] < 16


def test_n_equal_one():
    t = np.array([[0, 1], [0, 0]])
    for name in ANALYTIC:
        assert np.isfinite(delta_interval(t, name).interval).all()
        assert np.isfinite(bootstrap_interval(t, name, resamples=10, rng=0).interval).all()


# --- bootstrap ----------------------------------------------------------------------------------


def test_bootstrap_is_deterministic_and_seed_dependent():
    a = bootstrap_interval(PAPER, "macro_f1", resamples=300, method="bca", rng=11)
    b = bootstrap_interval(PAPER, "macro_f1", resamples=300, method="bca", rng=11)
    c = bootstrap_interval(PAPER, "macro_f1", resamples=300, method="bca", rng=12)
    assert np.array_equal(a.interval, b.interval) and a.std_error == b.std_error
    assert not np.array_equal(a.interval, c.interval)
    ss = np.random.SeedSequence(11)
    d = bootstrap_interval(PAPER, "macro_f1", resamples=300, method="bca", rng=ss)
    assert np.array_equal(a.interval, d.interval)


def test_bootstrap_independent_of_chunking_and_other_matrices(monkeypatch):
    tables = random_tables(5, (5,), 3, low=1)
    full = bootstrap_interval(tables, "macro_f1", resamples=400, method="bca", rng=2)
    monkeypatch.setattr(fq, "BOOT_BUDGET", 1)  # one matrix per group
    chunked = bootstrap_interval(tables, "macro_f1", resamples=400, method="bca", rng=2)
    assert np.array_equal(full.interval, chunked.interval)
    other = tables.copy()
    other[[0, 1, 3, 4]] += 3  # change every matrix except index 2
    changed = bootstrap_interval(other, "macro_f1", resamples=400, method="bca", rng=2)
    assert np.array_equal(changed.interval[2], full.interval[2])
    two_d = bootstrap_interval(tables[:4].reshape(2, 2, 3, 3), "macro_f1", resamples=400, rng=2)
    flat = bootstrap_interval(tables[:4], "macro_f1", resamples=400, rng=2)
    assert two_d.interval.shape == (2, 2, 2)
    assert np.array_equal(two_d.interval.reshape(4, 2), flat.interval)


def test_percentile_equals_naive_loop_with_scikit_learn():
    from sklearn.metrics import f1_score

    t = np.array([[7, 2, 0], [1, 5, 3], [0, 2, 10]])
    n, r, seed = int(t.sum()), 150, 4
    res = bootstrap_interval(t, "macro_f1", resamples=r, rng=seed, confidence_level=0.9)
    # naive: the documented stream of matrix 0, one resample at a time, scored by scikit-learn
    root = np.random.SeedSequence(seed)
    gen = np.random.default_rng(np.random.SeedSequence(root.entropy, spawn_key=(0,)))
    nz = np.flatnonzero(t.ravel())
    scores = []
    for _ in range(r):
        cells = np.zeros(9, dtype=int)
        cells[nz] = gen.multinomial(n, t.ravel()[nz] / n)
        y, yhat = expand(cells.reshape(3, 3))
        scores.append(f1_score(y, yhat, average="macro", labels=range(3), zero_division=0))
    assert np.allclose(res.interval, np.quantile(scores, [0.05, 0.95]), rtol=0, atol=1e-12)
    assert res.std_error == pytest.approx(np.std(scores, ddof=1), rel=1e-12)


def test_bootstrap_variance_of_micro_f1_is_binomial():
    # under Mult(N, p_hat), N * micro-F1 ~ Binomial(N, f): Var = f (1 - f) / N exactly
    t = np.array([[30, 10], [6, 54]])
    r = 20_000
    res = bootstrap_interval(t, "micro_f1", resamples=r, rng=8)
    sd = np.sqrt(0.84 * 0.16 / 100)
    # standard error of a sample SD ~ sd * sqrt((kurtosis - 1) / (4 r)); kurtosis ~ 3 here
    assert res.std_error == pytest.approx(sd, abs=5 * sd * np.sqrt(2 / (4 * r)))


def test_bootstrap_and_delta_agree_for_large_n():
    t = np.array([[900, 60, 40], [80, 700, 120], [30, 90, 980]])
    d = delta_interval(t, "macro_f1")
    b = bootstrap_interval(t, "macro_f1", resamples=4000, rng=9)
    # the SD estimate from 4000 resamples has relative MC error ~ 1 / sqrt(2 * 4000) = 1.1%
    assert b.std_error == pytest.approx(d.std_error, rel=5 * 0.0112)
    assert np.allclose(b.interval, d.interval, atol=5 * 0.0112 * 2 * d.std_error)


def naive_acceleration(table, fn):
    """Jackknife over every document (scipy's / Efron's formula), by brute force."""
    y, yhat = expand(table)
    m = np.asarray(table).shape[0]
    vals = []
    for i in range(len(y)):
        keep = np.arange(len(y)) != i
        tab = np.zeros((m, m))
        np.add.at(tab, (y[keep], yhat[keep]), 1)
        vals.append(float(fn(tab)))
    vals = np.array(vals)
    u = vals.mean() - vals
    return (u**3).sum() / (6 * (u**2).sum() ** 1.5)


@pytest.mark.parametrize("name", ["macro_f1", "micro_f1", "macro_precision"])
def test_jackknife_acceleration_equals_document_jackknife(name):
    t = np.array([[7, 2, 0], [1, 5, 3], [0, 2, 10]])
    got = fq.jackknife_acceleration(t[None].astype(float), METRICS[name], ())
    assert got[0] == pytest.approx(naive_acceleration(t, METRICS[name]), rel=1e-10, abs=1e-15)


@pytest.mark.parametrize("level", [0.8, 0.95])
def test_bca_equals_scipy_on_the_same_bootstrap_distribution(level):
    stats = pytest.importorskip("scipy.stats")
    t = np.array([[12, 3, 1], [2, 9, 4], [1, 3, 15]])
    y, yhat = expand(t)
    fn = METRICS["macro_f1"]

    def statistic(a, b, axis=-1):
        idx = (a * 3 + b).astype(int)
        tab = np.stack([(idx == k).sum(axis=axis) for k in range(9)], axis=-1)
        return fn(tab.reshape(*tab.shape[:-1], 3, 3).astype(float))

    res = stats.bootstrap(
        (y, yhat), statistic, paired=True, vectorized=True, n_resamples=999,
        confidence_level=level, method="BCa", rng=np.random.default_rng(0),
    )  # fmt: skip
    boot = res.bootstrap_distribution
    est = fn(t.astype(float))
    accel = fq.jackknife_acceleration(t[None].astype(float), fn, ())[0]
    q = fq.bca_quantile_levels(boot, np.asarray(est), np.asarray(accel), level)
    ours = fq.quantiles(np.sort(boot), q)
    assert np.allclose(ours, [res.confidence_interval.low, res.confidence_interval.high],
                       rtol=0, atol=1e-12)  # fmt: skip
    # and the percentile method is numpy's quantile
    tail = (1 - level) / 2
    assert np.allclose(
        fq.quantiles(np.sort(boot), np.array([tail, 1 - tail])),
        np.quantile(boot, [tail, 1 - tail]),
    )


def test_bca_on_symmetric_problem_is_close_to_percentile():
    # micro-F1 at f = 0.5: no skew and no bias, so BCa barely moves the percentile interval
    t = np.array([[250, 250], [250, 250]])
    pct = bootstrap_interval(t, "micro_f1", resamples=4000, rng=3)
    bca = bootstrap_interval(t, "micro_f1", resamples=4000, method="bca", rng=3)
    assert np.allclose(pct.interval, bca.interval, atol=0.004)  # 2 grid steps of 1/1000


def test_per_class_and_callable_metrics():
    tables = random_tables(3, (2,), 3, low=1)
    res = bootstrap_interval(tables, "f1", resamples=100, method="bca", rng=0)
    assert res.estimate.shape == (2, 3) and res.interval.shape == (2, 3, 2)
    assert np.allclose(res.estimate, METRICS["f1"](tables.astype(float)))
    assert (res.interval[..., 0] <= res.estimate + 1e-12).all()

    def recall_of_class_0(t):
        return t[..., 0, 0] / t[..., 0, :].sum(axis=-1)

    one = bootstrap_interval(tables, recall_of_class_0, resamples=100, rng=0)
    assert one.metric == "recall_of_class_0" and one.interval.shape == (2, 2)
    per = bootstrap_interval(tables, "recall", resamples=100, rng=0)
    assert np.array_equal(one.interval, per.interval[:, 0])
    d = res.to_dict()
    assert d["method"] == "bca" and np.shape(d["interval"]) == (2, 3, 2)


def test_exported_from_package():
    assert f1posterior.delta_interval is delta_interval
    assert f1posterior.bootstrap_interval is bootstrap_interval
    assert "FrequentistInterval" in f1posterior.__all__


# --- bad input ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"counts": [[0, 0], [0, 0]]}, ValueError, "counts must count at least one document"),
        ({"counts": [[1.5, 0], [0, 1]]}, ValueError, "counts must be whole-number"),
        ({"metric": "weighted_f1"}, ValueError, "metric must be one of 'micro_f1'.*'weighted_f1'"),
        ({"metric": len}, TypeError, "metric must be one of micro_f1.*bootstrap_interval.*len"),
        ({"metric": "binary_f1", "counts": PAPER}, ValueError, "binary_f1.*got M = 3"),
        ({"metric": "binary_f1", "pos_label": 2}, ValueError, "pos_label must be 0 or 1.*got 2"),
        ({"metric": "binary_f1", "pos_label": True}, ValueError, "pos_label must be 0 or 1"),
        ({"pos_label": 1}, ValueError, 'pos_label is only used with metric="binary_f1"; got 1'),
        (
            {"confidence_level": 1.0},
            ValueError,
            r"confidence_level must be in the open interval \(0, 1\); got 1.0",
        ),
        ({"confidence_level": "95%"}, TypeError, "confidence_level must be a number"),
        ({"clip": 1}, TypeError, "clip must be True or False; got 1"),
    ],
)
def test_delta_bad_input(kwargs, exc, match):
    args = {"counts": [[3, 1], [2, 4]], "metric": "macro_f1", **kwargs}
    counts, metric = args.pop("counts"), args.pop("metric")
    with pytest.raises(exc, match=match):
        delta_interval(counts, metric, **args)


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"counts": [[0, 0], [0, 0]]}, ValueError, "counts must count at least one document"),
        ({"metric": "f2"}, ValueError, "metric must name known metrics.*got 'f2'"),
        ({"resamples": 0}, ValueError, "resamples must be an integer >= 1; got 0"),
        ({"resamples": 10.0}, TypeError, "resamples must be an integer >= 1; got 10.0"),
        ({"method": "BCa"}, ValueError, "method must be one of 'percentile', 'bca'; got 'BCa'"),
        ({"rng": "seed"}, TypeError, "rng must be None, an int"),
        (
            {"confidence_level": 0},
            ValueError,
            r"confidence_level must be in the open interval \(0, 1\); got 0",
        ),
        ({"metric": lambda t: t}, ValueError, "metric '<lambda>' must map a .* to"),
    ],
)
def test_bootstrap_bad_input(kwargs, exc, match):
    args = {"counts": [[3, 1], [2, 4]], "metric": "macro_f1", "resamples": 10, **kwargs}
    counts, metric = args.pop("counts"), args.pop("metric")
    with pytest.raises(exc, match=match):
        bootstrap_interval(counts, metric, **args)


# --- documentation ------------------------------------------------------------------------------

DOC = Path(__file__).resolve().parent.parent / "docs" / "frequentist.md"


def test_documentation_examples_run():
    text = DOC.read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks
    for block in blocks:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            exec(compile(block, str(DOC), "exec"), {})
