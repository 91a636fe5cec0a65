"""Planning with common random numbers: nested future tables and a monotone curve.

Independent truths: the law of a prefix of a multinomial sequence (its mean
``n p`` and the nesting of counts), the pool-adjacent-violators fit on a hand
example, and a brute-force assurance (numpy's Dirichlet and multinomial, then
the gate itself on every simulated future table) at a few sizes of the curve.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from f1posterior import Floor, gate, plan
from f1posterior.gating._plan_result import CurvePoint
from f1posterior.gating._planning import _monotone, _Simulator

TABLE2 = [[45, 5], [8, 42]]
TABLE3 = [[40, 6, 4], [5, 38, 7], [3, 6, 41]]


def table10(right: int = 48, per_class: int = 54) -> np.ndarray:
    """Ten classes of 54 documents, errors on the next two classes (the CI engineer's case)."""
    c = np.zeros((10, 10), dtype=np.int64)
    for j in range(10):
        c[j, j] = right
        c[j, (j + 1) % 10] += (per_class - right) // 2
        c[j, (j + 2) % 10] += per_class - right - (per_class - right) // 2
    return c


def _simulator(counts, metric: str, threshold: float, s: int, seed: int) -> _Simulator:
    c = np.asarray(counts, dtype=np.int64)
    return _Simulator(c, None, metric, threshold, 0.0, 0.95, "every", s, 200, 8_000,
                      "hierarchical", "hierarchical", np.random.SeedSequence(seed))  # fmt: skip


# --- nested future documents ------------------------------------------------------------


def test_future_tables_are_nested_whatever_the_order_of_sizes() -> None:
    sim = _simulator(TABLE3, "macro_f1", 0.8, 400, 3)
    order = [800, 100, 3_000, 400, 250, 1_700, 50]  # growth, then sizes between drawn ones
    for n in order:
        sim._future(n)
    sizes = sorted(order)
    for a, b in zip(sizes, sizes[1:], strict=False):
        fa, fb = sim.futures[a][0], sim.futures[b][0]
        assert np.all(fa.sum(axis=-1) == a) and np.all(fb.sum(axis=-1) == b)
        assert np.all(fb - fa >= 0), (a, b)  # the first a documents are among the first b


@pytest.mark.parametrize("n", [250, 1_700])
def test_a_size_between_two_drawn_sizes_is_multinomial(n: int) -> None:
    # E[F_n | p] = n p for the bridge as for a fresh Mult(n, p): pooled over 2,000 simulations
    s = 2_000
    sim = _simulator(TABLE3, "macro_f1", 0.8, s, 5)
    for size in (100, 3_000, n):
        sim._future(size)
    p = sim.params[0]
    f = sim.futures[n][0]
    diff = (f - n * p).sum(axis=0)  # sum of S independent centred counts per cell
    sd = np.sqrt((n * p * (1 - p)).sum(axis=0))
    assert np.all(np.abs(diff) <= 4.5 * sd), diff / sd
    # negative control: the same check rejects the counts of the next drawn size up
    wrong = (sim.futures[3_000][0] - n * p).sum(axis=0)
    assert np.any(np.abs(wrong) > 4.5 * sd)


# --- the monotone fit ------------------------------------------------------------------


def test_isotonic_fit_on_a_hand_example() -> None:
    raw = {n: CurvePoint(n, a, 0.0) for n, a in [(0, 0.0), (10, 0.3), (20, 0.5), (40, 0.4),
                                                   (80, 0.6), (160, 0.58), (320, 0.5)]}  # fmt: skip
    fit = [p.assurance for p in _monotone(raw, 100)]
    assert fit == pytest.approx([0.0, 0.3, 0.45, 0.45, 0.56, 0.56, 0.56])
    assert [p.documents for p in _monotone(raw, 100)] == [0, 10, 20, 40, 80, 160, 320]


def test_common_random_numbers_keep_the_raw_curve_nearly_monotone() -> None:
    # the unfitted fractions of a fine grid of sizes: drops are a few simulations at most,
    # where independent streams per size move by their Monte Carlo error (~0.03)
    sim = _simulator(TABLE3, "macro_f1", 0.8, 300, 11)
    sizes = [1_000 + 40 * i for i in range(10)]  # 4% steps: the true curve rises by ~0.005
    raw = [sim.assurance(n).assurance for n in sizes]
    assert 0.1 < raw[0] <= raw[-1] < 0.9
    drops = [a - b for a, b in zip(raw, raw[1:], strict=False) if b < a]
    assert max(drops, default=0.0) <= 4 / 300, raw
    # negative control: independent simulations per size (a seed each) fall back further
    fresh = [_simulator(TABLE3, "macro_f1", 0.8, 300, 50 + i).assurance(n).assurance
             for i, n in enumerate(sizes)]  # fmt: skip
    assert max(a - b for a, b in zip(fresh, fresh[1:], strict=False)) > 4 / 300, fresh


# --- monotone curves from plan -----------------------------------------------------------

CASES = [
    (TABLE2, dict(metric="recall", threshold=0.8), [1, 7, 42]),  # exact per table
    (TABLE2, dict(metric="micro_f1", threshold=0.84), [2, 9]),  # sampled
    (TABLE3, dict(metric="macro_f1", threshold=0.8), [3, 8]),
    (table10(), dict(metric="macro_f1", threshold=0.88, simulations=100), [1]),
    (table10(), dict(metric="f1", threshold=0.85, simulations=100, require="overall"), [4]),
]


@pytest.mark.parametrize(("counts", "kw", "seeds"), CASES)
def test_curve_is_monotone_and_the_answer_is_its_first_crossing(counts, kw, seeds) -> None:
    kw = {"simulations": 200, **kw}
    for seed in seeds:
        res = plan(counts, rng=seed, **kw)
        assert res.current_verdict == "inconclusive"
        a = [p.assurance for p in res.curve]
        assert all(x <= y for x, y in zip(a, a[1:], strict=False)), (seed, a)
        assert [p.documents for p in res.curve] == sorted({p.documents for p in res.curve})
        first = next((p.documents for p in res.curve if p.assurance >= res.assurance), None)
        assert res.additional_documents == first
        if first is not None:  # refined: the size before the answer is within 10%
            before = max(p.documents for p in res.curve if p.documents < first)
            assert first <= 1.1 * before or first - before <= 1


# --- against brute force: the gate on simulated future test sets ------------------------


def _brute_force(counts, n: int, threshold: float, s: int, seed: int) -> float:
    """P(conclusive) of the gate (macro-F1 floor, alpha = 1, aligned) on n more documents."""
    rng = np.random.default_rng(seed)
    c = np.asarray(counts, dtype=np.int64)
    p = rng.dirichlet((1.0 + c).ravel(), size=s)  # the aligned posterior: one Dirichlet
    future = c + rng.multinomial(n, p).reshape(s, *c.shape)
    res = gate(future, [Floor("macro_f1", threshold)], alpha=1.0, beta="aligned",
               draws=2_000, max_draws=32_000, rng=seed)  # fmt: skip
    return float(np.mean([ch.verdict != "inconclusive" for ch in res.checks]))


def test_sampled_curve_matches_the_gate_on_simulated_test_sets() -> None:
    s_plan, s_brute = 400, 600
    res = plan(TABLE3, metric="macro_f1", threshold=0.8, alpha=1.0, beta="aligned",
               simulations=s_plan, rng=21)  # fmt: skip
    points = [p for p in res.curve if 0.15 <= p.assurance <= 0.9]
    assert len(points) >= 2
    for i, pt in enumerate(points[:3]):
        truth = _brute_force(TABLE3, pt.documents, 0.8, s_brute, 100 + i)
        var = truth * (1 - truth) * (1 / s_plan + 1 / s_brute)
        assert abs(pt.assurance - truth) <= 4 * math.sqrt(var) + 0.01, (pt, truth)
    # negative control: the same comparison rejects the truth at four times the size
    pt = points[0]
    truth = _brute_force(TABLE3, 4 * pt.documents, 0.8, s_brute, 99)
    var = truth * (1 - truth) * (1 / s_plan + 1 / s_brute)
    assert abs(pt.assurance - truth) > 4 * math.sqrt(var) + 0.01, (pt, truth)
