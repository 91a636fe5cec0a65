"""Helpers shared by the figures: matplotlib loading, metric labels, selection of a
summary, densities and legends."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ..._core.describe import describe
from ..._core.validation import check_choice
from ...posterior import MetricSummary

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ...posterior import Evaluation


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


DENSITY = "#4C72B0"  # posterior density / bars


_HDI = "#1f1f1f"  # HDI bar


SCORE = "#C44E52"  # observed score


REF = "#2E8B57"  # reference value


ROPE = "#DD8452"  # region of practical equivalence


def import_matplotlib() -> Any:
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

    Parameters
    ----------
    name : str
        A metric name.

    Returns
    -------
    str
        Its display name.

    See Also
    --------
    f1posterior.report.plots.plot_summary : A figure that uses it.

    Examples
    --------
    >>> metric_label("macro_f1"), metric_label("my_metric")
    ('macro-F1', 'my_metric')
    """
    return _LABELS.get(name, name)


def pct_text(prob: float) -> str:
    return f"{round(100 * prob, 4):g}%"


def new_axes(ax: Any, size: tuple[float, float]) -> tuple[Figure, Axes]:
    mpl = import_matplotlib()
    if ax is None:
        fig = mpl.figure.Figure(figsize=size, layout="constrained")
        return fig, fig.add_subplot()
    if not isinstance(ax, mpl.axes.Axes):
        raise TypeError(f"ax must be a matplotlib Axes or None; got {describe(ax)}")
    return ax.figure, ax


def density(x: np.ndarray, grid_size: int = 512) -> tuple[np.ndarray, np.ndarray]:
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


def check_kind(kind: Any) -> str:
    return str(check_choice(kind, "kind", ("kde", "hist")))


def select(
    result: Evaluation, metric: Any, index: Any
) -> tuple[str, tuple[int, ...], np.ndarray, MetricSummary]:
    """Draws (draws,) and summary of one metric of one matrix/class of a result."""
    name = check_metric_name(result, metric)
    if result.metric_draws is None:
        raise ValueError(
            "result must hold posterior draws to plot a density; got an Evaluation without "
            "them: call evaluate(..., keep_draws=True)"
        )
    draws = np.asarray(result.metric_draws[name])
    lead = draws.shape[:-1]
    idx = check_index(index, lead, name)
    summary = result[name]
    return name, idx, draws[idx], summary[idx] if idx else summary


def check_metric_name(result: Any, metric: Any) -> str:
    from ...posterior import Evaluation

    if not isinstance(result, Evaluation):
        raise TypeError(f"result must be an Evaluation from evaluate(); got {describe(result)}")
    if metric is None:
        return next(iter(result))
    if not isinstance(metric, str) or metric not in result:
        raise ValueError(
            f"metric must be one of the result's metrics {list(result)}; got {metric!r}"
        )
    return metric


def check_index(given: Any, lead: tuple[int, ...], name: str) -> tuple[int, ...]:
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


def item_label(result: Evaluation, name: str, idx: tuple[int, ...]) -> str:
    nb = len(result.batch_shape)
    parts = []
    if idx[:nb]:
        parts.append("matrix " + ",".join(map(str, idx[:nb])))
    if idx[nb:]:
        c = idx[nb]
        labels = result.labels
        parts.append(f"class {labels[c] if labels and c < len(labels) else c}")
    return ", ".join(parts)


def draw_density(
    ax: Axes,
    x: np.ndarray,
    s: MetricSummary,
    *,
    kind: str,
    ref: float | None,
    xlabel: str,
    color: str = DENSITY,
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
        grid, dens = density(x)
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
    pct = pct_text(s.ci_prob)
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
        ax.axvline(s.score, color=SCORE, lw=1.5, ls="--", label=f"observed = {s.score:.3f}")
    if ref is not None:
        below = float(np.mean(x < ref))
        above = float(np.mean(x > ref))
        ax.axvline(ref, color=REF, lw=1.5, label=f"reference = {ref:g}", gid="ref")
        ax.text(
            ref,
            top * 1.26,
            f"{100 * below:.1f}% < {ref:g} < {100 * above:.1f}%",
            ha="center",
            va="top",
            color=REF,
            fontsize=10,
            bbox={"boxstyle": "round,pad=0.3", "fc": "white", "ec": REF, "lw": 0.8},
            zorder=5,
        )
    legend_below(ax)
    # keep the reference visible even if it lies outside the posterior's range
    xmin, xmax = ax.get_xlim()
    pts = [xmin, xmax] + ([ref] if ref is not None else []) + [s.score]
    pts = [p for p in pts if np.isfinite(p)]
    pad = 0.03 * (max(pts) - min(pts))
    ax.set_xlim(
        min(pts) - (pad if min(pts) < xmin else 0), max(pts) + (pad if max(pts) > xmax else 0)
    )


def legend_below(ax: Axes) -> None:
    ax.legend(
        loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=5, fontsize=8, frameon=False,
        handlelength=1.5, columnspacing=1.2,
    )  # fmt: skip


def is_numeric(x: Any) -> bool:
    try:
        a = np.asarray(x)
    except (ValueError, TypeError):
        return False
    return a.dtype != bool and (
        np.issubdtype(a.dtype, np.integer) or np.issubdtype(a.dtype, np.floating)
    )
