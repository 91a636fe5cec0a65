"""``f1posterior summarize``: posterior summaries of one confusion matrix."""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import Any

from .._core.priors import DEFAULT_PRIOR
from .._core.streams import DEFAULT_DRAWS
from ..analysis import (
    DEFAULT_PRIORS,
    DEFAULT_THRESHOLD,
    PriorSensitivity,
    prior_sensitivity,
)
from ..io import (
    FIGURE3_LABELS,
    TABLE1,
    MatrixInput,
    Receipt,
    figure3,
    json_document,
    read_documents,
    read_multilabel,
)
from ..metrics import METRICS
from ..posterior import (
    BINARY_METRICS,
    DOCUMENT_METRICS,
    MULTILABEL_METRICS,
    RANKING_METRICS,
    Evaluation,
    evaluate,
    evaluate_documents,
    evaluate_multilabel,
    format_markdown,
    format_table,
)
from ._clusters import run_summarize_clusters
from ._common import (
    SINGLE_LABEL_WHY,
    add_sampling_arguments,
    check_metric_names,
    prior_from_args,
    refuse_options,
    warn_prior,
)
from ._figures import add_output_arguments, wants_draws, write_outputs
from ._input_args import FILE_HELP, add_cluster_argument, add_input_arguments, load_input
from ._progress import terminal_progress
from ._receipts import command_receipt, digests, embedded_example
from ._slices import add_slice_arguments, run_slices
from ._stream import (
    BATCH_MIN_DRAWS,
    add_stream_arguments,
    is_batch_run,
    run_stream,
)

__all__ = ["register", "run", "paper_comparison"]


def register(sub: Any) -> None:
    p = sub.add_parser(
        "summarize",
        help="posterior summaries of a confusion matrix",
        description="Posterior mean, std, MC error, HDI and P(< ref) of F-scores of a "
        "confusion matrix (rows = true class). With no FILE, runs on the paper's "
        "Figure 3 matrix and prints Table 1 side by side.",
    )
    p.add_argument(
        "file", nargs="?", metavar="FILE", help=FILE_HELP + "; one row per matrix of a batch"
    )
    p.add_argument(
        "--metric",
        action="append",
        choices=list(dict.fromkeys([*METRICS, *MULTILABEL_METRICS, *DOCUMENT_METRICS])),
        metavar="NAME",
        help="metric to summarise (repeatable; default micro_f1 and macro_f1); one of "
        + ", ".join(METRICS)
        + "; with --multilabel one of "
        + ", ".join(MULTILABEL_METRICS)
        + "; with --documents one of "
        + ", ".join(DOCUMENT_METRICS),
    )
    p.add_argument(
        "--multilabel",
        action="store_true",
        help="FILE holds multi-label input: a .npy stack (L, 2, 2) or (B, L, 2, 2) of per-label "
        'tables [[tn, fp], [fn, tp]], or .json: a list of such tables, {"tables", "labels"}, '
        'or indicator predictions {"y_true", "y_pred", "labels"} of shape (D, L)',
    )
    p.add_argument(
        "--documents",
        metavar="DOCFILE",
        help="document-level multi-label metrics (Bayesian bootstrap over documents) instead "
        'of FILE: .json {"y_true": [[0, 1, ...], ...], "y_pred": [[...], ...], "scores": '
        "[[...], ...]} with (D, L) 0/1 indicators and optional scores (y_pred and/or scores), "
        "or .npz arrays of those names",
    )
    p.add_argument(
        "--zero-division",
        type=int,
        choices=[0, 1],
        default=None,
        help="with --documents: value of a 0/0 document-level set metric (default 0)",
    )
    p.add_argument(
        "--f-beta",
        type=float,
        default=1.0,
        help="beta of the *_fbeta multi-label metrics and of samples_fbeta (default 1)",
    )
    p.add_argument(
        "--ref", type=float, default=None, help="reference value (default 0.8 on the example)"
    )
    p.add_argument(
        "--format",
        choices=["table", "json", "markdown", "csv", "tsv", "ndjson", "parquet"],
        default="table",
        help="output format (default table). A batch file (.jsonl, .ndjson, .npz, a (B, M, M) "
        ".npy) and the formats csv, tsv and ndjson are written as rows: name, then "
        "{metric}_{stat} columns (score, mean, std, mc_error, hdi_low, hdi_high; p_below and "
        "p_above with --ref; then the flag prior_dominated), {metric}_{label}_{stat} for "
        "per-class metrics, after a metadata line (version, prior, draws, seed, ci_prob); "
        "parquet (with --output, needs pyarrow: the parquet extra) has the same columns",
    )
    p.add_argument(
        "--prior-sensitivity",
        action="store_true",
        help="also show each metric's mean and HDI under the prior used and every other "
        "preset, with a warning when the prior moves the HDI by more than "
        f"{DEFAULT_THRESHOLD:g} of its width",
    )
    p.add_argument(
        "--prevalence",
        metavar="P1,P2,...|dirichlet:A1,A2,...",
        default=None,
        help="evaluate every metric at this deployment class prevalence instead of the test "
        "set's (cells pi_u theta_uv): a probability vector in class order summing to 1 "
        "(0.01,0.99), or dirichlet:COUNTS for an uncertain one (dirichlet:10,990, drawn per "
        "posterior draw); the score is the re-weighted observed table's",
    )
    p.add_argument(
        "--chance",
        action="store_true",
        help="add each metric's chance level (a classifier predicting at the same rates, "
        "independently of the truth) and P(metric > chance): columns {metric}_chance and "
        "{metric}_p_above_chance in row formats",
    )
    add_output_arguments(p)
    add_input_arguments(p)
    add_cluster_argument(p)
    add_sampling_arguments(p)
    add_stream_arguments(p)
    add_slice_arguments(p)
    p.set_defaults(run=run, draws=None)
    p._option_string_actions["--draws"].help = (
        f"posterior draws per matrix (default {DEFAULT_DRAWS:,}; a batch written as rows "
        f"defaults to fewer for large batches, never below {BATCH_MIN_DRAWS:,}: docs/batch.md)"
    )


