"""The figure of a result: a forest of all metrics or one posterior (`plot_summary`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..._core.describe import describe
from ._common import (
    check_kind,
    import_matplotlib,
)
from ._forest import plot_forest
from ._posterior import plot_posterior

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

    from ...posterior import Evaluation


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

    See Also
    --------
    f1posterior.evaluate : The result it draws.
    f1posterior.report.plots.plot_forest : Per-class intervals.

    Examples
    --------
    >>> from f1posterior import evaluate
    >>> from f1posterior.io._data import figure3
    >>> res = evaluate(figure3(), metrics=["micro_f1", "f1"], draws=2000, rng=0,
    ...                keep_draws=True)
    >>> len(plot_summary(res).axes)
    2
    """
    mpl = import_matplotlib()
    from ...posterior import Evaluation

    if not isinstance(result, Evaluation):
        raise TypeError(f"result must be an Evaluation from evaluate(); got {describe(result)}")
    k = check_kind(kind)
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
