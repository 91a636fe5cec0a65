"""Level 3: the posterior of a table and its summaries: the batch engine (chunks, threads,
memory budget), the exact routes and closed forms, ``evaluate`` and ``Evaluation``
(with its text, Markdown and DataFrame forms), multi-label and document evaluation."""

from ._assemble import check_prior_dominance
from ._documents import (
    BINARY_METRICS,
    DOCUMENT_METRICS,
    RANKING_METRICS,
    document_scores,
    evaluate_documents,
)
from ._evaluation import (
    PRIOR_DOMINATED_WHY,
    Evaluation,
    MetricSpec,
    dominated_name,
    evaluate,
    metric_values,
    prior_warning_line,
)
from ._exact import (
    BetaPosterior,
    exact_posterior,
    exact_summary,
    has_exact,
    is_aligned,
    posterior_from_concentration,
    scipy_available,
)
from ._multilabel import (
    MULTILABEL_METRICS,
    check_tables,
    evaluate_multilabel,
    label_posterior,
    multilabel_scores,
)
from ._summary import MetricSummary, eti, hdi, summarize_draws
from ._table import format_markdown, format_table, rows

# fmt: off
__all__ = [
    "BINARY_METRICS", "BetaPosterior", "DOCUMENT_METRICS", "Evaluation", "MULTILABEL_METRICS",
    "MetricSpec", "MetricSummary", "PRIOR_DOMINATED_WHY", "RANKING_METRICS",
    "check_prior_dominance", "check_tables", "document_scores", "dominated_name", "eti",
    "evaluate", "evaluate_documents", "evaluate_multilabel", "exact_posterior", "exact_summary",
    "format_markdown", "format_table", "has_exact", "hdi", "is_aligned", "label_posterior",
    "metric_values", "multilabel_scores", "posterior_from_concentration", "prior_warning_line",
    "rows", "scipy_available", "summarize_draws",
]
# fmt: on
