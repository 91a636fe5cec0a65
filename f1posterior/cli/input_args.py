"""Input options shared by the subcommands that read confusion matrices."""

from __future__ import annotations

import argparse
from typing import Any

from ..inputs import MatrixInput, read_input

__all__ = ["add_input_arguments", "load_input", "FILE_HELP"]

FILE_HELP = (
    'confusion matrix: .json (nested list or {"matrix", "labels"}), .csv/.tsv (square, '
    "optional header row and index column), .npy (M, M); a batch: .jsonl (one matrix per "
    'line, optional "name") or .npy (B, M, M); or a predictions CSV with y_true,y_pred columns'
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
    """--labels, --transpose, --predictions, --true-col, --pred-col."""
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


def load_input(args: Any, path: str) -> MatrixInput:
    """Read ``path`` with the input options of ``args``."""
    return read_input(
        path,
        predictions=args.predictions,
        true_col=args.true_col,
        pred_col=args.pred_col,
        labels=args.labels,
        transpose=args.transpose,
    )
