"""``--cluster-col``: clustered documents on the command line (summarize, compare, gate, plan).

A predictions CSV with a column naming each document's cluster (user, conversation,
source, ...): the metrics are then evaluated by the Bayesian bootstrap over clusters of
:func:`f1posterior.evaluate_clusters`, and every output names the unit (clusters of
documents, with their counts) and the design effect.
"""

from __future__ import annotations

import argparse
from typing import Any

from .._core.text import escape_text
from ._common import refuse_options
from ._input_args import CLUSTER_COL_HELP, add_cluster_argument
from ._prediction_tables import read_clustered

__all__ = ["add_plan_cluster_arguments", "plan_clustering", "run_summarize_clusters"]


def run_summarize_clusters(args: argparse.Namespace) -> int:
    """``summarize FILE --cluster-col NAME``: text, JSON or Markdown naming the unit."""
    from .._core.priors import DEFAULT_PRIOR
    from ..posterior import evaluate_clusters, format_markdown, format_table

    rows = args.format in ("csv", "tsv", "ndjson", "parquet") or args.output or args.long
    refuse_options("--cluster-col", [
        ("--multilabel", args.multilabel), ("--documents", args.documents is not None),
        ("--prior-sensitivity", args.prior_sensitivity),
        (f"--prior {args.prior}", args.prior != DEFAULT_PRIOR),
        ("--prevalence", bool(args.prevalence)), ("--chance", bool(args.chance)),
        ("--transpose", args.transpose),
        ("row output (--format csv/tsv/ndjson/parquet, --output, --long)", bool(rows)),
    ], "clustered documents are evaluated by a Bayesian bootstrap over the clusters of one "
       "predictions CSV")  # fmt: skip
    if args.file is None:
        raise ValueError("--cluster-col needs a FILE: a predictions CSV with a cluster column")
    data = read_clustered(args, args.file)
    metrics = args.metric or ("micro_f1", "macro_f1")
    try:
        result = evaluate_clusters(
            data.y_true, data.y_pred, data.clusters, metrics=metrics, labels=args.labels,
            draws=args.draws, ref=args.ref, ci_prob=args.ci_prob, rng=args.seed,
        )  # fmt: skip
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{data.source}: {exc}") from None
    from ._receipts import command_receipt, digests, print_with_receipt

    receipt = command_receipt(args, result, digests([("file", args.file)]))
    design = result.design_text()
    print_with_receipt(
        args.format,
        receipt,
        {**result.to_dict(), "source": data.source},
        f"{format_markdown(result)}\n\n{escape_text(design)}.",
        f"Input: {escape_text(data.source)} (column {args.cluster_col!r}: clusters)\n"
        f"{format_table(result)}\n{design}",
    )
    return 0


def add_plan_cluster_arguments(p: argparse.ArgumentParser) -> None:
    """``plan``'s --cluster-col, --design-effect, --icc and --cluster-size."""
    g = p.add_argument_group("clustered documents")
    add_cluster_argument(
        g,
        CLUSTER_COL_HELP + ": the design effect of --metric is measured on FILE "
        "(and the cluster size is FILE's mean unless --cluster-size)",
    )
    g.add_argument(
        "--design-effect", type=float, default=None, metavar="D",
        help="design effect D >= 1 of clustered documents: n documents are worth n / D",
    )  # fmt: skip
    g.add_argument(
        "--icc", type=float, default=None, metavar="RHO",
        help="intra-cluster correlation in [0, 1], with --cluster-size: D = 1 + (M - 1) RHO",
    )  # fmt: skip
    g.add_argument(
        "--cluster-size", type=float, default=None, metavar="M",
        help="documents per future cluster: the answer is also given in clusters of documents "
        "(with --cluster-col, --design-effect or --icc)",
    )  # fmt: skip


def plan_clustering(args: argparse.Namespace) -> dict[str, Any]:
    """``plan``'s ``design_effect``/``icc``/``cluster_size`` keywords from the options.

    With ``--cluster-col`` the design effect is measured on FILE by
    :func:`f1posterior.evaluate_clusters` (the largest over the classes of a
    per-class metric) and the cluster size is FILE's mean cluster size.
    """
    out = {
        "design_effect": args.design_effect, "icc": args.icc, "cluster_size": args.cluster_size,
    }  # fmt: skip
    if args.cluster_col is None:
        return out
    if args.design_effect is not None or args.icc is not None:
        raise ValueError(
            "--cluster-col measures the design effect on FILE; leave out --design-effect/--icc"
        )
    import numpy as np

    from ..posterior import evaluate_clusters

    data = read_clustered(args, args.file)
    res = evaluate_clusters(
        data.y_true, data.y_pred, data.clusters, metrics=args.metric, labels=args.labels,
        draws=20_000, rng=args.seed,
    )  # fmt: skip
    deff = float(np.nanmax(np.atleast_1d(res.design_effect[args.metric])))
    out["design_effect"] = max(deff, 1.0)
    if args.cluster_size is None:
        out["cluster_size"] = res.n_documents / res.n_clusters
    return out
