"""``f1posterior compare``: is classifier A better than B?

Design notes: docs/design.md#cli-compare
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from .._core.priors import prior_preset
from .._core.text import escape_text
from ..analysis import (
    Comparison,
    Ranking,
    compare,
    compare_predictions,
    rank_classifiers,
    rank_predictions,
)
from ..io import (
    INPUT_FORMATS,
    Receipt,
    is_predictions_table,
    is_stdin,
    json_document,
    read_input,
    read_prediction_table,
    source_name,
)
from ..metrics import METRICS, PER_CLASS_METRICS
from ._common import add_sampling_arguments, nonnegative_number, probability, save_figure
from ._figures import add_output_arguments, save_report
from ._folds import add_fold_argument, fold_result, report_folds
from ._input_args import (
    CLUSTER_COL_HELP,
    ID_COL_HELP,
    INPUT_FORMAT_HELP,
    add_cluster_argument,
    check_stdin_inputs,
)
from ._prediction_tables import pair_prediction_tables, read_clustered
from ._receipts import command_receipt, digests

__all__ = [
    "register",
    "run",
    "paired_prior",
]

SCALAR_METRICS = [m for m in METRICS if m not in PER_CLASS_METRICS]


def register(sub: Any) -> None:
    p = sub.add_parser(
        "compare",
        help="compare classifiers: P(A better), paired or independent",
        description="Posterior of the difference metric(A) - metric(B), P(A better), "
        "P(B better), P(practically equal) and a decision. Files A B: confusion matrices "
        "from independent test sets. --predictions FILE.csv: a y_true column and one column "
        "per model, predictions on the same documents (the paired model, far more "
        "decisive). FILEs that are all predictions CSVs (y_true, y_pred) are paired like "
        "gate's FILE and BASEFILE: by --id-col, or when they list the same true labels in the "
        "same order. Three or more classifiers are ranked.",
    )
    p.add_argument(
        "files",
        nargs="*",
        metavar="FILE",
        help="confusion-matrix files or predictions CSVs, one per model; one may be - "
        "(standard input)",
    )
    p.add_argument(
        "--predictions",
        metavar="CSV",
        help="predictions CSV: column y_true and one column per model (same documents)",
    )
    p.add_argument(
        "--models",
        nargs="+",
        metavar="NAME",
        help="model columns of --predictions to compare (default: every column but y_true)",
    )
    p.add_argument(
        "--true-col",
        default="y_true",
        help="column of true labels in --predictions and predictions-CSV FILEs (y_true)",
    )
    p.add_argument(
        "--pred-col",
        default="y_pred",
        help="column of predicted labels in predictions-CSV FILEs (default y_pred)",
    )
    p.add_argument(
        "--id-col",
        default=None,
        metavar="NAME",
        help=ID_COL_HELP.replace("(FILE and BASEFILE)", "(the FILEs)")
        + "; with --predictions, the column is not a model",
    )
    p.add_argument(
        "--input-format", choices=INPUT_FORMATS, default=None, metavar="FMT", help=INPUT_FORMAT_HELP
    )
    p.add_argument(
        "--metric",
        default="macro_f1",
        choices=SCALAR_METRICS,
        metavar="NAME",
        help="metric to compare (default macro_f1); one of " + ", ".join(SCALAR_METRICS),
    )
    p.add_argument(
        "--rope",
        type=nonnegative_number,
        default=0.0,
        help="half-width of the region of practical equivalence (default 0)",
    )
    p.add_argument(
        "--prob",
        type=probability,
        default=0.95,
        help="probability a decision needs, in (0.5, 1) (default 0.95)",
    )
    p.add_argument(
        "--format",
        choices=["table", "json", "markdown"],
        default="table",
        help="output on standard output: a text table (default), JSON or a Markdown report "
        "(names escaped)",
    )
    add_cluster_argument(
        p, CLUSTER_COL_HELP + "; in --predictions or the first FILE, two models (paired)"
    )
    add_fold_argument(p)
    add_output_arguments(p)
    add_sampling_arguments(p)
    p.set_defaults(run=run)


def paired_prior(name: str) -> dict[str, Any]:
    """Paired-model ``alpha``/``beta`` for a prior preset name.

    The paired model resolves every preset as the core does, so that each
    model's marginal prior is the preset
    (:func:`f1posterior.analysis.compare_predictions`).
    """
    alpha, beta = prior_preset(name)
    return {"alpha": alpha, "beta": beta}


def _align_labels(inputs: list[Any], files: list[str]) -> list[np.ndarray]:
    """Counts of every file in the first labelled file's class order."""
    ref = next((d for d in inputs if d.labels is not None), None)
    out = []
    for d, f in zip(inputs, files, strict=True):
        if ref is None or d.labels is None or d.labels == ref.labels:
            out.append(d.counts)
            continue
        if set(d.labels) != set(ref.labels):
            raise ValueError(
                f"{f}: different class labels from {ref.source}: {d.labels} vs {ref.labels}; "
                "the classifiers must be scored on the same classes"
            )
        order = [d.labels.index(x) for x in ref.labels]
        out.append(d.counts[..., order, :][..., :, order])
    return out


