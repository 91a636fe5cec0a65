"""Metrics at a deployment prevalence: ``evaluate(..., prevalence=pi)``.

The table at a target prevalence is ``p_uv(pi) = pi_u theta_uv``, ``theta`` drawn from its
posterior as usual.

Design notes: docs/design.md#posterior-prevalence
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._core.describe import describe
from .._core.labelled import labelled_vector
from .._core.limits import check_concentrations
from .._core.results import value_equality
from .._core.sampling import LOG_SPACE_BELOW, prevalence_floor
from .._core.streams import child_seed

__all__ = ["PREVALENCE_KEY", "TargetPrevalence", "check_prevalence", "reweight"]

#: Spawn-key word of the streams of an uncertain target prevalence ("prev").
PREVALENCE_KEY = 0x70726576
#: A fixed target must sum to 1 within this.
SUM_TOLERANCE = 1e-9


@value_equality
@dataclass(frozen=True, eq=False)
class TargetPrevalence:
    """A target class prevalence: fixed (``kind="fixed"``) or Dirichlet (``"dirichlet"``).

    Attributes
    ----------
    kind : {"fixed", "dirichlet"}
    values : ndarray, shape (*batch, M) or (M,)
        The prevalence vector(s), or the Dirichlet concentrations.
    """

    kind: str
    values: np.ndarray

    def mean(self) -> np.ndarray:
        """The target's mean prevalence, ``(..., M)``."""
        return self.values / self.values.sum(axis=-1, keepdims=True)

    def to_json(self) -> dict[str, Any]:
        """``{"kind": ..., "values": [...]}``."""
        return {"kind": self.kind, "values": self.values.tolist()}

    def __str__(self) -> str:
        vals = self.values
        text = ", ".join(f"{v:g}" for v in vals) if vals.ndim == 1 else f"shape {vals.shape}"
        return f"[{text}]" if self.kind == "fixed" else f"Dirichlet({text})"

    def sampler(
        self, batch: tuple[int, ...], root: np.random.SeedSequence, dtype: np.dtype
    ) -> PrevalenceDraws:
        """What the batch engine needs for the flattened ``batch`` of matrices."""
        m = self.values.shape[-1]
        flat = np.broadcast_to(self.values, (*batch, m)).reshape(-1, m)
        flat = np.ascontiguousarray(flat, dtype=np.float64)
        if self.kind == "fixed":
            return PrevalenceDraws(fixed=flat.astype(dtype), conc=None, small=None, root=None)
        conc = flat[:, None, :]
        small = np.asarray((conc < LOG_SPACE_BELOW).any(axis=(-2, -1)))
        return PrevalenceDraws(
            fixed=None, conc=conc, small=small, root=child_seed(root, PREVALENCE_KEY)
        )


@dataclass(frozen=True)
class PrevalenceDraws:
    """A target prevalence laid out for the batch engine (flat batch).

    ``fixed`` ``(B, M)``; or ``conc`` ``(B, 1, M)`` Dirichlet concentrations (the
    engine draws their Gamma variates, keyed like the cell draws, from ``root``)
    with ``small``, the matrices with a concentration below ``LOG_SPACE_BELOW``.
    """

    fixed: np.ndarray | None
    conc: np.ndarray | None
    small: np.ndarray | None
    root: np.random.SeedSequence | None

    def apply(self, cells: np.ndarray, b0: int, b1: int, gammas: np.ndarray | None) -> None:
        """Re-weight cell draws ``(n, d, M, M)`` of matrices ``b0:b1`` in place.

        ``gammas``, ``(n, 1, M, d)``, are the Dirichlet's Gamma variates for these
        draws (None for a fixed target).
        """
        if gammas is None:
            assert self.fixed is not None
            pi = self.fixed[b0:b1, None, :]
        else:
            g = gammas[:, 0]
            pi = np.moveaxis(g / g.sum(axis=1, keepdims=True), 1, -1)  # (n, d, M)
            floor = prevalence_floor(cells.dtype)
            if pi.size and not pi.min() >= floor:
                np.fmax(pi, floor, out=pi)
        _reweight_inplace(cells, pi)


