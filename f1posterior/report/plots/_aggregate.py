"""Forest plot of an aggregate: each table's interval, and the aggregate as a diamond."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..._core.describe import describe
from ..._core.validation import check_ref
from ._common import DENSITY, REF, SCORE, import_matplotlib, metric_label, new_axes, pct_text

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ...analysis import Aggregate

__all__ = ["plot_aggregate"]

_DIAMOND = "#1f1f1f"


def plot_aggregate(
    result: Aggregate,
    *,
    ref: float | None = None,
    predictive: bool = True,
    ax: Axes | None = None,
    title: str | None = None,
) -> Figure:
    """Forest plot of :func:`f1posterior.aggregate`: one HDI bar per table, the aggregate
    as a diamond (its HDI, with the posterior mean at the widest point).

    Parameters
    ----------
    result : Aggregate
        A result of :func:`f1posterior.aggregate`.
    ref : float, optional
        Vertical reference line.
    predictive : bool, default True
        Also draw the predictive interval of a new table (random effects) as a
        thin bar under the diamond.
    ax : matplotlib Axes, optional
        Draw here instead of in a new figure (``ax``/``title`` read as in every plot).
    title : str, optional
        Axes title.

    Returns
    -------
    matplotlib.figure.Figure
        The tables' HDI bars form one ``LineCollection`` (gid ``"hdi_bars"``),
        one segment per table, in the result's order from the top; the
        aggregate is a polygon with gid ``"aggregate"``.

    See Also
    --------
    f1posterior.aggregate : The result it draws.

    Examples
    --------
    >>> from f1posterior import aggregate
    >>> folds = [[[40, 10], [5, 45]], [[38, 12], [6, 44]], [[42, 8], [4, 46]]]
    >>> fig = plot_aggregate(aggregate(folds, metric="accuracy", draws=2000, rng=0))
    >>> len(fig.axes[0].collections[0].get_segments())
    3
    """
    mpl = import_matplotlib()
    from ...analysis import Aggregate

    if not isinstance(result, Aggregate):
        raise TypeError(f"result must be an Aggregate from aggregate(); got {describe(result)}")
    if not isinstance(predictive, bool):
        raise TypeError(f"predictive must be True or False; got {describe(predictive)}")
    r = check_ref(ref)
    from ..._core.text import escape_text

    k = len(result.names)
    show_pred = predictive and result.predictive is not None
    n_rows = k + 1 + int(show_pred)
    height = min(1.4 + 0.3 * n_rows, 16.0) if ax is None else 0.0
    fig, axes = new_axes(ax, (7.0, max(height, 2.4)))

    y = np.arange(k, dtype=float)[::-1] + 1 + int(show_pred)  # first table at the top
    hdi = np.asarray(result.tables.hdi, dtype=float)
    mean = np.asarray(result.tables.mean, dtype=float)
    score = np.asarray(result.tables.score, dtype=float)
    segs = [np.array([[lo, yy], [hi, yy]]) for (lo, hi), yy in zip(hdi, y, strict=True)]
    pct = pct_text(result.ci_prob)
    bars = mpl.collections.LineCollection(
        segs, colors=DENSITY, linewidths=2.5, label=f"table {pct} HDI", gid="hdi_bars"
    )
    axes.add_collection(bars)
    axes.plot(mean, y, "o", color=DENSITY, ms=5, label="posterior mean", gid="means")
    axes.plot(score, y, "D", mfc="none", mec=SCORE, ms=5, mew=1.0, label="observed", gid="scores")

    s = result.summary
    lo, hi = (float(v) for v in np.asarray(s.hdi))
    y0 = float(int(show_pred))
    diamond = mpl.patches.Polygon(
        [[lo, y0], [float(s.mean), y0 + 0.3], [hi, y0], [float(s.mean), y0 - 0.3]],
        closed=True, color=_DIAMOND, label=f"aggregate {pct} HDI", gid="aggregate",
    )  # fmt: skip
    axes.add_patch(diamond)
    xs = [hdi.ravel(), [lo, hi], score[np.isfinite(score)]]
    labels = [escape_text(n) for n in result.names]
    agg_label = "aggregate (pooled)" if result.method == "pooled" else "aggregate (mean)"
    ticks = [*y, y0]
    names = [*labels, agg_label]
    if show_pred:
        assert result.predictive is not None
        plo, phi = (float(v) for v in np.asarray(result.predictive.hdi))
        axes.plot([plo, phi], [0.0, 0.0], color=_DIAMOND, lw=1.0, gid="predictive")
        ticks.append(0.0)
        names.append("new table")
        xs.append([plo, phi])
    if r is not None:
        axes.axvline(r, color=REF, lw=1.2, label=f"reference = {r:g}")
        xs.append([r])
    axes.axhline(y0 + 0.6, color="#bbbbbb", lw=0.6)
    axes.set_yticks(ticks, names)
    axes.tick_params(axis="y", length=0, labelsize=9)
    allx = np.concatenate([np.asarray(v, dtype=float) for v in xs])
    pad = 0.04 * max(float(allx.max() - allx.min()), 1e-3)
    axes.set_xlim(float(allx.min()) - pad, float(allx.max()) + pad)
    axes.set_ylim(-0.7, n_rows - 0.3)
    axes.grid(axis="x", color="#e5e5e5", lw=0.6)
    axes.set_axisbelow(True)
    for side in ("right", "top"):
        axes.spines[side].set_visible(False)
    axes.set_xlabel(metric_label(result.metric))
    if title is None:
        how = "pooled" if result.method == "pooled" else "random effects"
        title = f"{metric_label(result.metric)} over {k} tables ({how}): {pct} HDI"
    axes.set_title(escape_text(title), fontsize=10, pad=20)
    axes.legend(
        loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=4, fontsize=8, frameon=False,
        borderaxespad=0.2, handlelength=1.5,
    )  # fmt: skip
    return fig
