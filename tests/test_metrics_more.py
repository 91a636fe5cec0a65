"""The metrics added to the one metric path (MCC, kappa, balanced accuracy, one-vs-rest rates,
Jaccard, P4, informedness, markedness, likelihood and odds ratios).

Truth: scikit-learn's point values on the predictions a table summarises (hypothesis tables,
expanded to y_true / y_pred as in tests/test_metrics.py), hand one-vs-rest computations from
scikit-learn's ``multilabel_confusion_matrix``, the closed forms of the papers, and the exact
Beta posterior of a 2 x 2 table's row.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
import scipy.stats as ss
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

from f1posterior import Floor, evaluate, gate, sample_posterior
from f1posterior.cli import main
from f1posterior.metrics import (
    balanced_accuracy,
    cohen_kappa,
    diagnostic_odds_ratio,
    fdr,
    fnr,
    fpr,
    informedness,
    jaccard,
    likelihood_ratios,
    markedness,
    mcc,
    npv,
    p4,
    safe_divide,
    specificity,
)
from f1posterior.metrics._divide import UndefinedMetricWarning
from f1posterior.metrics._registry import METRIC_RANGES, METRICS, PER_CLASS_METRICS

NEW = [
    "mcc",
    "cohen_kappa",
    "balanced_accuracy",
    "informedness",
    "markedness",
    "p4",
    "specificity",
    "npv",
    "fpr",
    "fnr",
    "fdr",
    "jaccard",
    "macro_specificity",
    "macro_npv",
    "macro_fpr",
    "macro_fnr",
    "macro_fdr",
    "macro_jaccard",
    "micro_jaccard",
    "weighted_jaccard",
    "positive_likelihood_ratio",
    "negative_likelihood_ratio",
    "diagnostic_odds_ratio",
    "log_diagnostic_odds_ratio",
]
RATES = {
    "specificity": specificity,
    "npv": npv,
    "fpr": fpr,
    "fnr": fnr,
    "fdr": fdr,
    "jaccard": jaccard,
}
#: Hypothesis examples run per test, reported in the final report's agreement counts.
EXAMPLES = 80


def predictions_from_table(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    m = table.shape[0]
    t, p = np.meshgrid(np.arange(m), np.arange(m), indexing="ij")
    reps = table.astype(int).ravel()
    return np.repeat(t.ravel(), reps), np.repeat(p.ravel(), reps)


def tables_of(m_min: int = 2, m_max: int = 5, high: int = 6) -> st.SearchStrategy[np.ndarray]:
    return (
        st.integers(m_min, m_max)
        .flatmap(
            lambda m: st.lists(st.integers(0, high), min_size=m * m, max_size=m * m).map(
                lambda v: np.array(v, dtype=float).reshape(m, m)
            )
        )
        .filter(lambda t: t.sum() > 0)
    )


def quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def ovr_reference(table: np.ndarray, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(numerator, denominator, support) per class from scikit-learn's one-vs-rest tables."""
    y_true, y_pred = predictions_from_table(table)
    mcm = skm.multilabel_confusion_matrix(y_true, y_pred, labels=list(range(table.shape[0])))
    tn, fp, fn, tp = (mcm[:, i, j].astype(float) for i, j in [(0, 0), (0, 1), (1, 0), (1, 1)])
    num, den = {
        "specificity": (tn, tn + fp),
        "npv": (tn, tn + fn),
        "fpr": (fp, fp + tn),
        "fnr": (fn, fn + tp),
        "fdr": (fp, fp + tp),
        "jaccard": (tp, tp + fp + fn),
    }[name]
    return num, den, tp + fn


def reference_average(num, den, support, average, zero_division):
    """scikit-learn's averaging, written out: NaN classes dropped with their weights."""
    if average == "micro":
        return num.sum() / den.sum() if den.sum() > 0 else zero_division
    vals = np.array([n / d if d > 0 else zero_division for n, d in zip(num, den, strict=True)])
    if average is None:
        return vals
    keep = ~np.isnan(vals)
    if not keep.any():
        return np.nan
    w = support[keep] if average == "weighted" else np.ones(keep.sum())
    if w.sum() == 0:
        w = np.ones(keep.sum())
    return float(np.sum(vals[keep] * w) / w.sum())


