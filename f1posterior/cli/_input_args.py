"""Input options shared by the subcommands that read confusion matrices."""

from __future__ import annotations

import argparse
from typing import Any

from ..io import INPUT_FORMATS, MatrixInput, is_stdin, read_input

__all__ = [
    "CLUSTER_COL_HELP",
    "FILE_HELP",
    "add_cluster_argument",
    "add_input_arguments",
    "check_stdin_inputs",
    "load_input",
]

FILE_HELP = (
    'confusion matrix: .json (nested list or {"matrix", "labels"}), .csv/.tsv (square, '
    "optional header row and index column), .npy (M, M); a batch: .jsonl (one matrix per "
    'line, optional "name") or .npy (B, M, M); or a predictions CSV with y_true,y_pred '
    "columns; - reads standard input (see --input-format)"
)

INPUT_FORMAT_HELP = (
    "format of standard input when a FILE is -: json, csv, tsv, jsonl, npy, or predictions "
    "(a predictions CSV); sniffed when not given (.npy magic bytes, JSON, JSON lines, tabs or "
    "commas). Files are always read by their suffix"
)


def _label_list(text: str) -> list[str]:
    labels = [x.strip() for x in text.split(",")]
    if not all(labels):
        raise argparse.ArgumentTypeError(f"expected comma-separated class labels; got {text!r}")
    seen: set[str] = set()
    for x in labels:
        if x in seen:
            raise argparse.ArgumentTypeError(
                f"class label {x!r} is given twice in {text!r}; each class must be named once"
            )
        seen.add(x)
    return labels


def add_input_arguments(p: argparse.ArgumentParser) -> None:
    """--labels, --transpose, --predictions, --true-col, --pred-col, --input-format, --id-col.

    ``--id-col`` is added only to parsers that have a ``--baseline`` option
    (``gate``): it pairs FILE and BASEFILE.
    """
    g = p.add_argument_group("input")
    g.add_argument(
        "--labels",
        type=_label_list,
        default=None,
        metavar="A,B,...",
        help="class labels in order: names an unlabelled matrix; for labelled files and "
        "predictions fixes the order and adds absent classes",
    )
    g.add_argument(
        "--transpose", action="store_true", help="the matrix has predicted classes in rows"
    )
    g.add_argument(
        "--predictions",
        action="store_true",
        default=None,
        help="read FILE as a predictions CSV (automatic when its header has both columns)",
    )
    g.add_argument("--true-col", default="y_true", help="column of true labels (default y_true)")
    g.add_argument(
        "--pred-col", default="y_pred", help="column of predicted labels (default y_pred)"
    )
    g.add_argument(
        "--input-format", choices=INPUT_FORMATS, default=None, metavar="FMT", help=INPUT_FORMAT_HELP
    )
    if "--baseline" in p._option_string_actions:
        g.add_argument("--id-col", default=None, metavar="NAME", help=ID_COL_HELP)


ID_COL_HELP = (
    "column of document ids in two predictions CSVs (FILE and BASEFILE): rows are paired by "
    "id, in any order; the ids must match one to one and each document must have the same "
    "true label in both. Without it, rows are paired only when both files list the same "
    "true labels in the same order"
)


CLUSTER_COL_HELP = (
    "column of cluster ids (user, conversation, source, ...) in a predictions CSV: documents "
    "of a cluster are not independent, and the posterior is a Bayesian bootstrap over the "
    "clusters (the unit and the design effect are reported)"
)


def add_cluster_argument(p: Any, text: str = CLUSTER_COL_HELP) -> None:
    """Add ``--cluster-col NAME`` (default None)."""
    p.add_argument("--cluster-col", default=None, metavar="NAME", help=text)


def check_stdin_inputs(args: Any, paths: list[str | None] | None = None) -> None:
    """At most one input is ``-``; ``--input-format`` only with a ``-`` input.

    ``paths`` defaults to FILE and, when the command has it, --baseline BASEFILE.
    """
    if paths is None:
        paths = [getattr(args, "file", None), getattr(args, "baseline", None)]
    given = [x for x in paths if x is not None]
    n = sum(is_stdin(x) for x in given)
    if n > 1:
        what = (
            "FILE and --baseline BASEFILE are both -"
            if len(given) == 2 and hasattr(args, "baseline")
            else f"{n} inputs are -"
        )
        raise ValueError(
            f"{what}; standard input can be read once, so only one input may be - (give the "
            "other as a file)"
        )
    fmt = getattr(args, "input_format", None)
    if fmt is not None and n == 0:
        raise ValueError(
            f"--input-format {fmt} gives the format of standard input, but no input is - "
            "(files are read by their suffix)"
        )


def load_input(args: Any, path: str) -> MatrixInput:
    """Read ``path`` with the input options of ``args`` (``-``: standard input)."""
    check_stdin_inputs(args)
    return read_input(
        path,
        predictions=args.predictions,
        true_col=args.true_col,
        pred_col=args.pred_col,
        labels=args.labels,
        transpose=args.transpose,
        input_format=getattr(args, "input_format", None) if is_stdin(path) else None,
    )