def _compare_paired(
    y_true: list[str],
    preds: dict[str, list[str]],
    args: argparse.Namespace,
    common: dict[str, Any],
    clusters: list[str] | None = None,
) -> Comparison | Ranking:
    """The paired model on predictions of the same documents (two compared, more ranked)."""
    prior = paired_prior(args.prior)
    names = list(preds)
    if clusters is not None and len(preds) != 2:
        raise ValueError(
            f"--cluster-col {args.cluster_col} compares two models; got {len(preds)}: {names}"
        )
    if len(preds) == 2:
        return compare_predictions(
            y_true, preds[names[0]], preds[names[1]], rope=args.rope, prob=args.prob,
            cluster=clusters, **prior, **common,
        )  # fmt: skip
    return rank_predictions(y_true, preds, **prior, **common)


def _paired_files(args: argparse.Namespace) -> tuple[list[str], dict[str, list[str]]] | None:
    """FILEs that are all predictions CSVs, paired as ``gate`` pairs them; else None."""
    fmts = [args.input_format if is_stdin(f) else None for f in args.files]
    all_predictions = all(
        is_predictions_table(f, true_col=args.true_col, pred_col=args.pred_col, input_format=fmt)
        for f, fmt in zip(args.files, fmts, strict=True)
    )
    if not all_predictions:
        if args.id_col is not None:
            bad = next(
                source_name(f)
                for f, fmt in zip(args.files, fmts, strict=True)
                if not is_predictions_table(
                    f, true_col=args.true_col, pred_col=args.pred_col, input_format=fmt
                )
            )
            raise ValueError(
                f"--id-col {args.id_col} pairs predictions CSVs; {bad} is not one (a predictions "
                f"CSV has {args.true_col!r} and {args.pred_col!r} columns)"
            )
        return None
    tables = [
        read_prediction_table(
            f, args.true_col, [args.pred_col], min_models=1, id_col=args.id_col, input_format=fmt
        )
        for f, fmt in zip(args.files, fmts, strict=True)
    ]
    sources = [t.source for t in tables]
    if len(set(sources)) != len(sources):
        dup = next(x for x in sources if sources.count(x) > 1)
        raise ValueError(f"compare: FILE {dup} is given twice; give each model's file once")
    paired = pair_prediction_tables(tables, args.id_col, command="f1posterior compare")
    if paired is None:
        return None
    return paired[0].y_true, {t.source: t.preds[args.pred_col] for t in paired}