# --- point values against scikit-learn ------------------------------------------------------


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True)
@given(table=tables_of(), weights=st.sampled_from([None, "linear", "quadratic"]))
def test_mcc_kappa_balanced_accuracy_against_sklearn(table, weights):
    y_true, y_pred = predictions_from_table(table)
    labels = list(range(table.shape[0]))
    np.testing.assert_allclose(
        mcc(table), skm.matthews_corrcoef(y_true, y_pred), rtol=1e-12, atol=1e-15
    )
    assert float(METRICS["mcc"](table)) == pytest.approx(skm.matthews_corrcoef(y_true, y_pred))
    theirs = quiet(skm.cohen_kappa_score, y_true, y_pred, labels=labels, weights=weights)
    np.testing.assert_allclose(
        cohen_kappa(table, weights=weights), theirs, rtol=1e-12, atol=1e-15, equal_nan=True
    )
    if weights is None:
        np.testing.assert_allclose(METRICS["cohen_kappa"](table), theirs, rtol=1e-12, atol=1e-15)
    theirs = quiet(skm.balanced_accuracy_score, y_true, y_pred)
    np.testing.assert_allclose(balanced_accuracy(table), theirs, rtol=1e-12)
    np.testing.assert_allclose(METRICS["balanced_accuracy"](table), theirs, rtol=1e-12)
    if (table.sum(axis=1) > 0).sum() >= 2:  # adjusted: chance 1/K needs K >= 2 classes
        theirs = quiet(skm.balanced_accuracy_score, y_true, y_pred, adjusted=True)
        np.testing.assert_allclose(
            balanced_accuracy(table, adjusted=True), theirs, rtol=1e-12, atol=1e-15
        )


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True)
@given(
    table=tables_of(),
    average=st.sampled_from(["micro", "macro", "weighted", None]),
    zero_division=st.sampled_from([0.0, 1.0, np.nan]),
    data=st.data(),
)
def test_jaccard_against_sklearn(table, average, zero_division, data):
    m = table.shape[0]
    labels = data.draw(
        st.permutations(range(m)).flatmap(lambda p: st.integers(1, m).map(lambda k: list(p[:k])))
    )
    y_true, y_pred = predictions_from_table(table)
    num, den, support = ovr_reference(table, "jaccard")
    for lab in (None, labels):
        kw = {"average": average, "zero_division": zero_division}
        ours = jaccard(table, labels=lab, **kw)
        if np.isnan(zero_division):  # scikit-learn's jaccard_score refuses nan: the hand form
            k = lab or list(range(m))
            theirs = reference_average(num[k], den[k], support[k], average, zero_division)
        else:
            theirs = skm.jaccard_score(y_true, y_pred, labels=lab or list(range(m)), **kw)
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, equal_nan=True)
    if zero_division == 0.0 and average is not None:
        name = {"micro": "micro_jaccard", "macro": "macro_jaccard", "weighted": "weighted_jaccard"}
        theirs = skm.jaccard_score(y_true, y_pred, labels=list(range(m)), average=average)
        np.testing.assert_allclose(METRICS[name[average]](table), theirs, rtol=1e-12)


