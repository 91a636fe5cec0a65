"""HDI and equal-tailed intervals against brute force, and their properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from f1posterior import MetricSummary, eti, hdi, summarize_draws


def brute_hdi(x: np.ndarray, prob: float) -> tuple[float, float]:
    """Every window of ceil(prob * n) consecutive order statistics; the narrowest."""
    s = np.sort(x)
    n = s.size
    k = min(n, max(1, math.ceil(prob * n - 1e-9)))
    best = min(range(n - k + 1), key=lambda i: (s[i + k - 1] - s[i], i))
    return s[best], s[best + k - 1]


finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(x=arrays(np.float64, st.integers(1, 60), elements=finite), prob=st.floats(0.05, 0.99))
def test_hdi_equals_brute_force(x, prob):
    lo, hi = hdi(x, prob)
    blo, bhi = brute_hdi(x, prob)
    assert hi - lo == pytest.approx(bhi - blo, abs=1e-9)
    inside = np.mean((x >= lo) & (x <= hi))
    assert inside >= prob - 1e-12


@settings(max_examples=100, deadline=None, derandomize=True)
@given(
    x=arrays(np.float64, st.integers(2, 300), elements=st.floats(0, 1)), prob=st.floats(0.5, 0.99)
)
def test_hdi_no_wider_than_eti_holds_prob(x, prob):
    """The HDI is the shortest interval holding prob of the draws: no wider than the
    equal-tailed interval whenever that holds prob too (an interpolated ETI of a small
    sample with ties may hold less, and may then be narrower)."""
    h, e = hdi(x, prob), eti(x, prob)
    assert np.mean((x >= h[0]) & (x <= h[1])) >= prob - 1e-12
    if np.mean((x >= e[0]) & (x <= e[1])) >= prob:
        assert h[1] - h[0] <= e[1] - e[0] + 1e-12


def test_hdi_vectorised_equals_loop_and_axis():
    rng = np.random.default_rng(0)
    x = rng.gamma(2.0, size=(3, 4, 1001))
    out = hdi(x, 0.9)
    assert out.shape == (3, 4, 2)
    for idx in np.ndindex(3, 4):
        np.testing.assert_array_equal(out[idx], brute_hdi(x[idx], 0.9))
    np.testing.assert_array_equal(hdi(np.moveaxis(x, -1, 0), 0.9, axis=0), out)


def test_hdi_of_a_skewed_distribution_is_shifted_towards_the_mode():
    rng = np.random.default_rng(1)
    x = rng.exponential(size=200_000)
    lo, hi = hdi(x, 0.95)
    # exact HDI of Exp(1) is [0, -log(0.05)]
    assert lo == pytest.approx(0.0, abs=1e-3)
    assert hi == pytest.approx(-np.log(0.05), rel=0.01)


def test_eti_matches_numpy_quantile():
    x = np.random.default_rng(2).normal(size=(5, 999))
    np.testing.assert_allclose(eti(x, 0.8), np.moveaxis(np.quantile(x, [0.1, 0.9], axis=-1), 0, -1))


def test_summarize_draws_fields():
    x = np.random.default_rng(3).beta(20, 5, size=(2, 40_000))
    s = summarize_draws(x, score=np.array([0.8, 0.81]), ref=0.8, ci_prob=0.9)
    np.testing.assert_allclose(s.mean, x.mean(-1))
    np.testing.assert_allclose(s.std, x.std(-1, ddof=1))
    np.testing.assert_allclose(s.mc_error, x.std(-1, ddof=1) / 200)
    np.testing.assert_allclose(s.p_below + s.p_above, 1.0)
    np.testing.assert_allclose(s.p_below, (x < 0.8).mean(-1))
    assert s.hdi.shape == (2, 2) and s.eti.shape == (2, 2)
    assert s.draws == 40_000 and s.ci_prob == 0.9 and not s.exact


def test_error_prob_outside_unit_interval():
    with pytest.raises(ValueError, match=r"prob must be in the open interval \(0, 1\); got 1.5"):
        hdi(np.arange(10.0), 1.5)


def test_error_nan_draws():
    with pytest.raises(ValueError, match="x must not contain NaN"):
        hdi(np.array([0.1, np.nan]), 0.5)


def test_error_no_draws():
    with pytest.raises(ValueError, match="x must hold at least one draw along axis -1"):
        hdi(np.zeros((3, 0)), 0.5)


def test_error_bad_axis():
    with pytest.raises(ValueError, match=r"axis must be in \[-2, 2\); got 5"):
        hdi(np.zeros((3, 4)), 0.5, axis=5)


def test_error_hdi_prob_type():
    with pytest.raises(TypeError, match=r"ci_prob must be a number in the open interval"):
        summarize_draws(np.zeros(4), ci_prob="0.9")


def test_text_and_markdown_tables_escape_hostile_class_labels():
    """Class labels come from files: one line each in text, literal in Markdown."""
    from f1posterior import evaluate
    from f1posterior.posterior._table import format_markdown

    res = evaluate([[5, 1], [2, 7]], metrics="f1", labels=["a\nb", "c|<script>"], draws=500, rng=0)
    text = str(res)
    assert "class a\\nb]" in text and len(text.splitlines()) == 4  # header, head, 2 rows
    md = format_markdown(res)
    assert "a\\\\nb" in md and "c\\|&lt;script&gt;" in md and "<script>" not in md
    assert all(line.startswith("|") for line in md.splitlines()[:4])


def test_indexing_keeps_every_field_with_its_type():
    """``summary[i]`` (the one indexer, used by the plots) keeps every field, the chance
    and prior-check fields included, as Python floats and bools."""
    from f1posterior import evaluate

    c = np.array([[[30, 4, 1], [2, 25, 3], [0, 5, 20]], [[8, 2, 0], [1, 0, 1], [0, 1, 9]]])
    res = evaluate(c, metrics=["micro_f1", "f1"], draws=800, rng=3, ref=0.5, chance=True)
    for name, index in (("micro_f1", 1), ("f1", (1, 1))):
        s = res[name]
        one = s[index]
        for field in s.to_dict():
            want = getattr(s, field)
            got = getattr(one, field)
            if field in ("ci_prob", "ref", "draws", "exact") or want is None:
                assert got == want, field
                continue
            np.testing.assert_array_equal(got, np.asarray(want)[index], err_msg=field)
            assert isinstance(got, float | bool | np.ndarray), field
        assert type(one.prior_dominated) is bool and type(one.mean) is float
        assert one.p_above_chance is not None and one.chance_score is not None
    assert res["f1"].prior_dominated[1, 1]  # two documents: the prior dominates (a control)
    with pytest.raises(IndexError, match="cannot be indexed"):
        res["micro_f1"][0][0]


def test_concat_joins_flat_parts_into_any_leading_shape():
    x = np.random.default_rng(0).beta(5, 5, size=(6, 500))
    whole = summarize_draws(x.reshape(2, 3, 500), score=np.zeros((2, 3)), ref=0.5)
    parts = [summarize_draws(x[i:j], score=np.zeros(j - i), ref=0.5) for i, j in ((0, 4), (4, 6))]
    joined = MetricSummary.concat(parts, (2, 3))
    for field, value in whole.to_dict().items():
        np.testing.assert_array_equal(getattr(joined, field), value, err_msg=field)
