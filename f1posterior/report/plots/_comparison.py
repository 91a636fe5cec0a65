"""Posterior of a difference between two classifiers (`plot_comparison`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..._core.describe import describe
from ._common import (
    ROPE,
    check_index,
    draw_density,
    legend_below,
    metric_label,
    new_axes,
)

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


def plot_comparison(
    comparison: Any,
    *,
    index: int | Sequence[int] = (),
    rope: float | None = None,
    names: tuple[str, str] = ("A", "B"),
    metric: str | None = None,
    ax: Axes | None = None,
    title: str | None = None,
) -> Figure:
    """Posterior of the difference A - B between two classifiers, with the rope shaded.

    Parameters
    ----------
    comparison : comparison result
        A result of :mod:`f1posterior.analysis._comparison`: it needs ``draws`` (the
        difference draws, shape ``(draws,)``), ``difference`` (a
        :class:`~f1posterior.MetricSummary`), ``p_a_better``, ``p_b_better``,
        ``p_equivalent`` and ``decision``.
    index : int or tuple of int, default ()
        Which comparison of a batch of comparisons.
    rope : float, optional
        Half-width of the region of practical equivalence ``[-rope, rope]``
        (default: the result's ``rope`` attribute, if any).
    names : (str, str), default ("A", "B")
        Names of the two classifiers.
    metric : str, optional
        Metric name for the axis label (default: the result's ``metric``).
    ax : matplotlib Axes, optional
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    See Also
    --------
    f1posterior.compare : The result it draws.

    Examples
    --------
    >>> from f1posterior import compare
    >>> res = compare([[45, 5], [5, 45]], [[30, 20], [20, 30]], draws=2000, rng=0)
    >>> len(plot_comparison(res).axes)
    1
    """
    for attr in ("draws", "difference", "p_a_better", "p_b_better", "decision"):
        if not hasattr(comparison, attr):
            raise TypeError(
                f"comparison must be a comparison result with a {attr!r} field; got "
                f"{describe(comparison)}"
            )
    x_all = np.asarray(comparison.draws, dtype=float)
    idx = check_index(index, x_all.shape[:-1], "difference")
    x = x_all[idx]
    s = comparison.difference[idx] if idx else comparison.difference

    def at(v: Any) -> float:
        a = np.asarray(v)
        return float(a[idx] if idx and a.ndim else a)

    if rope is None:
        rope = getattr(comparison, "rope", None)
    rope_w = 0.0 if rope is None else abs(float(rope))
    a, b = (str(v) for v in names)
    name = metric if metric is not None else getattr(comparison, "metric", None)
    label = metric_label(name) if isinstance(name, str) else "metric"
    fig, axes = new_axes(ax, (6.4, 3.8))
    draw_density(
        axes, x, s, kind="kde", ref=None, xlabel=f"{label} of {a} minus {label} of {b}",
        show_score=bool(np.isfinite(s.score)),
    )  # fmt: skip
    axes.axvline(0.0, color="#555", lw=1.0)
    if rope_w > 0:
        axes.axvspan(
            -rope_w,
            rope_w,
            color=ROPE,
            alpha=0.18,
            lw=0,
            gid="rope",
            label=f"rope \u00b1{rope_w:g}",
        )
        xmin, xmax = axes.get_xlim()
        axes.set_xlim(min(xmin, -1.15 * rope_w), max(xmax, 1.15 * rope_w))
    p_eq = getattr(comparison, "p_equivalent", None)
    parts = [f"P({b} better) = {at(comparison.p_b_better):.3f}"]
    if rope_w > 0 and p_eq is not None:
        parts.append(f"P(|diff| \u2264 {rope_w:g}) = {at(p_eq):.3f}")
    parts.append(f"P({a} better) = {at(comparison.p_a_better):.3f}")
    axes.text(
        0.5, 0.97, "    ".join(parts), transform=axes.transAxes, ha="center", va="top",
        fontsize=9, bbox={"boxstyle": "round,pad=0.25", "fc": "white", "ec": "#ccc"},
    )  # fmt: skip
    legend_below(axes)
    if title is None:
        decision = np.asarray(comparison.decision)
        decision = decision[idx] if idx and decision.ndim else decision
        title = f"{a} vs {b} on {label}: {decision}"
    axes.set_title(title, fontsize=11)
    return fig
