"""The posterior density of one metric (`plot_posterior`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from ..._core.describe import describe
from ..._core.validation import check_prob, check_ref
from ...posterior import summarize_draws
from ._common import (
    check_kind,
    draw_density,
    is_numeric,
    item_label,
    metric_label,
    new_axes,
    select,
)

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ...posterior import Evaluation

__all__ = ["plot_posterior"]


def plot_posterior(
    result: Evaluation | ArrayLike,
    metric: str | None = None,
    *,
    index: int | Sequence[int] = (),
    ref: float | None = None,
    kind: str = "kde",
    score: float | None = None,
    ci_prob: float = 0.95,
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
    ci_prob : float, default 0.95
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

    See Also
    --------
    f1posterior.evaluate : The result it draws.

    Examples
    --------
    >>> from f1posterior import evaluate
    >>> from f1posterior.io._data import figure3
    >>> res = evaluate(figure3(), draws=2000, ref=0.8, rng=0, keep_draws=True)
    >>> fig = plot_posterior(res, "micro_f1")
    >>> fig.axes[0].get_xlabel()
    'micro-F1'
    """
    k = check_kind(kind)
    from ...posterior import Evaluation

    if isinstance(result, Evaluation):
        name, idx, x, s = select(result, metric, index)
        r = result.ref if ref is None else check_ref(ref)
        item = item_label(result, name, idx)
        xlabel = metric_label(name)
        default_title = f"Posterior of {xlabel}" + (f" ({item})" if item else "")
    else:
        x = np.asarray(result, dtype=float) if is_numeric(result) else np.empty((0, 0))
        if x.ndim != 1 or x.size < 2 or not np.isfinite(x).all():
            raise ValueError(
                "result must be an Evaluation or a 1-D array of at least 2 finite draws; "
                f"got {describe(result)}"
            )
        r = check_ref(ref)
        s = summarize_draws(x, score=score, ci_prob=check_prob(ci_prob, "ci_prob"), ref=r)
        xlabel = metric if metric is not None else "value"
        default_title = f"Posterior of {metric_label(xlabel)}"
        xlabel = metric_label(xlabel)
    fig, axes = new_axes(ax, (6.4, 3.6))
    draw_density(axes, np.asarray(x, dtype=float), s, kind=k, ref=r, xlabel=xlabel)
    axes.set_title(default_title if title is None else title, fontsize=11)
    return fig
