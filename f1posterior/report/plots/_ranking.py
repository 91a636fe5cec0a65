"""Rank probabilities of k classifiers as a heat map (`plot_ranking`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..._core.describe import describe
from ._common import check_index, metric_label, new_axes

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


def plot_ranking(
    ranking: Any,
    *,
    index: int | Sequence[int] = (),
    ax: Axes | None = None,
    title: str | None = None,
) -> Figure:
    """Heat map of P(classifier i has rank r), classifiers sorted by expected rank.

    Parameters
    ----------
    ranking : Ranking
        A result of :func:`f1posterior.rank_classifiers` or
        :func:`f1posterior.rank_predictions`: it needs ``names``,
        ``rank_probabilities`` (shape ``(*batch, k, k)``), ``expected_rank`` and
        ``metric``.
    index : int or tuple of int, default ()
        Which ranking of a batch.
    ax : matplotlib Axes, optional
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        One row per classifier (best expected rank on top, labelled with its
        name and E[rank]), one column per rank; every cell shows its probability.

    See Also
    --------
    f1posterior.rank_classifiers : The result it draws.

    Examples
    --------
    >>> import numpy as np
    >>> from f1posterior import rank_predictions
    >>> y = [0] * 30 + [1] * 30
    >>> preds = {"a": y, "b": [0] * 25 + [1] * 5 + [1] * 25 + [0] * 5}
    >>> fig = plot_ranking(rank_predictions(y, preds, metric="accuracy", draws=2_000, rng=0))
    >>> [t.get_text() for t in fig.axes[0].get_yticklabels()]
    ['a (E[rank] 1.00)', 'b (E[rank] 2.00)']
    """
    for attr in ("names", "rank_probabilities", "expected_rank", "metric"):
        if not hasattr(ranking, attr):
            raise TypeError(
                f"ranking must be a Ranking with a {attr!r} field; got {describe(ranking)}"
            )
    probs_all = np.asarray(ranking.rank_probabilities, dtype=float)
    idx = check_index(index, probs_all.shape[:-2], "ranking")
    probs = probs_all[idx]
    expected = np.asarray(ranking.expected_rank, dtype=float)[idx]
    k = probs.shape[-1]
    order = np.argsort(expected, kind="stable")
    names = [str(ranking.names[i]) for i in order]
    fig, axes = new_axes(ax, (1.6 + 0.7 * k, 1.2 + 0.45 * k))
    image = axes.imshow(probs[order], cmap="Blues", vmin=0.0, vmax=1.0, aspect="auto")
    for r, i in enumerate(order):
        for c in range(k):
            p = probs[i, c]
            axes.text(
                c, r, f"{p:.2f}", ha="center", va="center", fontsize=8,
                color="white" if p > 0.6 else "#1f1f1f", gid="cell",
            )  # fmt: skip
    axes.set_xticks(range(k), [str(r + 1) for r in range(k)])
    labels = [f"{n} (E[rank] {expected[i]:.2f})" for n, i in zip(names, order, strict=True)]
    axes.set_yticks(range(k), labels, parse_math=False)  # names are text, never mathtext
    axes.set_xlabel("rank (1 = best)")
    fig.colorbar(image, ax=axes, label="posterior probability")
    if title is None:
        title = f"Ranking by {metric_label(str(ranking.metric))}"
    axes.set_title(title, fontsize=11)
    return fig