def load(args: argparse.Namespace) -> MatrixInput:
    if args.file is None:
        return MatrixInput(
            counts=figure3().astype(float),
            labels=list(FIGURE3_LABELS),
            names=None,
            source="embedded example: Zhang et al. (2015), Figure 3",
        )
    return load_input(args, args.file)


def paper_comparison(result: Evaluation, default: Evaluation | None = None) -> str:
    """Table 1 of the paper beside this run's numbers under the paper's prior.

    ``result`` must be computed under the paper's prior (alpha = beta = 1);
    ``default``, if given, adds a column with the default prior's numbers.
    """
    extra = f" {'default prior':<16}" if default is not None else ""
    lines = [
        "Zhang, Wang & Zhao (2015) Table 1, reproduced under the paper's prior "
        "(paper: PyMC3 Metropolis, 50,000 samples; here: exact conjugate draws)",
        f"{'metric':<9} {'quantity':<16} {'paper':<16} {'f1posterior':<16}{extra}".rstrip(),
    ]

    def cells(s: Any) -> dict[str, str]:
        out = {
            "score": f"{s.score:.3f}",
            "mean": f"{s.mean:.3f}",
            "std": f"{s.std:.3f}",
            "mc_error": f"{s.mc_error:.3f}",
        }
        if s.p_below is not None:
            out["% below / above"] = f"{100 * s.p_below:.1f} / {100 * s.p_above:.1f}"
        out["95% HDI"] = f"[{s.hdi[0]:.3f}, {s.hdi[1]:.3f}]"
        return out

    for metric, paper in TABLE1.items():
        if metric not in result:
            continue
        ours = cells(result[metric])
        other = cells(default[metric]) if default is not None and metric in default else {}
        theirs = {k: f"{paper[k]:.3f}" for k in ("score", "mean", "std", "mc_error")}
        theirs["% below / above"] = f"{paper['pct_below']:.1f} / {paper['pct_above']:.1f}"
        lo, hi = paper["hdi"]  # type: ignore[misc]
        theirs["95% HDI"] = f"[{lo:.3f}, {hi:.3f}]"
        for i, key in enumerate(ours):
            row = f"{metric if i == 0 else '':<9} {key:<16} {theirs[key]:<16} {ours[key]:<16}"
            if other:
                row += f" {other[key]}"
            lines.append(row.rstrip())
    if default is not None:
        lines.append(
            f"(default prior: {default.prior}; the paper's prior adds M pseudo-documents to "
            "every row and under-covers the truth with many classes: docs/calibration.md)"
        )
    return "\n".join(lines)


def _run_multilabel(args: argparse.Namespace) -> int:
    if args.file is None:
        raise ValueError("--multilabel needs a FILE of per-label tables or indicator predictions")
    if args.prior_sensitivity:
        raise ValueError("--prior-sensitivity is not available with --multilabel")
    data = read_multilabel(args.file, labels=args.labels)
    metrics = args.metric or ["micro_f1", "macro_f1"]
    check_metric_names(metrics, MULTILABEL_METRICS, "is not a multi-label metric; use one of")
    result = evaluate_multilabel(
        data.counts,
        metrics=metrics,
        f_beta=args.f_beta,
        draws=args.draws,
        ref=args.ref,
        ci_prob=args.ci_prob,
        **_in_memory(args, data),
    )
    receipt = _receipt_of(result, "file", args.file)
    if write_outputs(args, result, source=data.source, names=data.names, receipt=receipt):
        return 2
    header = f"Input: {data.source} (multi-label: {data.counts.shape[-3]} labels)"
    _print_result(args.format, result, data.source, header, data.names, receipt=receipt)
    _close(args.format, receipt)
    return 0