def run(args: argparse.Namespace) -> int:
    common = dict(metric=args.metric, draws=args.draws, ci_prob=args.ci_prob, rng=args.seed)
    result: Comparison | Ranking
    check_stdin_inputs(args, [args.predictions, *args.files])
    if args.fold_col is not None:
        if args.cluster_col is not None:
            raise ValueError(
                "--fold-col and --cluster-col: not together (leave out one of the two)"
            )
        across, names, source = fold_result(args, common, paired_prior(args.prior))
        if isinstance(across, Ranking):
            return _report(args, across, names, source)
        return report_folds(args, across, names, source)
    if args.tau_scale is not None or args.target is not None:
        raise ValueError("--tau-scale and --target apply across folds; give --fold-col")
    if args.predictions is not None:
        if args.files:
            raise ValueError(
                "give either confusion-matrix FILEs or --predictions CSV, not both; got "
                f"{len(args.files)} file(s) and --predictions {args.predictions}"
            )
        fmt = args.input_format if is_stdin(args.predictions) else None
        table = read_prediction_table(
            args.predictions, args.true_col, args.models, id_col=args.id_col, input_format=fmt,
            cluster_col=args.cluster_col,
        )  # fmt: skip
        y_true, preds = table.y_true, table.preds
        where = source_name(args.predictions)
        if args.models is None:
            known = set(y_true)
            for col, values in preds.items():
                extra = sorted(set(values) - known)
                if extra:
                    raise ValueError(
                        f"{where}: column {col!r} holds labels that never occur in "
                        f"{args.true_col}: {extra[:5]}; if it is not a model's predictions, "
                        "name the model columns with --models (or the id column with --id-col)"
                    )
        names = list(preds)
        result = _compare_paired(y_true, preds, args, common, table.clusters)
        source = f"{where} (paired: same documents{_in_clusters(args)})"
    else:
        if args.models:
            raise ValueError("--models selects columns of --predictions; got no --predictions")
        if len(args.files) < 2:
            raise ValueError(
                f"compare needs two or more confusion-matrix FILEs, or --predictions CSV; got "
                f"{len(args.files)} file(s)"
            )
        paired_files = _paired_files(args)
        if paired_files is not None:
            y_true, preds = paired_files
            names = list(preds)
            clusters = None
            if args.cluster_col is not None:
                clusters = read_clustered(args, args.files[0]).clusters  # FILE 1's row order
            result = _compare_paired(y_true, preds, args, common, clusters)
            how = f"joined on {args.id_col}" if args.id_col is not None else "same row order"
            return _report(
                args, result, names,
                f"{', '.join(names)} (paired: same documents, {how}{_in_clusters(args)})",
            )  # fmt: skip
        if args.cluster_col is not None:
            raise ValueError(
                f"--cluster-col {args.cluster_col} needs the two models' predictions of the "
                "same documents (--predictions CSV, or two paired predictions CSVs); the FILEs "
                "are independent test sets"
            )
        names = [source_name(f) for f in args.files]
        inputs = [
            read_input(
                f,
                true_col=args.true_col,
                pred_col=args.pred_col,
                input_format=args.input_format if is_stdin(f) else None,
            )
            for f in args.files
        ]
        counts = _align_labels(inputs, names)
        alpha, beta = prior_preset(args.prior)
        if len(counts) == 2:
            result = compare(
                counts[0], counts[1], rope=args.rope, prob=args.prob, alpha=alpha, beta=beta,
                **common,
            )  # fmt: skip
        else:
            shapes = {c.shape for c in counts}
            if len(shapes) != 1:
                raise ValueError(
                    f"ranking needs confusion matrices of one shape; got {sorted(shapes)}"
                )
            result = rank_classifiers(
                np.stack(counts, axis=-3), names=names, alpha=alpha, beta=beta, **common
            )
        source = ", ".join(names) + " (independent test sets)"
    return _report(args, result, names, source)


def _in_clusters(args: argparse.Namespace) -> str:
    col = args.cluster_col
    return "" if col is None else f"; clusters of documents from column {col!r}"


def _report(
    args: argparse.Namespace, result: Comparison | Ranking, names: list[str], source: str
) -> int:
    shown = names if isinstance(result, Comparison) else None
    paths = [("predictions", args.predictions), *(("file", f) for f in args.files)]
    receipt = command_receipt(args, result, digests(paths))
    if args.format == "json":
        out = result.to_dict()
        out["source"] = source
        if isinstance(result, Comparison):
            out["models"] = {"A": names[0], "B": names[1]}
        print(json_document(out, receipt))
    elif args.format == "markdown":
        from ..report import render_comparison_report

        text = render_comparison_report(
            result, fmt="markdown", names=shown, source=source, plot=False
        )
        print(f"{text}\n{receipt.markdown()}")
    else:
        print(f"Input: {escape_text(source)}")
        if isinstance(result, Comparison):
            print(f"A = {escape_text(names[0])}, B = {escape_text(names[1])}")
        print(result)
        print(receipt.text())
    return _write_files(args, result, shown, source, receipt)


def _write_files(
    args: argparse.Namespace,
    result: Comparison | Ranking,
    names: list[str] | None,
    source: str,
    receipt: Receipt,
) -> int:
    """Files of ``--plot`` (the difference's density, or the rank probabilities) and
    ``--report`` (HTML or Markdown with the tables and the figure)."""
    if args.plot:
        from ..report.plots import plot_comparison, plot_ranking

        if isinstance(result, Comparison):
            assert names is not None
            fig = plot_comparison(result, names=(names[0], names[1]))
        else:
            fig = plot_ranking(result)
        save_figure(fig, args.plot, "--plot")
    if args.report:
        from ..report import render_comparison_report

        save_report(
            args.report,
            lambda f: render_comparison_report(result, fmt=f, names=names, source=source),
            receipt,
        )
    return 0