@pytest.mark.parametrize("pos_label", [0, 1])
def test_binary_jaccard_against_sklearn(pos_label):
    table = np.array([[50, 7], [12, 31]])
    y_true, y_pred = predictions_from_table(table)
    assert float(jaccard(table, average="binary", pos_label=pos_label)) == pytest.approx(
        skm.jaccard_score(y_true, y_pred, pos_label=pos_label), rel=1e-12
    )


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True)
@given(
    table=tables_of(),
    average=st.sampled_from(["micro", "macro", "weighted", None]),
    zero_division=st.sampled_from([0.0, 1.0, np.nan]),
)
def test_one_vs_rest_rates_against_multilabel_confusion_matrix(table, average, zero_division):
    for name, fn in RATES.items():
        num, den, support = ovr_reference(table, name)
        expected = reference_average(num, den, support, average, zero_division)
        got = fn(table, average=average, zero_division=zero_division)
        np.testing.assert_allclose(got, expected, rtol=1e-12, equal_nan=True, err_msg=name)
        if average in ("macro", None) and zero_division == 0.0 and name != "jaccard":
            key = name if average is None else f"macro_{name}"
            np.testing.assert_allclose(METRICS[key](table), expected, rtol=1e-12, err_msg=key)


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True)
@given(table=tables_of(2, 2, 8))
def test_likelihood_ratios_against_sklearn(table):
    y_true, y_pred = predictions_from_table(table)
    theirs = quiet(skm.class_likelihood_ratios, y_true, y_pred, labels=[0, 1])
    ours = quiet(likelihood_ratios, table, average="binary")
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, equal_nan=True)
    # per class: class 1's values are the binary ones
    np.testing.assert_allclose(
        quiet(METRICS["positive_likelihood_ratio"], table)[1], theirs[0], rtol=1e-12, equal_nan=True
    )
    np.testing.assert_allclose(
        quiet(METRICS["negative_likelihood_ratio"], table)[1], theirs[1], rtol=1e-12, equal_nan=True
    )
    (tn, fp), (fn, tp) = table
    dor = tp * tn / (fp * fn) if fp * fn > 0 else np.nan  # the textbook cross-product ratio
    np.testing.assert_allclose(diagnostic_odds_ratio(table, average="binary"), dor, rtol=1e-12)
    np.testing.assert_allclose(METRICS["diagnostic_odds_ratio"](table), [dor, dor], rtol=1e-12)
    with np.errstate(divide="ignore"):
        log_dor = np.log(dor)
    np.testing.assert_allclose(METRICS["log_diagnostic_odds_ratio"](table)[1], log_dor, rtol=1e-12)


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True)
@given(table=tables_of(2, 5, 8))
def test_p4_informedness_markedness_against_their_definitions(table):
    """P4 as Sitarz's harmonic mean of four scikit-learn scores; J and markedness per class."""
    y_true, y_pred = predictions_from_table(table)
    m = table.shape[0]
    labels = list(range(m))
    mcm = skm.multilabel_confusion_matrix(y_true, y_pred, labels=labels).astype(float)
    tn, fp, fn, tp = mcm[:, 0, 0], mcm[:, 0, 1], mcm[:, 1, 0], mcm[:, 1, 1]
    kw = {"labels": labels, "average": None, "zero_division": np.nan}
    prec = quiet(skm.precision_score, y_true, y_pred, **kw)
    rec = quiet(skm.recall_score, y_true, y_pred, **kw)
    with np.errstate(divide="ignore", invalid="ignore"):
        spec, npv_ = tn / (tn + fp), tn / (tn + fn)
        p4_ = 4.0 / (1 / prec + 1 / rec + 1 / spec + 1 / npv_)
    ours = p4(table, average=None, zero_division=np.nan)
    defined = np.isfinite(p4_) & (p4_ > 0)  # the paper's form where all four scores are > 0
    np.testing.assert_allclose(ours[defined], p4_[defined], rtol=1e-12)
    assert np.all(ours[(tp == 0) & (tn > 0) & (fp + fn > 0)] == 0)  # the limit with tp = 0
    j = informedness(table, average=None, zero_division=np.nan)
    np.testing.assert_allclose(j, rec + spec - 1, rtol=1e-12, atol=1e-15, equal_nan=True)
    mk = markedness(table, average=None, zero_division=np.nan)
    np.testing.assert_allclose(mk, prec + npv_ - 1, rtol=1e-12, atol=1e-15, equal_nan=True)
    if np.all(np.isfinite(j)):
        np.testing.assert_allclose(METRICS["informedness"](table), j.mean(), rtol=1e-12, atol=1e-15)
    if m == 2 and np.all(table.sum(axis=1) > 0):  # binary J = adjusted balanced accuracy
        adjusted = quiet(skm.balanced_accuracy_score, y_true, y_pred, adjusted=True)
        assert float(informedness(table)) == pytest.approx(adjusted, abs=1e-12)
        assert j[0] == pytest.approx(j[1], abs=1e-12)  # symmetric in the two classes


def test_p4_closed_form_example_and_symmetry():
    table = np.array([[30.0, 5.0], [10.0, 55.0]])
    tn, fp, fn, tp = 30.0, 5.0, 10.0, 55.0
    prec, rec, spec, npv = tp / (tp + fp), tp / (tp + fn), tn / (tn + fp), tn / (tn + fn)
    expected = 4 / (1 / prec + 1 / rec + 1 / spec + 1 / npv)
    assert float(p4(table, average="binary")) == pytest.approx(expected, rel=1e-13)
    assert float(p4(table, average="binary", pos_label=0)) == pytest.approx(expected)
    assert float(METRICS["p4"](table)) == pytest.approx(expected, rel=1e-13)