def _in_memory(args: argparse.Namespace, data: Any) -> dict[str, Any]:
    """Keywords of evaluate and evaluate_multilabel an in-memory run takes from ``args``."""
    return dict(
        rng=args.seed, labels=data.labels, keep_draws=wants_draws(args), workers=args.workers,
        max_memory=args.max_memory, progress=terminal_progress(), **prior_from_args(args),
    )  # fmt: skip


def _run_documents(args: argparse.Namespace) -> int:
    refuse_options(
        "--documents",
        [
            ("FILE", args.file is not None),
            ("--multilabel", args.multilabel),
            ("--prior-sensitivity", args.prior_sensitivity),
            (f"--prior {args.prior}", args.prior != DEFAULT_PRIOR),
            ("--labels", args.labels is not None),
            ("--transpose", args.transpose),
            ("--predictions", args.predictions),
        ],
        "document-level metrics come from the per-document values in DOCFILE, with a Bayesian "
        "bootstrap over documents (no prior to choose)",
    )
    metrics = args.metric
    if metrics is not None:
        why = "is not a document-level metric; with --documents use one of"
        check_metric_names(metrics, DOCUMENT_METRICS, why)
    data = read_documents(args.documents)
    for m in metrics or []:
        if m in BINARY_METRICS and data.y_pred is None:
            raise ValueError(f'{data.source}: --metric {m} needs "y_pred" (predicted labels)')
        if m in RANKING_METRICS and data.scores is None:
            raise ValueError(f'{data.source}: --metric {m} needs "scores" (a score matrix)')
    try:
        result = evaluate_documents(
            data.y_true,
            data.y_pred,
            data.scores,
            metrics=metrics,
            f_beta=args.f_beta,
            zero_division=args.zero_division or 0,
            draws=args.draws,
            ref=args.ref,
            ci_prob=args.ci_prob,
            rng=args.seed,
            keep_draws=wants_draws(args),
        )
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{data.source}: {exc}") from None
    receipt = _receipt_of(result, "documents", args.documents)
    if write_outputs(args, result, source=data.source, receipt=receipt):
        return 2
    d, n_labels = data.y_true.shape
    header = f"Input: {data.source} (documents: {d:,} documents, {n_labels} labels)"
    _print_result(args.format, result, data.source, header, receipt=receipt)
    _close(args.format, receipt)
    return 0


def _print_result(
    fmt: str,
    result: Any,
    source: str,
    header: str,
    names: list[str] | None = None,
    extra: dict[str, Any] | None = None,
    receipt: Receipt | None = None,
) -> None:
    """Print ``result`` as JSON (with ``source``, ``extra``), Markdown or ``header`` + table,
    with the ``receipt`` (in the JSON, as a Markdown footer; a table's is printed last)."""
    if fmt == "json":
        out = result.to_dict()
        out["source"] = source
        out.update(extra or {})
        print(json_document(out, receipt or _receipt_of(result)))
    elif fmt == "markdown":
        print(format_markdown(result, names))
        print(f"\n{(receipt or _receipt_of(result)).markdown()}")
    else:
        print(header)
        print(format_table(result, names))


def _receipt_of(result: Any, role: str = "file", path: str | None = None) -> Receipt:
    """The receipt of a ``summarize`` run: its input (``path``) and ``result``'s settings."""
    args = argparse.Namespace(command="summarize")
    return command_receipt(args, result, digests([(role, path)]))


def _check_single_label(metrics: list[str]) -> None:
    check_metric_names(metrics, list(METRICS), SINGLE_LABEL_WHY)


def _check_row_options(args: argparse.Namespace) -> None:
    """Row formats and --output/--long are for single-label matrices (not the example)."""
    rows = args.format in ("csv", "tsv", "ndjson", "parquet") or args.output or args.long
    if rows and (args.multilabel or args.documents is not None):
        raise ValueError(
            "--format csv/tsv/ndjson, --output and --long write rows of single-label confusion "
            "matrices; with --multilabel or --documents use --format table, json or markdown"
        )
    if rows and args.file is None:
        raise ValueError(
            "--format csv/tsv/ndjson, --output and --long write rows of a FILE's matrices; "
            "give a FILE (the embedded example is shown as a table)"
        )


