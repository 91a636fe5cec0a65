"""Pictures of posteriors (matplotlib, the optional extra ``f1posterior[plot]``).

- :func:`plot_posterior`: the paper's Figure 4a for any metric: posterior
  density with the HDI band, the observed score, the posterior mean and a
  reference line with the percentage of the posterior below and above it.
- :func:`plot_forest`: one HDI bar, posterior mean and observed score per row
  (matrices of a batch, classes, labels, metrics), sorted, readable with
  hundreds of rows.
- :func:`plot_comparison`: the posterior of a difference between two
  classifiers (a result of :mod:`f1posterior.comparison`) with the region of
  practical equivalence shaded.
- :func:`plot_summary`: every metric of an :class:`~f1posterior.Evaluation` in
  one figure (what ``f1posterior summarize --plot`` draws).

Every function returns a :class:`matplotlib.figure.Figure`. Figures are built
with the object-oriented API (``matplotlib.figure.Figure``), never through
``pyplot``: nothing here selects a backend or touches pyplot's global state.
Save them with ``fig.savefig("out.png")`` (or ``.svg``, ``.pdf``); in Jupyter
a returned figure displays itself. To draw into a pyplot figure of your own,
pass ``ax=``.

matplotlib is imported inside the functions, so ``import f1posterior`` never
needs it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from .summary import MetricSummary, summarize_draws
from .validation import check_choice, check_prob, check_ref, describe

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from .evaluation import Evaluation

__all__ = ["plot_posterior", "plot_forest", "plot_comparison", "plot_summary", "metric_label"]

#: Display names of the built-in metrics (the paper writes miF1 and maF1).
_LABELS = {
    "micro_f1": "micro-F1",
    "macro_f1": "macro-F1",
    "weighted_f1": "weighted F1",
    "macro_f1_star": "macro-F1* (F1 of macro P and R)",
    "accuracy": "accuracy",
    "macro_precision": "macro precision",
    "macro_recall": "macro recall",
    "weighted_precision": "weighted precision",
    "weighted_recall": "weighted recall",
    "f1": "F1",
    "precision": "precision",
    "recall": "recall",
}

_DENSITY = "#4C72B0"  # posterior density / bars
_HDI = "#1f1f1f"  # HDI bar
_SCORE = "#C44E52"  # observed score
_REF = "#2E8B57"  # reference value
_ROPE = "#DD8452"  # region of practical equivalence


def _mpl() -> Any:
    try:
        import matplotlib
        import matplotlib.axes  # noqa: F401
        import matplotlib.collections  # noqa: F401
        import matplotlib.figure  # noqa: F401
    except ImportError:
        raise ImportError(
            "plotting needs matplotlib, an optional extra: pip install f1posterior[plot]"
        ) from None
    return matplotlib


def metric_label(name: str) -> str:
    """Display name of a metric: ``"micro_f1"`` -> ``"micro-F1"``; unknown names unchanged.

    Examples
    --------
    >>> metric_label("macro_f1"), metric_label("my_metric")
    ('macro-F1', 'my_metric')
    """
    return _LABELS.get(name, name)


def _pct_text(prob: float) -> str:
    return f"{round(100 * prob, 4):g}%"


def _new_axes(ax: Any, size: tuple[float, float]) -> tuple[Figure, Axes]:
    mpl = _mpl()
    if ax is None:
        fig = mpl.figure.Figure(figsize=size, layout="constrained")
        return fig, fig.add_subplot()
    if not isinstance(ax, mpl.axes.Axes):
        raise TypeError(f"ax must be a matplotlib Axes or None; got {describe(ax)}")
    return ax.figure, ax


def _density(x: np.ndarray, grid_size: int = 512) -> tuple[np.ndarray, np.ndarray]:
    """Gaussian kernel density of 1-D draws on a grid (binned, so O(n + grid))."""
    n = x.size
    lo, hi = float(x.min()), float(x.max())
    std = float(x.std())
    iqr = float(np.subtract(*np.percentile(x, [75, 25])))
    spread = min(std, iqr / 1.34) if iqr > 0 else std
    h = 0.9 * spread * n ** (-0.2)  # Silverman's rule
    if not h > 0:  # all draws equal
        h = max(abs(lo), 1.0) * 1e-3
    grid = np.linspace(lo - 3 * h, hi + 3 * h, grid_size)
    step = grid[1] - grid[0]
    counts, _ = np.histogram(x, bins=grid_size, range=(grid[0] - step / 2, grid[-1] + step / 2))
    half = math.ceil(4 * h / step)
    offsets = np.arange(-half, half + 1) * step
    kernel = np.exp(-0.5 * (offsets / h) ** 2)
    dens = np.convolve(counts, kernel, mode="same")[:grid_size]
    dens /= dens.sum() * step
    return grid, dens


def _check_kind(kind: Any) -> str:
    return str(check_choice(kind, "kind", ("kde", "hist")))


def _select(
    result: Evaluation, metric: Any, index: Any
) -> tuple[str, tuple[int, ...], np.ndarray, MetricSummary]:
    """Draws (draws,) and summary of one metric of one matrix/class of a result."""
    name = _check_metric_name(result, metric)
    if result.metric_draws is None:
        raise ValueError(
            "result must hold posterior draws to plot a density; got an Evaluation without "
            "them: call evaluate(..., keep_draws=True)"
        )
    draws = np.asarray(result.metric_draws[name])
    lead = draws.shape[:-1]
    idx = _check_index(index, lead, name)
    return name, idx, draws[idx], _pick_summary(result[name], idx)


def _pick_summary(s: MetricSummary, idx: tuple[int, ...]) -> MetricSummary:
    """The summary of one item (matrix and/or class) of a batched summary."""

    def pick(v: Any) -> Any:
        if v is None:
            return None
        a = np.asarray(v)
        return a[idx] if idx else a

    return MetricSummary(
        score=float(pick(s.score)),
        mean=float(pick(s.mean)),
        median=float(pick(s.median)),
        std=float(pick(s.std)),
        mc_error=float(pick(s.mc_error)),
        hdi=np.asarray(pick(s.hdi), dtype=float),
        eti=np.asarray(pick(s.eti), dtype=float),
        p_below=None if s.p_below is None else float(pick(s.p_below)),
        p_above=None if s.p_above is None else float(pick(s.p_above)),
        hdi_prob=s.hdi_prob,
        ref=s.ref,
        draws=s.draws,
        exact=s.exact,
    )


def _check_metric_name(result: Any, metric: Any) -> str:
    from .evaluation import Evaluation

    if not isinstance(result, Evaluation):
        raise TypeError(f"result must be an Evaluation from evaluate(); got {describe(result)}")
    if metric is None:
        return next(iter(result))
    if not isinstance(metric, str) or metric not in result:
        raise ValueError(
            f"metric must be one of the result's metrics {list(result)}; got {metric!r}"
        )
    return metric


def _check_index(given: Any, lead: tuple[int, ...], name: str) -> tuple[int, ...]:
    index = given
    if isinstance(index, (int, np.integer)) and not isinstance(index, bool):
        index = (int(index),)
    try:
        ok = all(isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in index)
        idx = tuple(int(i) for i in index) if ok else ()
    except TypeError:
        ok, idx = False, ()
    ok = ok and len(idx) == len(lead)
    if not ok or any(not 0 <= i < n for i, n in zip(idx, lead, strict=True)):
        raise ValueError(
            f"index must pick one matrix (and class) of metric {name!r}, a tuple of "
            f"{len(lead)} integers within shape {lead}; got {describe(given)}"
        )
    return idx


def _item_label(result: Evaluation, name: str, idx: tuple[int, ...]) -> str:
    nb = len(result.batch_shape)
    parts = []
    if idx[:nb]:
        parts.append("matrix " + ",".join(map(str, idx[:nb])))
    if idx[nb:]:
        c = idx[nb]
        labels = result.labels
        parts.append(f"class {labels[c] if labels and c < len(labels) else c}")
    return ", ".join(parts)


def _draw_density(
    ax: Axes,
    x: np.ndarray,
    s: MetricSummary,
    *,
    kind: str,
    ref: float | None,
    xlabel: str,
    color: str = _DENSITY,
    show_score: bool = True,
    show_mean: bool = True,
) -> None:
    """Density, HDI band and bar, mean, observed score and reference on one Axes."""
    lo, hi = (float(v) for v in s.hdi)
    if kind == "hist":
        heights, edges = np.histogram(x, bins=min(60, max(10, int(np.sqrt(x.size)))), density=True)
        top = float(np.max(heights))
        inside = ((edges[:-1] + edges[1:]) / 2 >= lo) & ((edges[:-1] + edges[1:]) / 2 <= hi)
        for sel, alpha, gid in ((~inside, 0.3, "hist"), (inside, 0.7, "hdi_band")):
            ax.bar(
                edges[:-1][sel], heights[sel], width=np.diff(edges)[sel], align="edge",
                color=color, alpha=alpha, edgecolor="white", lw=0.3, gid=gid,
            )  # fmt: skip
    else:
        grid, dens = _density(x)
        top = float(dens.max())
        ax.plot(grid, dens, color=color, lw=1.8, gid="density")
        band = (grid >= lo) & (grid <= hi)
        ax.fill_between(grid[band], dens[band], color=color, alpha=0.3, lw=0, gid="hdi_band")
    ax.set_ylim(-0.16 * top, top * 1.3)
    ax.set_yticks([])
    for side in ("left", "right", "top"):
        ax.spines[side].set_visible(False)
    ax.set_xlabel(xlabel)

    # HDI bar under the density, labelled like PyMC3's plot_posterior (the paper's figure).
    y_bar = -0.05 * top
    pct = _pct_text(s.hdi_prob)
    ax.plot(
        [lo, hi], [y_bar, y_bar], color=_HDI, lw=4, solid_capstyle="butt", label=f"{pct} HDI",
        gid="hdi_bar",
    )  # fmt: skip
    ax.text((lo + hi) / 2, y_bar + 0.03 * top, f"{pct} HDI", ha="center", va="bottom", fontsize=9,
        bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.8}, zorder=5,
    )  # fmt: skip
    for v in (lo, hi):
        ax.text(v, y_bar - 0.03 * top, f"{v:.3f}", ha="center", va="top", fontsize=8, color="#222")

    if show_mean:
        ax.axvline(s.mean, color=color, lw=1.0, ls=":", label=f"posterior mean = {s.mean:.3f}")
    if show_score and np.isfinite(s.score):
        ax.axvline(s.score, color=_SCORE, lw=1.5, ls="--", label=f"observed = {s.score:.3f}")
    if ref is not None:
        below = float(np.mean(x < ref))
        above = float(np.mean(x > ref))
        ax.axvline(ref, color=_REF, lw=1.5, label=f"reference = {ref:g}", gid="ref")
        ax.text(
            ref,
            top * 1.26,
            f"{100 * below:.1f}% < {ref:g} < {100 * above:.1f}%",
            ha="center",
            va="top",
            color=_REF,
            fontsize=10,
            bbox={"boxstyle": "round,pad=0.3", "fc": "white", "ec": _REF, "lw": 0.8},
            zorder=5,
        )
    _legend_below(ax)
    # keep the reference visible even if it lies outside the posterior's range
    xmin, xmax = ax.get_xlim()
    pts = [xmin, xmax] + ([ref] if ref is not None else []) + [s.score]
    pts = [p for p in pts if np.isfinite(p)]
    pad = 0.03 * (max(pts) - min(pts))
    ax.set_xlim(
        min(pts) - (pad if min(pts) < xmin else 0), max(pts) + (pad if max(pts) > xmax else 0)
    )


def _legend_below(ax: Axes) -> None:
    ax.legend(
        loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=5, fontsize=8, frameon=False,
        handlelength=1.5, columnspacing=1.2,
    )  # fmt: skip


def plot_posterior(
    result: Evaluation | ArrayLike,
    metric: str | None = None,
    *,
    index: int | Sequence[int] = (),
    ref: float | None = None,
    kind: str = "kde",
    score: float | None = None,
    hdi_prob: float = 0.95,
    ax: Axes | None = None,
    title: str | None = None,
) -> Figure:
    """The paper's Figure 4a: posterior density, HDI, mean, observed score and reference.

    Parameters
    ----------
    result : Evaluation or array_like of shape (draws,)
        An :func:`~f1posterior.evaluate` result computed with
        ``keep_draws=True``, or posterior draws of one scalar quantity.
    metric : str, optional
        Which metric of ``result`` (default: its first).
    index : int or tuple of int, default ()
        The matrix of a batch and/or the class of a per-class metric, e.g.
        ``(3,)`` for class 3 of one matrix's ``"f1"``, ``(0, 3)`` for matrix 0.
    ref : float, optional
        Reference line; the text above it gives the % of draws below and
        above (default: the result's ``ref``).
    kind : {"kde", "hist"}, default "kde"
        A Gaussian kernel density curve or a histogram.
    score : float, optional
        Observed score when ``result`` is an array of draws.
    hdi_prob : float, default 0.95
        HDI probability when ``result`` is an array of draws.
    ax : matplotlib Axes, optional
        Draw here instead of in a new figure.
    title : str, optional
        Axes title (default: the metric and item).

    Returns
    -------
    matplotlib.figure.Figure
        The HDI bar is the line labelled ``"95% HDI"`` (gid ``"hdi_bar"``);
        its x data are the summary's HDI.

    Examples
    --------
    >>> from f1posterior import evaluate
    >>> from f1posterior.data import figure3
    >>> res = evaluate(figure3(), draws=2000, ref=0.8, rng=0, keep_draws=True)
    >>> fig = plot_posterior(res, "micro_f1")
    >>> fig.axes[0].get_xlabel()
    'micro-F1'
    """
    k = _check_kind(kind)
    from .evaluation import Evaluation

    if isinstance(result, Evaluation):
        name, idx, x, s = _select(result, metric, index)
        r = result.ref if ref is None else check_ref(ref)
        item = _item_label(result, name, idx)
        xlabel = metric_label(name)
        default_title = f"Posterior of {xlabel}" + (f" ({item})" if item else "")
    else:
        x = np.asarray(result, dtype=float) if _is_numeric(result) else np.empty((0, 0))
        if x.ndim != 1 or x.size < 2 or not np.isfinite(x).all():
            raise ValueError(
                "result must be an Evaluation or a 1-D array of at least 2 finite draws; "
                f"got {describe(result)}"
            )
        r = check_ref(ref)
        s = summarize_draws(x, score=score, hdi_prob=check_prob(hdi_prob, "hdi_prob"), ref=r)
        xlabel = metric if metric is not None else "value"
        default_title = f"Posterior of {metric_label(xlabel)}"
        xlabel = metric_label(xlabel)
    fig, axes = _new_axes(ax, (6.4, 3.6))
    _draw_density(axes, np.asarray(x, dtype=float), s, kind=k, ref=r, xlabel=xlabel)
    axes.set_title(default_title if title is None else title, fontsize=11)
    return fig


def _is_numeric(x: Any) -> bool:
    try:
        a = np.asarray(x)
    except (ValueError, TypeError):
        return False
    return a.dtype != bool and (
        np.issubdtype(a.dtype, np.integer) or np.issubdtype(a.dtype, np.floating)
    )


def _forest_rows(
    result: Evaluation, metrics: list[str], names: Sequence[Any] | None
) -> list[dict[str, Any]]:
    from .report import rows

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

    Examples
    --------
    >>> from f1posterior import evaluate
    >>> from f1posterior.data import figure3
    >>> res = evaluate(figure3(), metrics="f1", draws=2000, rng=0, labels=list("ABCDE"))
    >>> fig = plot_forest(res)
    >>> [t.get_text() for t in fig.axes[0].get_yticklabels()][:2]
    ['class A', 'class B']
    """
    mpl = _mpl()
    from .evaluation import Evaluation

    if not isinstance(result, Evaluation):
        raise TypeError(f"result must be an Evaluation from evaluate(); got {describe(result)}")
    if metric is None:
        metrics = list(result)
    else:
        metrics = [metric] if isinstance(metric, str) else list(metric)
        for m in metrics:
            _check_metric_name(result, m)
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
    fig, axes = _new_axes(ax, (7.0, max(height, 2.4)))

    y = np.arange(n)[::-1].astype(float)  # first row at the top
    lo = np.array([r["hdi"][0] for r in recs])
    hi = np.array([r["hdi"][1] for r in recs])
    mean = np.array([r["mean"] for r in recs])
    score = np.array([r["score"] for r in recs])
    dense = n > 40
    lw = 1.2 if dense else 2.5
    segs = np.stack([np.stack([lo, y], -1), np.stack([hi, y], -1)], axis=1)
    pct = _pct_text(result.hdi_prob)
    bars = mpl.collections.LineCollection(
        list(segs), colors=_DENSITY, linewidths=lw, label=f"{pct} HDI", gid="hdi_bars"
    )
    axes.add_collection(bars)
    ms = 2.5 if dense else 5
    axes.plot(mean, y, "o", color=_DENSITY, ms=ms, label="posterior mean", gid="means")
    axes.plot(score, y, "D", mfc="none", mec=_SCORE, ms=ms, mew=1.0, label="observed", gid="scores")
    r = result.ref if ref is None else check_ref(ref)
    if r is not None:
        axes.axvline(r, color=_REF, lw=1.2, label=f"reference = {r:g}")
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
        A result of :mod:`f1posterior.comparison`: it needs ``draws`` (the
        difference draws, shape ``(draws,)``), ``difference`` (a
        :class:`~f1posterior.MetricSummary`), ``p_a_better``, ``p_b_better``,
        ``p_equivalent`` and ``decision``.
    rope : float, optional
        Half-width of the region of practical equivalence ``[-rope, rope]``
        (default: the result's ``rope`` attribute, if any).
    index : int or tuple of int, default ()
        Which comparison of a batch of comparisons.
    names : (str, str), default ("A", "B")
        Names of the two classifiers.
    metric : str, optional
        Metric name for the axis label (default: the result's ``metric``).
    ax : matplotlib Axes, optional
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    for attr in ("draws", "difference", "p_a_better", "p_b_better", "decision"):
        if not hasattr(comparison, attr):
            raise TypeError(
                f"comparison must be a comparison result with a {attr!r} field; got "
                f"{describe(comparison)}"
            )
    x_all = np.asarray(comparison.draws, dtype=float)
    idx = _check_index(index, x_all.shape[:-1], "difference")
    x = x_all[idx]
    s = _pick_summary(comparison.difference, idx)

    def at(v: Any) -> float:
        a = np.asarray(v)
        return float(a[idx] if idx and a.ndim else a)

    if rope is None:
        rope = getattr(comparison, "rope", None)
    rope_w = 0.0 if rope is None else abs(float(rope))
    a, b = (str(v) for v in names)
    name = metric if metric is not None else getattr(comparison, "metric", None)
    label = metric_label(name) if isinstance(name, str) else "metric"
    fig, axes = _new_axes(ax, (6.4, 3.8))
    _draw_density(
        axes, x, s, kind="kde", ref=None, xlabel=f"{label} of {a} minus {label} of {b}",
        show_score=bool(np.isfinite(s.score)),
    )  # fmt: skip
    axes.axvline(0.0, color="#555", lw=1.0)
    if rope_w > 0:
        axes.axvspan(
            -rope_w,
            rope_w,
            color=_ROPE,
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
    _legend_below(axes)
    if title is None:
        decision = np.asarray(comparison.decision)
        decision = decision[idx] if idx and decision.ndim else decision
        title = f"{a} vs {b} on {label}: {decision}"
    axes.set_title(title, fontsize=11)
    return fig


def plot_summary(
    result: Evaluation,
    *,
    names: Sequence[Any] | None = None,
    kind: str = "kde",
) -> Figure:
    """Every metric of a result in one figure, stacked.

    A scalar metric of one matrix gets a :func:`plot_posterior` panel (when
    the result holds draws); a per-class metric or a batch gets a
    :func:`plot_forest` panel.

    Parameters
    ----------
    result : Evaluation
    names : sequence, optional
        Names of the matrices of a 1-D batch.
    kind : {"kde", "hist"}, default "kde"

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from f1posterior import evaluate
    >>> from f1posterior.data import figure3
    >>> res = evaluate(figure3(), metrics=["micro_f1", "f1"], draws=2000, rng=0,
    ...                keep_draws=True)
    >>> len(plot_summary(res).axes)
    2
    """
    mpl = _mpl()
    from .evaluation import Evaluation

    if not isinstance(result, Evaluation):
        raise TypeError(f"result must be an Evaluation from evaluate(); got {describe(result)}")
    k = _check_kind(kind)
    panels: list[tuple[str, str, float]] = []
    for name, s in result.items():
        n = int(np.size(s.score))
        if n == 1 and np.ndim(s.score) == 0 and result.metric_draws is not None:
            panels.append((name, "posterior", 3.2))
        else:
            panels.append((name, "forest", min(1.3 + 0.26 * n, 12.0)))
    fig = mpl.figure.Figure(figsize=(7.0, sum(h for *_, h in panels)), layout="constrained")
    axs = fig.subplots(len(panels), 1, height_ratios=[h for *_, h in panels], squeeze=False)
    for (name, what, _), ax in zip(panels, axs[:, 0], strict=True):
        if what == "posterior":
            plot_posterior(result, name, kind=k, ax=ax)
        else:
            plot_forest(result, name, names=names, ax=ax)
    return fig