def test_zero_division_warns_and_nan_classes_leave_the_average():
    table = np.array([[3, 0, 0], [2, 0, 0], [0, 0, 0]])  # class 2: no document, no prediction
    with pytest.warns(UndefinedMetricWarning, match="Jaccard is ill-defined"):
        assert jaccard(table, average=None)[2] == 0.0
    # class 1: jaccard 0/(0+0+2) = 0, class 0: 3/5; class 2 (0/0, NaN) is left out
    assert float(jaccard(table, zero_division=np.nan)) == pytest.approx(0.3)
    assert float(mcc(np.diag([4.0, 0.0]))) == 0.0  # scikit-learn's 0/0 value
    assert np.isnan(cohen_kappa(np.diag([4.0, 0.0])))  # scikit-learn's NaN
    assert np.isnan(METRICS["positive_likelihood_ratio"](np.diag([4.0, 6.0]))).all()  # fp = 0


def test_safe_divide_is_the_one_divide():
    with pytest.warns(UndefinedMetricWarning, match="Thing is ill-defined"):
        out = safe_divide(np.array([1.0, 0.0]), np.array([2.0, 0.0]), "warn", "Thing")
    np.testing.assert_array_equal(out, [0.5, 0.0])
    np.testing.assert_array_equal(safe_divide(np.ones(2), np.array([4.0, 0.0]), 1.0), [0.25, 1.0])


# --- the same function on draws: shapes, stacks, finiteness ---------------------------------


@pytest.mark.parametrize("m", [2, 3, 5])
def test_stack_of_draws_equals_the_loop_over_tables(m):
    p = np.random.default_rng(m).dirichlet(np.ones(m * m), size=(6, 7)).reshape(6, 7, m, m)
    for name in NEW:
        fn = METRICS[name]
        stacked = fn(p)
        shape = (6, 7, m) if name in PER_CLASS_METRICS else (6, 7)
        assert stacked.shape == shape, name
        loop = np.array([[fn(p[i, j]) for j in range(7)] for i in range(6)])
        np.testing.assert_allclose(stacked, loop, rtol=1e-13, atol=0, err_msg=name)
    for fn in (*RATES.values(), p4, informedness, markedness):
        loop = np.array([[fn(p[i, j], average="weighted") for j in range(7)] for i in range(6)])
        np.testing.assert_allclose(fn(p, average="weighted"), loop, rtol=1e-13)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("counts", [[[10, 0], [0, 0]], [[10, 0, 0], [0, 0, 0], [3, 0, 5]]])
@pytest.mark.parametrize(("alpha", "beta"), [(1e-6, 1e-6), (1e-6, 1.0), (1.0, 1e-6)])
def test_draws_stay_finite_and_in_range_at_the_sampler_floors(dtype, counts, alpha, beta):
    """Priors whose Gamma draws underflow: cells at ``tiny``, prevalences at its square root."""
    p = sample_posterior(np.array(counts), draws=4000, alpha=alpha, beta=beta, rng=5, dtype=dtype)
    for name in NEW:
        v = METRICS[name](p)
        lo, hi = METRIC_RANGES[name]
        assert v.dtype == dtype, name
        assert np.all(np.isfinite(v)), name
        assert np.all((v >= lo) & (v <= hi)), name


def test_odds_ratio_saturates_and_its_log_stays_exact():
    """Both off-diagonal cells at the floor: DOR > float max is returned as float max."""
    tiny = np.finfo(float).tiny
    table = np.array([[0.5, tiny], [tiny, 0.5]])
    assert METRICS["diagnostic_odds_ratio"](table)[1] == np.finfo(float).max
    assert METRICS["log_diagnostic_odds_ratio"](table)[1] == pytest.approx(
        2 * np.log(0.5) - 2 * np.log(tiny), rel=1e-14
    )
    assert np.isfinite(METRICS["positive_likelihood_ratio"](table)).all()  # <= 1 / tiny


