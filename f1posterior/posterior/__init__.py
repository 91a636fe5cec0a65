"""Level 3: the posterior of a table and its summaries: the batch engine (chunks, threads,
memory budget), the exact routes and closed forms, ``evaluate`` and ``Evaluation``
(with its text, Markdown and DataFrame forms), multi-label and document evaluation."""

from typing import TYPE_CHECKING

from .._core.lazy import attach as _attach

if TYPE_CHECKING:  # the names, for type checkers and IDEs
    from ._assemble import check_prior_dominance as check_prior_dominance
    from ._closed_forms import has_exact as has_exact
    from ._closed_forms import is_aligned as is_aligned
    from ._cluster_paired import paired_cluster_draws as paired_cluster_draws
    from ._cluster_result import CLUSTER_UNIT as CLUSTER_UNIT
    from ._cluster_result import ClusterEvaluation
    from ._clusters import MIN_CLUSTERS as MIN_CLUSTERS
    from ._clusters import ClusterTables as ClusterTables
    from ._clusters import cluster_tables as cluster_tables
    from ._clusters import evaluate_cluster_tables as evaluate_cluster_tables
    from ._clusters import evaluate_clusters
    from ._documents import BINARY_METRICS as BINARY_METRICS
    from ._documents import DOCUMENT_METRICS as DOCUMENT_METRICS
    from ._documents import RANKING_METRICS as RANKING_METRICS
    from ._documents import document_scores, evaluate_documents
    from ._evaluation import PRIOR_DOMINATED_WHY as PRIOR_DOMINATED_WHY
    from ._evaluation import Evaluation, evaluate
    from ._evaluation import MetricSpec as MetricSpec
    from ._evaluation import dominated_name as dominated_name
    from ._evaluation import metric_values as metric_values
    from ._evaluation import prior_warning_line as prior_warning_line
    from ._exact import BetaPosterior, exact_posterior, exact_summary
    from ._exact import posterior_from_concentration as posterior_from_concentration
    from ._exact import scipy_available as scipy_available
    from ._multilabel import MULTILABEL_METRICS as MULTILABEL_METRICS
    from ._multilabel import check_tables as check_tables
    from ._multilabel import evaluate_multilabel, multilabel_scores
    from ._multilabel import label_posterior as label_posterior
    from ._slice_result import SliceEvaluation
    from ._slices import evaluate_slices
    from ._summary import MetricSummary, eti, hdi, summarize_draws
    from ._table import check_evaluation as check_evaluation
    from ._table import evaluation_rows, run_metadata
    from ._table import format_markdown as format_markdown
    from ._table import format_table as format_table
    from ._table import rows as rows
    from ._table import table_cells as table_cells
else:  # each name's module is imported at its first use
    # fmt: off
    __getattr__, __dir__ = _attach(__name__, {
        "._assemble": ("check_prior_dominance",),
        "._cluster_paired": ("paired_cluster_draws",),
        "._cluster_result": ("CLUSTER_UNIT", "ClusterEvaluation"),
        "._clusters": (
            "MIN_CLUSTERS", "ClusterTables", "cluster_tables",
            "evaluate_cluster_tables", "evaluate_clusters"
        ),
        "._documents": (
            "BINARY_METRICS", "DOCUMENT_METRICS", "RANKING_METRICS", "document_scores",
            "evaluate_documents"
        ),
        "._evaluation": (
            "PRIOR_DOMINATED_WHY", "Evaluation", "evaluate", "MetricSpec", "dominated_name",
            "metric_values", "prior_warning_line"
        ),
        "._closed_forms": ("has_exact", "is_aligned"),
        "._exact": (
            "BetaPosterior", "exact_posterior", "exact_summary", "posterior_from_concentration",
            "scipy_available"
        ),
        "._multilabel": (
            "MULTILABEL_METRICS", "check_tables", "evaluate_multilabel", "multilabel_scores",
            "label_posterior"
        ),
        "._slice_result": ("SliceEvaluation",),
        "._slices": ("evaluate_slices",),
        "._summary": ("MetricSummary", "eti", "hdi", "summarize_draws"),
        "._table": (
            "check_evaluation", "evaluation_rows", "run_metadata", "format_markdown",
            "format_table", "rows", "table_cells"
        ),
    })
    # fmt: on

# The names imported but not in __all__ are for the package's other layers, not public API.
# fmt: off
__all__ = [
    "BetaPosterior",
    "ClusterEvaluation",
    "Evaluation",
    "MetricSummary",
    "SliceEvaluation",
    "document_scores",
    "eti",
    "evaluate",
    "evaluate_clusters",
    "evaluate_documents",
    "evaluate_multilabel",
    "evaluate_slices",
    "evaluation_rows",
    "exact_posterior",
    "exact_summary",
    "hdi",
    "multilabel_scores",
    "run_metadata",
    "summarize_draws",
]
# fmt: on
