"""The FAIL side of JointFloor: a class must reach the shared FAIL bar, and the FAIL names it.

The probability ``P(some class < T)`` of the joint item is that of the smallest of
``J`` noisy posteriors: with every class at (or just above) the floor it reaches
``prob`` although no class is below. The joint item FAILs only when one class has
``P(class < T) >= 1 - (1 - prob) / J`` (the slice check's bar, one helper), so its
false FAIL rate stays at ``1 - prob``; the rule it replaced is the negative control.
Figures: benchmarks/jointfloor_calibration.py, docs/ci-gate.md.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from f1posterior import Floor, JointFloor, gate
from f1posterior.gating._checks import fail_bar
from f1posterior.gating._noise import noisy

FLOOR = 0.80


def _table(recalls: list[float], n: int = 300) -> np.ndarray:
    """Rows of ``n`` documents, ``round(r n)`` right, the errors split over the others."""
    m = len(recalls)
    t = np.zeros((m, m), dtype=int)
    for j, r in enumerate(recalls):
        right = round(r * n)
        wrong = np.full(m - 1, (n - right) // (m - 1))
        wrong[: (n - right) - wrong.sum()] += 1
        t[j] = np.insert(wrong, j, right)
    return t


def test_fail_bar_is_bonferroni() -> None:
    assert fail_bar(0.95, 1) == 0.95
    assert math.isclose(fail_bar(0.95, 5), 0.99)
    assert math.isclose(fail_bar(0.9, 10), 0.99)


def test_every_class_at_the_floor_is_not_a_fail() -> None:
    # ten classes, each observed exactly at the floor: P(every class >= T) is tiny, so the
    # old rule (FAIL at P(some class < T) >= prob) FAILed; no class is credibly below
    res = gate(_table([FLOOR] * 10), [JointFloor("recall", FLOOR)])
    (c,) = res.checks
    assert 1.0 - c.prob >= 0.95  # the negative control: the rule it replaced FAILs here
    assert c.verdict == "inconclusive"
    assert c.reason == f"FAIL needs a class with P(< 0.8) >= {fail_bar(0.95, 10):.4g}; none has"


def test_a_class_below_fails_and_is_named() -> None:
    labels = ["a", "b", "c", "d"]
    res = gate(_table([0.88, 0.70, 0.88, 0.88]), [JointFloor("recall", FLOOR)], labels=labels)
    (c,) = res.checks
    assert c.verdict == "fail" and res.verdict == "fail"
    assert c.reason.startswith("failed: class b (P(< 0.8) = ")
    assert "class a" not in c.reason


def test_the_bar_counts_the_judged_classes() -> None:
    # class b (0.76, 300 documents): P(b < 0.8) ~ 0.97, above the bar of 1 class left
    # judged by min_support (0.95) but below that of 3 judged classes (0.9833)
    t = _table([0.88, 0.76, 0.88])
    p_b = next(x.prob for x in gate(t, [Floor("recall", FLOOR)]).checks if x.item == "class 1")
    assert 0.95 < 1.0 - p_b < fail_bar(0.95, 3)
    assert gate(t, [JointFloor("recall", FLOOR)]).checks[0].verdict == "inconclusive"
    small = t.copy()
    small[[0, 2]] //= 20  # 15 documents: left out by min_support=100
    (c,) = gate(small, [JointFloor("recall", FLOOR, min_support=100)]).checks
    assert c.item == "every class with >= 100 true documents (1 of 3)"
    assert c.verdict == "fail" and c.reason.startswith("failed: class 1 ")


def test_a_class_at_its_bar_is_within_noise() -> None:
    # the joint column far from prob, one class's P(class < T) at its bar: drawn again
    n, bar = 10_000, fail_bar(0.95, 4)
    far = [[0.0, n, n, n, n], [0.0, n, n, n, (1 - bar) * n], [0.0, n, n, n, np.nan]]
    assert noisy(np.array(far), n, 0.95, np.full(3, bar), joint=True).tolist() == [
        False,
        True,
        False,
    ]
    # the same numbers, not flagged as joint rows: elementwise, never one row's verdict
    assert noisy(np.array(far)[:, :3], n, 0.95, np.full(3, bar)).shape == (3, 3)
    with pytest.raises(ValueError, match="joint rows need"):
        noisy(np.array(far)[0], n, 0.95, np.full(1, bar), joint=True)


def _false_fail(m: int, reps: int, seed: int) -> tuple[float, float]:
    """FAIL rates (shipped, old rule) of JointFloor, every class's true recall at T."""
    rows = np.full((m, m), (1.0 - FLOOR) / (m - 1))
    np.fill_diagonal(rows, FLOOR)
    rng = np.random.default_rng(seed)
    seeds = np.random.SeedSequence(seed).spawn(reps)
    shipped = old = 0
    for r in range(reps):
        t = np.stack([rng.multinomial(300, p) for p in rows])
        kw = dict(draws=4_000, max_draws=32_000, rng=seeds[r])
        (c,) = gate(t, [JointFloor("recall", FLOOR)], **kw).checks
        shipped += c.verdict == "fail"
        old += 1.0 - c.prob >= 0.95
    return shipped / reps, old / reps


def test_false_fail_rate_at_the_boundary() -> None:
    # every class at the floor (the worst case of the FAIL side: no class below), 5 classes,
    # 300 documents each. Binomial tolerance at 200 test sets: 0.05 + 3 sd = 0.096. The old
    # rule FAILed 0.76 of such test sets (benchmarks/jointfloor_calibration.py): at 200,
    # more than 0.5 is 7 sd below that and 9 sd above 0.05
    rate, old = _false_fail(5, 200, seed=2026)
    assert rate <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 200)
    assert old > 0.5


@pytest.mark.parametrize("m", [3, 10])
def test_false_fail_rate_by_classes(m: int) -> None:
    rate, old = _false_fail(m, 200, seed=100 + m)
    assert rate <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 200)
    assert old > 0.25  # measured 0.38 (3 classes) and 1.00 (10) under the old rule


def test_noisy_is_elementwise_without_fail_bars() -> None:
    # the planner's 2-D hits (test sets x draws) are not a joint floor's rows
    n = 10_000
    h = np.array([[0.95 * n, 0.5 * n], [n, 0.05 * n]])
    assert noisy(h, n, 0.95).tolist() == [[True, False], [False, True]]
