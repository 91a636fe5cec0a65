"""The paired model is honest with few disagreements and unbiased with many.

Regression tests of the paired model's prior (``docs/compare.md``, "The paired model's
prior"), each against an independent truth:

- few disagreements: the exact Beta answer of the paired accuracy comparison under an
  aligned beta, and bounds under the default beta; negative control: the concordant
  prior (no prior mass on disagreements), which claims certainty;
- identical predictions in the gate: INCONCLUSIVE at max_drop 0 (as for two tables), with
  an HDI of the difference that narrows as 1/N;
- calibration from known paired truths (fast version of benchmarks/paired_calibration.py):
  test sets drawn from a joint distribution of (true, A, B) with a known difference;
  95% HDI coverage and the non-inferiority gate's false FAIL / false PASS rates, within
  3.5 binomial standard errors of their targets; the posterior mean of a real difference
  within a few percent of the observed one.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from f1posterior import NonInferiority, compare_predictions
from f1posterior.gating._gate import gate
from f1posterior.metrics._registry import METRICS

K = 5.0  # Monte Carlo standard errors of a sampled probability
Z = 3.5  # binomial standard errors of a simulated rate


def one_off(n_docs: int, n_disagree: int, m: int = 3) -> tuple[np.ndarray, ...]:
    """M classes, ``n_docs`` documents; A is always right, B wrong on ``n_disagree``."""
    y = np.repeat(np.arange(m), n_docs // m)
    b = y.copy()
    b[:n_disagree] = 1
    return y, y.copy(), b


def concordant(m: int) -> np.ndarray:
    """The former concordant prior as a joint (M, M^2) array: 1 on (t, u, u), ~0 elsewhere."""
    a = np.full((m, m, m), 1e-12)
    for u in range(m):
        a[:, u, u] = 1.0
    return a.reshape(m, m * m)


# ---------------------------------------------------------------- few disagreements


@pytest.mark.parametrize("n_disagree", [1, 2, 3])
def test_few_disagreements_are_not_certainty(n_disagree):
    """One to three documents in 1,200 where only A is right. With beta aligned the answer
    is exact: the prior puts one pseudo-document on "A right, B wrong" and one on the
    reverse, so P(A better) = P(Beta(d + 1, 1) > 1/2) = 1 - 2^-(d + 1), whatever M."""
    y, a, b = one_off(1200, n_disagree)
    n = 40_000
    exact = 1 - 0.5 ** (n_disagree + 1)
    aligned = compare_predictions(y, a, b, metric="micro_f1", beta="aligned", draws=n, rng=1)
    assert abs(aligned.p_a_better - exact) < K * math.sqrt(exact * (1 - exact) / n)
    assert stats.beta.sf(0.5, n_disagree + 1, 1) == pytest.approx(exact)
    # the same with 10 classes: the prior's disagreement mass does not grow with M
    y10, a10, b10 = one_off(1200, n_disagree, m=10)
    ten = compare_predictions(y10, a10, b10, metric="micro_f1", beta="aligned", draws=n, rng=2)
    assert abs(ten.p_a_better - exact) < K * math.sqrt(exact * (1 - exact) / n)
    res = compare_predictions(y, a, b, metric="micro_f1", draws=n, rng=1)
    assert res.p_a_better < (0.8 if n_disagree == 1 else 0.95)
    assert res.decision == "undecided"
    # negative control: the concordant prior claims certainty from these documents
    old = compare_predictions(y, a, b, metric="micro_f1", alpha=concordant(3), draws=n, rng=1)
    assert old.p_a_better > 0.99


def test_one_disagreement_does_not_fail_the_gate():
    y, a, b = one_off(1200, 1)
    res = gate(checks=[NonInferiority("micro_f1")], y_true=y, y_pred=b, baseline_pred=a, rng=0)
    assert res.verdict == "inconclusive"
    (check,) = res.checks
    assert 0.05 < check.prob < 0.5


# -------------------------------------------------------------- identical predictions


def test_identical_predictions_are_inconclusive_with_a_width_that_reflects_n():
    widths = []
    for n_docs in (300, 1200):
        y = np.repeat([0, 1, 2], n_docs // 3)
        pred = np.where(np.arange(n_docs) % 10 == 0, (y + 1) % 3, y)  # 90% accuracy
        res = gate(
            checks=[NonInferiority("micro_f1")], y_true=y, y_pred=pred, baseline_pred=pred, rng=0
        )
        (check,) = res.checks
        assert check.verdict == "inconclusive" and check.score == 0.0
        assert abs(check.prob - 0.5) < 0.02
        widths.append(check.hdi[1] - check.hdi[0])
        # the same check on the two confusion matrices is also INCONCLUSIVE
        from f1posterior.metrics._confusion import confusion_matrix

        cm = confusion_matrix(y, pred).counts
        assert gate(cm, [NonInferiority("micro_f1")], baseline=cm, rng=0).verdict == "inconclusive"
    # no disagreement: the difference's spread comes from the prior's two pseudo-documents
    # of disagreement over N documents, so the width scales as 1/N (4x fewer at 4x N)
    assert 3.0 < widths[0] / widths[1] < 5.5
    # negative control: a new model right on 30 more documents passes
    y = np.repeat([0, 1, 2], 400)
    base = np.where(np.arange(1200) % 10 == 0, (y + 1) % 3, y)
    new = base.copy()
    new[np.flatnonzero(base != y)[:30]] = y[np.flatnonzero(base != y)[:30]]
    assert gate(checks=[NonInferiority("micro_f1")], y_true=y, y_pred=new, baseline_pred=base, rng=0).verdict == "pass"  # fmt: skip


# ------------------------------------------------------------ calibration by simulation


def rows(m: int, acc: float) -> np.ndarray:
    out = np.full((m, m), (1 - acc) / (m - 1))
    np.fill_diagonal(out, acc)
    return out


def joint(m: int, acc_a: float, acc_b: float, rho: float) -> np.ndarray:
    """p[t, a, b]: equal prevalences; B copies A with probability rho, else predicts from
    its own rows (benchmarks/paired_calibration.py)."""
    pa, pb = rows(m, acc_a), rows(m, acc_b)
    p = rho * np.einsum("ta,ab->tab", pa, np.eye(m)) + (1 - rho) * np.einsum("ta,tb->tab", pa, pb)
    return p / m


def simulate(p: np.ndarray, n: int, metric: str, sims: int, draws: int, alpha=None, seed=0):
    m = p.shape[0]
    fn = METRICS[metric]
    truth = float(fn(p.sum(axis=2)) - fn(p.sum(axis=1)))
    rng = np.random.default_rng(seed)
    cells = np.array(list(np.ndindex(m, m, m)))
    cover, probs, post, obs = 0, [], [], []
    kw = {} if alpha is None else {"alpha": alpha}
    for i in range(sims):
        t, a, b = cells[rng.choice(len(cells), size=n, p=p.ravel())].T
        r = compare_predictions(t, a, b, metric=metric, labels=list(range(m)), draws=draws,
                                rng=np.random.default_rng([seed, i]), **kw)  # fmt: skip
        lo, hi = r.difference.hdi
        cover += bool(lo <= truth <= hi)
        probs.append(r.draws)
        post.append(r.difference.mean)
        obs.append(r.difference.score)
    return truth, cover / sims, np.stack(probs), np.mean(post), np.mean(obs)


def se(p: float, sims: int) -> float:
    return math.sqrt(p * (1 - p) / sims)


def test_calibration_equal_models():
    """3 classes, equal models (truth 0), 300 documents, B copies A 80% of the time: 95% HDI
    coverage within Z binomial errors of 0.95; at max_drop 0 a calibrated posterior FAILs
    (P(diff >= 0) <= 0.05) about 5% of the time, at max_drop 0.01 far less."""
    sims = 300
    truth, cover, draws, _, _ = simulate(joint(3, 0.85, 0.85, 0.8), 300, "micro_f1", sims, 1000)
    assert truth == pytest.approx(0.0, abs=1e-12)
    assert abs(cover - 0.95) < Z * se(0.95, sims)
    fail0 = np.mean(np.mean(draws >= 0.0, axis=1) <= 0.05)
    fail1 = np.mean(np.mean(draws >= -0.01, axis=1) <= 0.05)
    assert fail0 <= 0.05 + Z * se(0.05, sims)
    assert fail1 <= fail0 and fail1 <= 0.05


def test_calibration_few_disagreements_and_negative_control():
    """~3 disagreements in 1,200 documents (B copies A 99% of the time), equal models: the
    default prior covers at least 0.93 and neither FAILs nor PASSes more than 5% (within Z
    binomial errors); the concordant prior covers far less and errs both ways."""
    sims = 200
    p = joint(3, 0.85, 0.85, 0.99)
    _, cover, draws, _, _ = simulate(p, 1200, "micro_f1", sims, 1000, seed=1)
    pr = np.mean(draws >= 0.0, axis=1)
    assert cover >= 0.93
    assert np.mean(pr <= 0.05) <= 0.05 + Z * se(0.05, sims)
    assert np.mean(pr >= 0.95) <= 0.05 + Z * se(0.05, sims)
    _, cover_old, draws_old, _, _ = simulate(p, 1200, "micro_f1", sims, 1000, concordant(3), 1)
    pr_old = np.mean(draws_old >= 0.0, axis=1)
    assert cover_old < 0.8
    assert np.mean(pr_old <= 0.05) > 0.1 and np.mean(pr_old >= 0.95) > 0.1


def test_false_pass_when_the_new_model_is_worse():
    """New model worse by 0.03 in accuracy (> max_drop 0.01): PASS (P(diff >= -0.01) >= 0.95)
    at most 5% of the time (within Z binomial errors), and the HDI covers the truth."""
    sims = 200
    truth, cover, draws, _, _ = simulate(joint(3, 0.80, 0.875, 0.6), 500, "micro_f1", sims,
                                         1000, seed=2)  # fmt: skip
    assert truth == pytest.approx(-0.03)
    assert np.mean(np.mean(draws >= -0.01, axis=1) >= 0.95) <= 0.05 + Z * se(0.05, sims)
    assert abs(cover - 0.95) < Z * se(0.95, sims)


@pytest.mark.parametrize("metric", ["micro_f1", "macro_f1"])
def test_many_disagreements_are_not_shrunk(metric):
    """10 classes, 360 documents, A better by 0.03 with many disagreements: the mean
    posterior mean of the difference is within 5% of the mean observed difference (the
    concordant prior shrank it by about 20%), and the HDI covers about 95%."""
    sims = 60
    p = joint(10, 0.95, 0.83, 0.75)
    truth, cover, _, post, obs = simulate(p, 360, metric, sims, 1000, seed=3)
    assert truth > 0.02
    assert abs(post / obs - 1) < 0.05
    assert cover >= 0.95 - Z * se(0.95, sims)
