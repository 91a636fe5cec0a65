"""``--slice-col``: a predictions CSV read as one confusion matrix per slice, for
``summarize`` (a table of slices) and ``gate`` (a row per slice and the joint row).

Design notes: docs/design.md#posterior-slices
"""

from __future__ import annotations

import argparse
from typing import Any

from ..io import MatrixInput, is_stdin
from ._common import positive_int, refuse_options

__all__ = ["add_slice_arguments", "load_slices", "run_slices", "slice_checks"]

SLICE_COL_HELP = (
    "column of a predictions CSV naming each document's slice (region, language, source, ...): "
    "one posterior per slice"
)


def add_slice_arguments(p: argparse.ArgumentParser) -> None:
    """``summarize``'s ``--slice-col`` and ``--min-support`` (``gate`` has its own)."""
    g = p.add_argument_group("slices")
    g.add_argument(
        "--slice-col",
        metavar="NAME",
        default=None,
        help=SLICE_COL_HELP + "; a table with a row per slice and metric; with --ref T, "
        "P(>= T) per slice and P(every judged slice >= T) from the same draws",
    )
    g.add_argument(
        "--min-support",
        type=positive_int,
        default=None,
        metavar="K",
        help="with --slice-col: slices with fewer than K documents are listed as SKIPPED "
        "and not evaluated",
    )


def load_slices(args: argparse.Namespace, path: str) -> MatrixInput:
    """FILE as one table per slice (``--slice-col``): a predictions CSV."""
    from ..io import read_sliced_predictions  # here: only a run with slices loads it

    if args.predictions is False or args.transpose:
        raise ValueError("--slice-col reads a predictions CSV; leave out --transpose")
    return read_sliced_predictions(
        path,
        slice_col=args.slice_col,
        true_col=args.true_col,
        pred_col=args.pred_col,
        labels=args.labels,
        input_format=getattr(args, "input_format", None) if is_stdin(path) else None,
    )


def slice_checks(checks: Any, min_support: int | None) -> tuple[Any, ...]:
    """The checks of a gate on slices: floors of single-number metrics become SliceFloors."""
    from ..gating import Floor, SliceFloor, per_class_metrics

    per = per_class_metrics(False)
    return tuple(
        SliceFloor(c.metric, c.threshold, min_support)
        if type(c) is Floor and c.metric not in per
        else c
        for c in checks
    )


def refuse_slice_options(args: argparse.Namespace, command: str) -> None:
    """One-line errors for options that do not go with ``--slice-col``."""
    refuse_options(
        f"{command} --slice-col {args.slice_col}",
        [
            ("--multilabel", getattr(args, "multilabel", False)),
            ("--documents", getattr(args, "documents", None) is not None),
            ("--baseline", getattr(args, "baseline", None) is not None),
            ("--prior-sensitivity", getattr(args, "prior_sensitivity", False)),
            ("--prevalence", getattr(args, "prevalence", None) is not None),
            ("--chance", getattr(args, "chance", False)),
            ("--transpose", getattr(args, "transpose", False)),
        ],
        "slices are read from one predictions CSV of single-label documents",
    )
    if getattr(args, "file", None) is None:
        raise ValueError(f"{command} --slice-col needs a FILE: a predictions CSV")


def run_slices(args: argparse.Namespace, metrics: list[str]) -> int:
    """``summarize --slice-col``: the table of slices (text, Markdown or JSON)."""
    from ..posterior import evaluate_slices
    from ._common import prior_from_args

    refuse_slice_options(args, "summarize")
    if args.format not in ("table", "json", "markdown"):
        raise ValueError(
            f"--slice-col writes a table of slices: --format table, json or markdown; got "
            f"{args.format}"
        )
    if args.output or args.long or getattr(args, "plot", None) or getattr(args, "report", None):
        raise ValueError("--slice-col writes a table of slices; --output, --long, --plot and "
                         "--report are for matrices")  # fmt: skip
    data = load_slices(args, args.file)
    try:
        res = evaluate_slices(
            counts=data.counts, names=data.names, metrics=metrics, floor=args.ref,
            min_support=args.min_support, labels=data.labels, draws=args.draws,
            ci_prob=args.ci_prob, rng=args.seed, workers=args.workers,
            max_memory=args.max_memory, **prior_from_args(args),
        )  # fmt: skip
    except ValueError as exc:
        raise ValueError(f"{data.source}: {exc}") from None
    from .._core.text import escape_text
    from ._receipts import command_receipt, digests, print_with_receipt

    receipt = command_receipt(args, res.evaluation, digests([("file", args.file)]))
    print_with_receipt(
        args.format,
        receipt,
        {**res.to_dict(), "source": data.source},
        res.to_markdown(),
        f"Input: {escape_text(data.source)} (slices of column {escape_text(args.slice_col)})\n"
        f"{res}",
    )
    return 0
