"""Fewer passes over the draws change no number.

The floors' checks read only the prevalences and cells that can fall below them; the
summaries' finiteness check reads the means first; a mixture chunk's uniforms go
straight into place. Each is compared, bit for bit, with the full reads it replaces,
and the floor is shown still to act where a checked cell underflows.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import stack

from f1posterior import evaluate
from f1posterior._core.sampling import FLOOR_FREE_FROM, cells_inplace, floor_checks
from f1posterior.posterior import _batch as batch

TINY = np.finfo(np.float64).tiny
FIELDS = ("mean", "median", "std", "hdi", "eti", "p_below", "p_above")


def sparse(m: int, b: int = 3) -> np.ndarray:
    """``b`` sparse ``m``-class matrices: 90 right, 10 to the next class, other cells empty."""
    c = np.diag(np.full(m, 90))
    c[np.arange(m), (np.arange(m) + 1) % m] = 10
    return np.stack([c] * b)


def gammas(n: int, m: int, d: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_gamma(3.0, size=(n, m + 1, m, d))


def test_floor_checks_names_small_cells_and_whole_log_space_tables():
    conc = np.full((3, 4, 3), 2.0)
    conc[0, 1, 2] = 0.3  # below FLOOR_FREE_FROM: checked
    conc[0, 2, 0] = 0.05  # small, in a row that is not: drawn directly, checked
    conc[1, 0, :] = 0.05  # a row drawn in log space: the whole table is checked
    conc[2, 3, 0] = 0.3  # a prevalence: checked against the prevalence floor
    small_any = (conc < 0.1).any(axis=(-2, -1))
    mask = floor_checks(conc, small_any, np.dtype(np.float64))
    assert mask is not None and mask.shape == (3, 4, 3)
    assert mask[0].sum() == 2 and mask[0, 1, 2] and mask[0, 2, 0]
    assert mask[1].all()
    assert mask[2].sum() == 1 and mask[2, 3, 0]
    assert floor_checks(conc, small_any, np.dtype(np.float32)) is None  # float32: every one
    assert FLOOR_FREE_FROM == 0.5


def _check(n: int, m: int, *where: tuple[int, int, int]) -> np.ndarray:
    check = np.zeros((n, m + 1, m), dtype=bool)
    for w in where:
        check[w] = True
    return check


@pytest.mark.parametrize("where", [(0, 1, 2), (1, 0, 0)])
def test_a_checked_cell_below_tiny_floors_the_table(where):
    buf = gammas(2, 3, 50)
    i, r, c = where
    buf[i, r, c, 7] = 1e-310  # below tiny after normalising
    full = cells_inplace(buf.copy())
    gathered = cells_inplace(buf.copy(), check=_check(2, 3, where))
    assert gathered.min() >= TINY
    np.testing.assert_array_equal(gathered, full)


def test_a_checked_prevalence_below_its_floor_is_raised():
    buf = gammas(2, 3, 50)
    buf[1, 3, 2, 9] = 1e-200  # the prevalence of class 2, draw 9: below 2**-511
    full = cells_inplace(buf.copy())
    checked = cells_inplace(buf.copy(), check=_check(2, 3, (1, 3, 2)))
    np.testing.assert_array_equal(checked, full)
    assert checked[1, 9, 2].sum() == pytest.approx(2.0**-511, rel=1e-12)  # raised to s
    unchecked = cells_inplace(buf.copy(), check=_check(2, 3, (0, 0, 0)))  # negative control
    assert unchecked[1, 9, 2].sum() < 2.0**-511


def test_an_unchecked_cell_is_not_read():
    """Negative control: the check reads exactly the cells it is given."""
    buf = gammas(2, 3, 50)
    buf[0, 1, 2, 7] = 1e-310
    assert cells_inplace(buf.copy(), check=_check(2, 3, (1, 0, 0))).min() < TINY
    assert cells_inplace(buf.copy()).min() >= TINY  # the full read floors it


def test_mostly_checked_tables_read_every_cell():
    buf = gammas(2, 3, 50)
    buf[0, 1, 2, 7] = 1e-310
    check = np.ones((2, 4, 3), dtype=bool)
    check[0, 1, 2] = False  # most cells checked: the whole table is read
    assert cells_inplace(buf.copy(), check=check).min() >= TINY


CASES = [
    ("dense 4x4", stack(6, 4), "hierarchical"),
    ("sparse 10x10", sparse(10), "hierarchical"),
    ("sparse 10x10, paper", sparse(10), "paper"),
    ("dense 2x2, adaptive", stack(5, 2), "adaptive"),
    ("tiny prior", stack(3, 3), 1e-3),
    ("tiny prior, an empty class (log space)", np.array([[[5, 0, 0], [0, 0, 0], [1, 0, 3]]]), 1e-3),
    (
        "hierarchical, an empty class, M = 12",
        sparse(12, 1) * (np.arange(12) != 3)[:, None],
        "hierarchical",
    ),
]


@pytest.mark.parametrize("name,c,prior", CASES, ids=[c[0] for c in CASES])
def test_engine_bit_identical_to_full_floor_reads(monkeypatch, name, c, prior):
    kw = dict(draws=700, rng=9, ref=0.6, workers=1, alpha=prior, beta=prior, keep_draws=True,
              metrics=("micro_f1", "macro_f1", "f1", "mcc"))  # fmt: skip
    fast = evaluate(c, **kw)
    monkeypatch.setattr(batch, "floor_checks", lambda *a: None)  # every cell read
    full = evaluate(c, **kw)
    for metric in fast:
        np.testing.assert_array_equal(fast.metric_draws[metric], full.metric_draws[metric])
        for field in FIELDS:
            np.testing.assert_array_equal(
                getattr(fast[metric], field), getattr(full[metric], field), err_msg=field
            )


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_metric_draws_are_refused(bad):
    def broken(table):
        out = table[..., 0, 0] * 1.0
        out[..., 3] = bad  # one draw of each table
        return out

    with pytest.raises(ValueError, match="non-finite values"):
        evaluate(stack(4, 3), draws=600, rng=0, workers=1, metrics=[broken])


def test_finite_draws_whose_sum_overflows_are_summarised():
    """A mean past the float range is not a non-finite draw: the draws are then read."""

    def huge(table):
        return table[..., 0, 0] * 0.0 + 1e307

    s = evaluate(stack(2, 3), draws=600, rng=0, workers=1, metrics=[huge])["huge"]
    assert np.all(np.isinf(s.mean)) and np.all(s.median == 1e307)


@pytest.mark.parametrize("name,c,prior", CASES, ids=[c[0] for c in CASES])
def test_sample_posterior_bit_identical_to_full_floor_reads(monkeypatch, name, c, prior):
    from f1posterior import sample_posterior
    from f1posterior._core import sampling

    fast = sample_posterior(c, draws=600, rng=2, alpha=prior, beta=prior)
    monkeypatch.setattr(sampling, "floor_checks", lambda *a: None)  # every value read
    np.testing.assert_array_equal(
        fast, sample_posterior(c, draws=600, rng=2, alpha=prior, beta=prior)
    )