def _reweight_inplace(cells: np.ndarray, pi: np.ndarray) -> None:
    rows = cells.sum(axis=-1)
    np.divide(pi, rows, out=rows)
    cells *= rows[..., None]
    tiny = np.finfo(cells.dtype).tiny
    if cells.size and not cells.min() >= tiny:
        np.fmax(cells, tiny, out=cells)


def reweight(table: np.ndarray, pi: np.ndarray) -> np.ndarray:
    """``pi_u * table_uv / sum_v table_uv``: the table at prevalence ``pi`` (float64).

    A row without any count gives NaN cells (the classifier's behaviour on that
    class is unobserved), so the metrics of such a table are NaN.

    Examples
    --------
    >>> reweight(np.array([[8, 2], [10, 30]]), np.array([0.1, 0.9])).round(3).tolist()
    [[0.08, 0.02], [0.225, 0.675]]
    """
    t = np.asarray(table, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return t * (np.asarray(pi, dtype=np.float64) / t.sum(axis=-1))[..., None]


def _real_array(x: Any, name: str, what: str) -> np.ndarray:
    if isinstance(x, (str, bytes)):
        raise TypeError(f"{name} must be {what}; got {describe(x)}")
    try:
        arr = np.asarray(x)
    except ValueError:
        raise ValueError(f"{name} must be {what}; got ragged input {describe(x)}") from None
    if arr.dtype == bool or not (
        np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)
    ):
        raise TypeError(f"{name} must be {what}; got {describe(x)} (dtype {arr.dtype})")
    return arr.astype(np.float64)


def _check_shape(arr: np.ndarray, name: str, m: int, batch: tuple[int, ...]) -> None:
    if arr.ndim == 0 or arr.shape[-1] != m:
        raise ValueError(
            f"{name} must have a last axis of length M = {m} (one entry per class, in class "
            f"order); got shape {arr.shape}"
        )
    lead = arr.shape[:-1]
    try:
        fits = np.broadcast_shapes(lead, batch) == batch
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(
            f"{name} must be one vector (M,) or broadcast over the batch of shape {batch} "
            f"without enlarging it; got shape {arr.shape}"
        )
    if not np.isfinite(arr).all() or not (arr > 0).all():
        raise ValueError(f"{name} must hold finite positive numbers; got {describe(arr)}")
    check_concentrations(arr, name, "hold finite positive numbers")


def check_prevalence(
    prevalence: Any,
    m: int,
    batch: tuple[int, ...],
    name: str = "prevalence",
    labels: Sequence[Any] | None = None,
) -> TargetPrevalence | None:
    """``prevalence`` of :func:`f1posterior.evaluate`: None, a vector, or ``("dirichlet", a)``.

    A labelled vector (a pandas Series or a dict; a DataFrame for one per matrix) is
    matched to ``labels``, the counts' class labels, by label
    (:func:`~f1posterior._core.labelled.labelled_vector`); a plain one is in class order.
    """
    if prevalence is None:
        return None
    if isinstance(prevalence, tuple) and prevalence and isinstance(prevalence[0], str):
        if prevalence[0] != "dirichlet" or len(prevalence) != 2:
            raise ValueError(
                f"{name} must be a probability vector or ('dirichlet', concentrations); got "
                f"{describe(prevalence)}"
            )
        conc = labelled_vector(prevalence[1], labels, f"{name}[1]")
        alpha = _real_array(conc, f"{name}[1]", "Dirichlet concentrations (counts)")
        _check_shape(alpha, f"{name}[1]", m, batch)
        return TargetPrevalence("dirichlet", alpha)
    pi = _real_array(
        labelled_vector(prevalence, labels, name), name, "a probability vector of the M classes"
    )
    _check_shape(pi, name, m, batch)
    total = pi.sum(axis=-1)
    if not (np.abs(total - 1.0) <= SUM_TOLERANCE).all():
        raise ValueError(
            f"{name} must sum to 1 (within {SUM_TOLERANCE:g}); got sums "
            f"{describe(np.unique(total).tolist())}"
        )
    return TargetPrevalence("fixed", pi)