def test_eti_of_odds_ratio_is_exp_of_eti_of_log_odds_ratio():
    """The documented summary: quantiles commute with log, so summarise on either scale."""
    res = evaluate(
        [[40, 3], [6, 20]],
        metrics=["diagnostic_odds_ratio", "log_diagnostic_odds_ratio"],
        draws=20_000,
        rng=3,
    )
    eti, log_eti = (
        np.asarray(res["diagnostic_odds_ratio"].eti),
        res["log_diagnostic_odds_ratio"].eti,
    )
    # equal up to the linear interpolation between two adjacent order statistics, which
    # differs on the two scales by a fraction of their gap (~1e-8 relative at 20,000 draws)
    np.testing.assert_allclose(np.log(eti), np.asarray(log_eti), rtol=1e-6)
    # the ratio's right tail: its mean is above exp(mean log), its median equals exp(median log)
    assert res["diagnostic_odds_ratio"].mean[1] > np.exp(res["log_diagnostic_odds_ratio"].mean[1])
    np.testing.assert_allclose(
        np.log(res["diagnostic_odds_ratio"].median),
        res["log_diagnostic_odds_ratio"].median,
        rtol=1e-6,
    )


# --- posterior: a new metric against an exact posterior -------------------------------------


def test_specificity_posterior_is_the_exact_beta_of_the_negative_row():
    """2 x 2, class 1 positive: specificity = theta_00 ~ Beta(a_00 + c_00, a_01 + c_01).

    The default prior's rows are Jeffreys' (0.5, 0.5) for M = 2. KS test of 20,000 draws:
    under the null p < 0.001 with probability 0.001 (a fixed seed, so the test is
    deterministic). Negative control: the Beta without the prior (Haldane) is rejected.
    """
    counts = np.array([[18, 2], [5, 25]])
    res = evaluate(counts, metrics=["specificity"], draws=20_000, rng=11, keep_draws=True)
    x = res.metric_draws["specificity"][1]
    assert ss.kstest(x, ss.beta(18.5, 2.5).cdf).pvalue > 1e-3
    assert ss.kstest(x, ss.beta(18, 2).cdf).pvalue < 1e-3  # negative control
    # mean within 4 MC standard errors of the exact mean
    assert abs(res["specificity"].mean[1] - 18.5 / 21) < 4 * res["specificity"].mc_error[1]


def test_prior_shift_works_for_a_new_metric():
    """The flag is generic (|mean - score| / sd): a strong prior on 6 documents dominates MCC."""
    small = evaluate([[3, 0], [1, 2]], metrics=["mcc"], alpha=50.0, draws=4000, rng=1)
    assert small["mcc"].prior_dominated and small["mcc"].prior_shift > 1
    big = evaluate([[300, 20], [40, 250]], metrics=["mcc"], draws=4000, rng=1)
    assert not big["mcc"].prior_dominated and big["mcc"].prior_shift < 0.5


# --- every path: evaluate, gate, command line -----------------------------------------------


def test_evaluate_accepts_every_new_metric():
    table = np.array([[40, 5, 2], [3, 30, 6], [1, 4, 25]])
    res = evaluate(table, metrics=NEW, draws=2000, rng=0)
    for name in NEW:
        s = res[name]
        assert np.shape(s.mean) == ((3,) if name in PER_CLASS_METRICS else ()), name
        np.testing.assert_allclose(s.score, METRICS[name](table.astype(float)), err_msg=name)
        lo, hi = np.asarray(s.hdi)[..., 0], np.asarray(s.hdi)[..., 1]
        assert np.all(lo <= s.median) and np.all(s.median <= hi), name
    y_true, y_pred = predictions_from_table(table)
    assert res["mcc"].score == pytest.approx(skm.matthews_corrcoef(y_true, y_pred))


def test_gate_accepts_new_metrics():
    counts = np.array([[90, 10], [8, 92]])
    res = gate(
        counts, [Floor("mcc", 0.5), Floor("specificity", 0.6), Floor("p4", 0.7)], draws=4000, rng=0
    )
    assert res.passed
    res = gate(counts, [Floor("balanced_accuracy", 0.99)], draws=4000, rng=0)
    assert not res.passed