def parse_prevalence(text: str | None) -> Any:
    """``--prevalence``: ``"0.01,0.99"`` -> a list, ``"dirichlet:10,990"`` -> a pair.

    Examples
    --------
    >>> parse_prevalence("0.25,0.75"), parse_prevalence("dirichlet:10,990")
    ([0.25, 0.75], ('dirichlet', [10.0, 990.0]))
    """
    if text is None:
        return None
    kind, sep, rest = text.partition(":")
    body = rest if sep else text
    try:
        values = [float(v) for v in body.split(",")]
    except ValueError:
        values = []
    if (sep and kind.strip().lower() != "dirichlet") or len(values) < 2:
        raise ValueError(
            "--prevalence must be comma-separated numbers in class order (0.01,0.99) or "
            f"dirichlet:COUNTS (dirichlet:10,990); got {text!r}"
        )
    return ("dirichlet", values) if sep else values


def _deployment_options(args: argparse.Namespace) -> dict[str, Any]:
    """``prevalence``/``chance`` keywords of :func:`evaluate`, refused where they do not apply."""
    given = [f for f, on in (("--prevalence", args.prevalence), ("--chance", args.chance)) if on]
    if given and (args.multilabel or args.documents is not None or args.prior_sensitivity):
        other = (
            "--multilabel" if args.multilabel else
            "--documents" if args.documents is not None else "--prior-sensitivity"
        )  # fmt: skip
        raise ValueError(f"{given[0]} is not available with {other}")
    out: dict[str, Any] = {}
    if args.prevalence is not None:
        out["prevalence"] = parse_prevalence(args.prevalence)
    if args.chance:
        out["chance"] = True
    return out


def run(args: argparse.Namespace) -> int:
    if args.slice_col is not None and args.cluster_col is not None:
        raise ValueError(
            "--slice-col and --cluster-col: a table of slices or of clusters "
            "(leave out one of the two)"
        )
    if args.slice_col is not None:  # a table of slices: cli/_slices.py
        args.draws = DEFAULT_DRAWS if args.draws is None else args.draws
        _check_single_label(args.metric or [])
        return run_slices(args, args.metric or ["micro_f1", "macro_f1"])
    if args.min_support is not None:
        raise ValueError("--min-support skips small slices; add --slice-col NAME")
    if args.cluster_col is not None:
        args.draws = DEFAULT_DRAWS if args.draws is None else args.draws
        return run_summarize_clusters(args)
    _check_row_options(args)
    deploy = _deployment_options(args)
    rows = args.documents is None and not args.multilabel and is_batch_run(args)
    if args.draws is None and not rows:
        args.draws = DEFAULT_DRAWS
    if args.documents is not None:
        return _run_documents(args)
    if args.zero_division is not None:
        raise ValueError("--zero-division applies to document-level metrics; add --documents")
    if args.multilabel:
        return _run_multilabel(args)
    if is_batch_run(args):  # --draws None: the batch default (cli/_stream.py's batch_draws)
        metrics = args.metric or ["micro_f1", "macro_f1"]
        _check_single_label(metrics)
        # evaluate's keywords beside the prior's: the stream passes them on unchanged
        return run_stream(args, metrics, args.ref, {**prior_from_args(args), **deploy})
    data = load(args)
    example = args.file is None
    ref = args.ref if args.ref is not None or not example else 0.8
    metrics = args.metric or ["micro_f1", "macro_f1"]
    _check_single_label(metrics)
    common = dict(metrics=metrics, draws=args.draws, ref=ref, ci_prob=args.ci_prob)
    result = evaluate(
        data.counts,
        **common,
        **_in_memory(args, data),
        **deploy,
    )
    receipt = _receipt_of(result, "file", args.file)
    if example:
        receipt = replace(receipt, inputs=(embedded_example(data.counts),))
    if write_outputs(args, result, source=data.source, names=data.names, receipt=receipt):
        return 2
    warn_prior(result)
    sens: dict[str, PriorSensitivity] = {}
    if args.prior_sensitivity:
        order = [args.prior, *(p for p in DEFAULT_PRIORS if p != args.prior)]
        sens = {
            m: prior_sensitivity(
                data.counts,
                metric=m,
                priors=order,
                draws=args.draws,
                ci_prob=args.ci_prob,
                rng=args.seed,
            )
            for m in metrics
        }
    extra = {"prior_sensitivity": {m: v.to_dict() for m, v in sens.items()}} if sens else None
    header = f"Input: {data.source}"
    _print_result(args.format, result, data.source, header, data.names, extra, receipt)
    if args.format in ("json", "markdown"):
        return 0
    for v in sens.values():
        print()
        print(v)
    if example and args.ci_prob == 0.95 and ref == 0.8 and not deploy:
        print()
        if args.prior in ("paper", "uniform"):
            print(paper_comparison(result))
        else:
            paper = evaluate(
                data.counts, rng=args.seed, alpha="paper", beta="paper", prior_check=False, **common
            )
            print(paper_comparison(paper, default=result))
    _close(args.format, receipt)
    return 0


def _close(fmt: str, receipt: Receipt) -> None:
    """The closing receipt line of the text output (JSON and Markdown carry their own)."""
    if fmt not in ("json", "markdown"):
        print(receipt.text())
