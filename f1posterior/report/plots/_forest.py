"""Forest plot: every metric's HDI and score, one row per metric (and class)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..._core.describe import describe
from ..._core.validation import check_choice, check_ref
from ._common import (
    DENSITY,
    REF,
    SCORE,
    check_metric_name,
    import_matplotlib,
    metric_label,
    new_axes,
    pct_text,
)

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ...posterior import Evaluation


def _forest_rows(
    result: Evaluation, metrics: list[str], names: Sequence[Any] | None
) -> list[dict[str, Any]]:
    from ...posterior import rows

    if names is None and len(result.batch_shape) == 1:
        names = [f"matrix {i}" for i in range(result.batch_shape[0])]
    out = []
    for rec in rows(result, None if names is None else [str(n) for n in names]):
        if rec["metric"] not in metrics:
            continue
        item = rec["item"]
        label = item if len(metrics) == 1 else f"{metric_label(rec['metric'])} {item}".strip()
        out.append({**rec, "label": label or metric_label(rec["metric"])})
    return out


def plot_forest(
    result: Evaluation,
    metric: str | Sequence[str] | None = None,
    *,
    names: Sequence[Any] | None = None,
    sort: str | None = "mean",
    ref: float | None = None,
    max_labels: int = 60,
    ax: Axes | None = None,
    title: str | None = None,
) -> Figure:
    """Forest plot: one row per matrix, class or label, with HDI bar, mean and observed score.

    Parameters
    ----------
    result : Evaluation
        Any :func:`~f1posterior.evaluate` result (draws are not needed).
    metric : str or sequence of str, optional
        Metric(s) to show; default all of the result's metrics. Per-class
        metrics give one row per class, batches one row per matrix.
    names : sequence, optional
        Names of the matrices of a 1-D batch (row labels).
    sort : {"mean", "score", "lower", None}, default "mean"
        Order rows by posterior mean, observed score, or HDI lower bound
        (highest at the top); None keeps the result's order.
    ref : float, optional
        Vertical reference line (default: the result's ``ref``).
    max_labels : int, default 60
        At most this many row labels are written; with more rows every k-th
        row is labelled, so hundreds of rows stay readable.
    ax : matplotlib Axes, optional
        Draw here instead of in a new figure.
    title : str, optional
        Axes title.

    Returns
    -------
    matplotlib.figure.Figure
        The HDI bars form one ``LineCollection`` (gid ``"hdi_bars"``), one
        segment per row, top row first after sorting.

    See Also
    --------
    f1posterior.evaluate : The result it draws.

    Examples
    --------
    >>> from f1posterior import evaluate
    >>> from f1posterior.io._data import figure3
    >>> res = evaluate(figure3(), metrics="f1", draws=2000, rng=0, labels=list("ABCDE"))
    >>> fig = plot_forest(res)
    >>> [t.get_text() for t in fig.axes[0].get_yticklabels()][:2]
    ['class A', 'class B']
    """
    mpl = import_matplotlib()
    from ...posterior import Evaluation

    if not isinstance(result, Evaluation):
        raise TypeError(f"result must be an Evaluation from evaluate(); got {describe(result)}")
    if metric is None:
        metrics = list(result)
    else:
        metrics = [metric] if isinstance(metric, str) else list(metric)
        for m in metrics:
            check_metric_name(result, m)
    order_key = check_choice(sort, "sort", ("mean", "score", "lower", None))
    if isinstance(max_labels, bool) or not isinstance(max_labels, (int, np.integer)):
        raise TypeError(f"max_labels must be an integer >= 1; got {describe(max_labels)}")
    if max_labels < 1:
        raise ValueError(f"max_labels must be an integer >= 1; got {max_labels}")
    if names is not None and len(names) != (result.batch_shape or (0,))[0]:
        raise ValueError(
            f"names must name each matrix of a 1-D batch of shape {result.batch_shape}; got "
            f"{len(names)} names"
        )
    recs = _forest_rows(result, metrics, names)
    if order_key is not None:
        key = {"mean": "mean", "score": "score", "lower": "hdi"}[order_key]
        recs.sort(key=lambda r: -(r[key][0] if key == "hdi" else r[key]))
    n = len(recs)
    height = min(1.3 + 0.26 * n, 16.0) if ax is None else 0.0
    fig, axes = new_axes(ax, (7.0, max(height, 2.4)))

    y = np.arange(n)[::-1].astype(float)  # first row at the top
    lo = np.array([r["hdi"][0] for r in recs])
    hi = np.array([r["hdi"][1] for r in recs])
    mean = np.array([r["mean"] for r in recs])
    score = np.array([r["score"] for r in recs])
    dense = n > 40
    lw = 1.2 if dense else 2.5
    segs = np.stack([np.stack([lo, y], -1), np.stack([hi, y], -1)], axis=1)
    pct = pct_text(result.ci_prob)
    bars = mpl.collections.LineCollection(
        list(segs), colors=DENSITY, linewidths=lw, label=f"{pct} HDI", gid="hdi_bars"
    )
    axes.add_collection(bars)
    ms = 2.5 if dense else 5
    axes.plot(mean, y, "o", color=DENSITY, ms=ms, label="posterior mean", gid="means")
    axes.plot(score, y, "D", mfc="none", mec=SCORE, ms=ms, mew=1.0, label="observed", gid="scores")
    r = result.ref if ref is None else check_ref(ref)
    if r is not None:
        axes.axvline(r, color=REF, lw=1.2, label=f"reference = {r:g}")
    axes.set_ylim(-0.7, n - 0.3)
    every = max(1, math.ceil(n / max_labels))
    shown = np.arange(0, n, every)
    axes.set_yticks(y[shown], [recs[i]["label"] for i in shown])
    axes.tick_params(axis="y", length=0, labelsize=9 if n <= 30 else 7)
    if every > 1:
        how = "" if order_key is None else f", sorted by {order_key}"
        axes.set_ylabel(f"{n} rows{how} (1 in {every} labelled)", fontsize=8)
    lows = np.concatenate([lo, score[np.isfinite(score)]] + ([[r]] if r is not None else []))
    highs = np.concatenate([hi, score[np.isfinite(score)]] + ([[r]] if r is not None else []))
    pad = 0.04 * max(float(highs.max() - lows.min()), 1e-3)
    axes.set_xlim(float(lows.min()) - pad, float(highs.max()) + pad)
    axes.grid(axis="x", color="#e5e5e5", lw=0.6)
    axes.set_axisbelow(True)
    for side in ("right", "top"):
        axes.spines[side].set_visible(False)
    xl = ", ".join(metric_label(m) for m in metrics)
    axes.set_xlabel(xl if len(metrics) == 1 else "score")
    if title is None:
        title = f"{xl}: {pct} HDI, posterior mean and observed score"
    axes.set_title(title, fontsize=10, pad=20)
    axes.legend(
        loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=4, fontsize=8, frameon=False,
        borderaxespad=0.2, handlelength=1.5,
    )  # fmt: skip
    return fig
