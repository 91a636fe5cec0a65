"""Regenerate the example images of the docs: ``python docs/img/make_images.py``.

Figure 4a of Zhang, Wang & Zhao (2015) for micro- and macro-F1 of the paper's
Figure 3 matrix (prior alpha = beta = 1, 50,000 draws, reference 0.8), and a
forest plot of its per-class F1.
"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

from f1posterior import evaluate  # noqa: E402
from f1posterior.io import FIGURE3_LABELS, figure3  # noqa: E402
from f1posterior.report.plots import metric_label, plot_forest, plot_posterior  # noqa: E402

HERE = Path(__file__).resolve().parent

res = evaluate(
    figure3(),
    metrics=["micro_f1", "macro_f1", "f1"],
    draws=50_000,
    ref=0.8,
    rng=20150927,
    keep_draws=True,
    labels=FIGURE3_LABELS,
)
for metric in ("micro_f1", "macro_f1"):
    fig = plot_posterior(
        res, metric, title=f"Figure 4a reproduced: posterior of {metric_label(metric)}"
    )
    fig.savefig(HERE / f"figure4a_{metric}.png", dpi=110)
fig = plot_forest(res, "f1", title="Per-class F1 of the Figure 3 matrix")
fig.savefig(HERE / "forest_per_class_f1.png", dpi=110)