def test_command_line_summarize_and_gate_accept_new_metrics(tmp_path, capsys):
    f = tmp_path / "m.json"
    f.write_text(json.dumps([[40, 10], [5, 45]]))
    args = ["summarize", str(f), "--format", "json", "--draws", "2000", "--seed", "1"]
    code = main([*args, "--metric", "mcc", "--metric", "jaccard", "--metric", "cohen_kappa"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    y_true, y_pred = predictions_from_table(np.array([[40, 10], [5, 45]]))
    assert out["metrics"]["mcc"]["score"] == pytest.approx(skm.matthews_corrcoef(y_true, y_pred))
    assert out["metrics"]["cohen_kappa"]["score"] == pytest.approx(
        skm.cohen_kappa_score(y_true, y_pred)
    )
    assert len(out["metrics"]["jaccard"]["mean"]) == 2
    code = main(["gate", str(f), "--metric", "informedness", "--min", "0.4", "--draws", "4000"])
    assert code == 0, capsys.readouterr()
    code = main(["gate", str(f), "--metric", "informedness", "--min", "0.9", "--draws", "4000"])
    assert code == 1


# --- errors: one pytest.raises(match=) per message ------------------------------------------


def test_error_composite_has_no_micro():
    with pytest.raises(ValueError, match=r"average must be one of 'macro', .*; got 'micro'"):
        p4(np.eye(3), average="micro")


def test_error_ratio_averages():
    with pytest.raises(ValueError, match=r"average must be one of None, 'binary'; got 'macro'"):
        likelihood_ratios(np.eye(2), average="macro")


def test_error_balanced_adjusted_not_bool():
    with pytest.raises(TypeError, match=r"adjusted must be True or False; got 1"):
        balanced_accuracy(np.eye(2), adjusted=1)


def test_error_log_not_bool():
    with pytest.raises(TypeError, match=r"log must be True or False; got 'yes'"):
        diagnostic_odds_ratio(np.eye(2), log="yes")


def test_error_kappa_weights():
    with pytest.raises(ValueError, match=r"weights must be one of .*'linear'.*got 'cubic'"):
        cohen_kappa(np.eye(2), weights="cubic")


def test_error_unknown_metric_lists_new_names():
    with pytest.raises(
        ValueError, match=r"metrics must name known metrics \(.*mcc.*\) or be callables.*got 'mc'"
    ):
        evaluate(np.eye(2) + 1, metrics=["mc"])


# --- multi-label: the multi-class functions on (..., L, 2, 2) stacks ------------------------


def test_multilabel_metrics_are_the_multiclass_functions_of_each_label():
    from f1posterior.metrics import f1, fbeta, precision, recall
    from f1posterior.posterior._multilabel import multilabel_scores

    stack = np.array([[[50, 3], [7, 40]], [[80, 12], [2, 6]], [[95, 0], [5, 0]]], dtype=float)
    s = multilabel_scores(
        stack, metrics=["f1", "fbeta", "precision", "recall", "jaccard"], f_beta=2
    )
    kw = {"average": "binary", "zero_division": 0.0}
    for name, fn in [
        ("f1", f1),
        ("precision", precision),
        ("recall", recall),
        ("jaccard", jaccard),
    ]:
        np.testing.assert_array_equal(s[name], [fn(t, **kw) for t in stack], err_msg=name)
    np.testing.assert_array_equal(s["fbeta"], [fbeta(t, beta=2.0, **kw) for t in stack])
    # micro = the same function of the pooled table
    micro = multilabel_scores(stack, metrics=["micro_f1", "micro_jaccard"])
    assert float(micro["micro_f1"]) == float(f1(stack.sum(0), **kw))
    assert float(micro["micro_jaccard"]) == float(jaccard(stack.sum(0), **kw))


def test_docs_metrics_example_runs():
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "metrics.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 1
    for code in blocks:
        exec(compile(code, "docs/metrics.md", "exec"), {})


def test_one_vs_rest_true_negatives_stay_exact_for_a_dominant_class():
    """tn of a class holding nearly all the mass: summed, not cancelled (total - row - col)."""
    from f1posterior.metrics._sums import one_vs_rest

    e = 1e-300
    table = np.array([[1.0, e, e], [e, e, e], [e, 2 * e, e]])
    tp, fp, fn, tn = one_vs_rest(table)
    assert (table.sum() - tp - fn - fp)[0] < 0  # what subtraction gives: -4e-300 (control)
    assert tn[0] == pytest.approx(5 * e, rel=1e-15)
    assert tn[1] == pytest.approx(1.0 + 3 * e, rel=1e-15)
    np.testing.assert_allclose(fp, [2 * e, 3 * e, 2 * e], rtol=1e-15)
    assert float(specificity(table, average=None)[0]) == pytest.approx(5 / 7, rel=1e-14)
