"""evaluate(..., chance=True): each metric against a classifier guessing at the same rates."""

from __future__ import annotations

import math

import numpy as np
import pytest

from f1posterior import evaluate, sample_posterior
from f1posterior.posterior._chance import chance_table

C = np.array([[30, 4, 2], [6, 25, 5], [1, 3, 40]])


def test_accuracy_chance_level_is_sum_of_rate_products_per_draw():
    # the same cell draws as sample_posterior (same seed): per draw, the chance level of
    # accuracy is sum_u r_u k_u (row sums r, column sums k); the summary is its mean,
    # and p_above_chance counts the draws where accuracy exceeds it
    n = 3000
    res = evaluate(C, metrics=("accuracy", "macro_f1"), draws=n, rng=9, chance=True)
    p = sample_posterior(C, draws=n, rng=9)
    r, k = p.sum(axis=-1), p.sum(axis=-2)
    level = (r * k).sum(axis=-1)
    acc = np.trace(p, axis1=-2, axis2=-1)
    s = res["accuracy"]
    assert s.chance == pytest.approx(level.mean(), rel=1e-12)
    assert s.p_above_chance == np.count_nonzero(acc > level) / n
    rows, cols = C.sum(axis=1), C.sum(axis=0)
    assert s.chance_score == pytest.approx((rows * cols).sum() / C.sum() ** 2, rel=1e-12)


def test_precision_chance_level_is_the_prevalence():
    # precision_j of the chance table r_u k_v is r_j k_j / k_j = r_j: its posterior mean
    # is E[mu_j] (sampled), and the observed one is n_j / N exactly
    res = evaluate(C, metrics="precision", draws=20_000, rng=2, chance=True)
    p = sample_posterior(C, draws=20_000, rng=2)
    np.testing.assert_allclose(res["precision"].chance, p.sum(axis=-1).mean(axis=0), rtol=1e-10)
    np.testing.assert_allclose(res["precision"].chance_score, C.sum(axis=1) / C.sum())


def test_chance_at_a_target_prevalence():
    # at a fixed prevalence pi, precision's chance level is pi itself, draw by draw
    pi = [0.7, 0.2, 0.1]
    res = evaluate(C, metrics="precision", draws=2000, rng=2, chance=True, prevalence=pi)
    np.testing.assert_allclose(res["precision"].chance, pi, rtol=1e-10)
    np.testing.assert_allclose(res["precision"].chance_score, pi, rtol=1e-12)


def _random_table(g, n, prevalence, rates):
    y = g.choice(len(prevalence), size=n, p=prevalence)
    yhat = g.choice(len(rates), size=n, p=rates)  # independent of the truth
    return np.bincount(y * len(rates) + yhat, minlength=len(rates) ** 2).reshape(len(rates), -1)


def test_random_classifier_is_at_chance_and_good_one_above():
    # negative control: predictions independent of the truth. p_above_chance is then
    # about uniform: over 60 tables its mean is 0.5 within 4 standard errors
    # (sd of a uniform 0.289 / sqrt(60) = 0.037), and it is rarely near 0 or 1
    g = np.random.default_rng(2015)
    tables = np.stack([_random_table(g, 300, [0.5, 0.3, 0.2], [0.4, 0.4, 0.2]) for _ in range(60)])
    res = evaluate(tables, metrics=("accuracy", "macro_f1"), draws=2000, rng=1, chance=True)
    for name in ("accuracy", "macro_f1"):
        p = np.asarray(res[name].p_above_chance)
        assert abs(p.mean() - 0.5) < 4 * 0.289 / math.sqrt(60), name
        assert np.mean((p > 0.99) | (p < 0.01)) < 0.15, name
    good = evaluate(C, metrics=("accuracy", "macro_f1", "f1"), draws=2000, rng=1, chance=True)
    for s in good.values():
        assert np.all(np.asarray(s.p_above_chance) == 1.0)


def test_default_is_off_and_outputs_unchanged():
    plain = evaluate(C, metrics=("accuracy", "f1"), draws=1000, rng=1)
    assert plain["accuracy"].p_above_chance is None and not plain.chance
    assert "chance" not in plain["accuracy"].to_dict() and "chance" not in plain.to_dict()
    on = evaluate(C, metrics=("accuracy", "f1"), draws=1000, rng=1, chance=True)
    d = on["f1"].to_dict()
    assert {"chance", "chance_score", "p_above_chance"} <= set(d) and on.to_dict()["chance"]
    assert "P(> chance)" in str(on)
    # the metric's own summary is not changed by the baseline (the same draws)
    for key in ("mean", "std", "hdi", "eti"):
        np.testing.assert_array_equal(getattr(on["f1"], key), getattr(plain["f1"], key))


def test_chance_summaries_are_batch_shaped_and_reproducible():
    batch = np.stack([C, C.T, C + 3, 2 * C])
    kw = dict(metrics=("macro_f1", "recall"), draws=3000, rng=4, chance=True)
    a = evaluate(batch, workers=1, **kw)
    b = evaluate(batch, workers=2, max_memory=3 << 20, **kw)
    assert a == b
    assert np.shape(a["recall"].p_above_chance) == (4, 3)
    assert np.shape(a["macro_f1"].chance) == (4,)


def test_chance_table():
    t = chance_table(np.array([[8.0, 2.0], [10.0, 30.0]]))
    np.testing.assert_allclose(t.sum(axis=1), [10, 40])
    np.testing.assert_allclose(t.sum(axis=0), [18, 32])
    np.testing.assert_allclose(t[0, 0] * t[1, 1], t[0, 1] * t[1, 0])  # independence


def test_bad_chance_flag():
    with pytest.raises(TypeError, match=r"chance must be True or False; got 'yes'"):
        evaluate(C, draws=100, chance="yes")


def test_dataframe_columns():
    pytest.importorskip("pandas")
    res = evaluate(np.stack([C, C.T]), metrics=("accuracy", "recall"), draws=1000, rng=1,
                   chance=True, names=["a", "b"])  # fmt: skip
    long = res.to_dataframe()
    assert {"chance", "chance_score", "p_above_chance"} <= set(long.columns)
    acc = long[long.metric == "accuracy"]
    np.testing.assert_allclose(acc["chance"], res["accuracy"].chance)
    wide = res.to_dataframe(form="wide")
    np.testing.assert_allclose(wide["accuracy_p_above_chance"], res["accuracy"].p_above_chance)
    one = evaluate(C, metrics="accuracy", draws=1000, rng=1, chance=True).to_dataframe(form="wide")
    assert one["accuracy_chance"].shape == (1,)
    assert "chance" not in evaluate(C, draws=1000, rng=1).to_dataframe().columns


def test_markdown_and_memory_check():
    from f1posterior.posterior._table import format_markdown

    res = evaluate(
        C, metrics="accuracy", draws=1000, rng=1, chance=True, prevalence=[0.2, 0.3, 0.5]
    )
    md = format_markdown(res)
    assert "| chance | P(> chance) |" in md and "At target prevalence [0.2, 0.3, 0.5]." in md
    # the chance draws double the metric draws held: a budget that fits one run refuses both
    kw = dict(metrics=("f1",), draws=200_000, max_memory=31 << 20)
    evaluate(C, rng=1, **kw)
    with pytest.raises(ValueError, match=r"evaluate: one matrix of M = 3 classes at 200,000"):
        evaluate(C, rng=1, chance=True, **kw)
