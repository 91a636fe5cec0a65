"""Prediction tables on the command line: pairing two by document id, and the paired
predictions the `gate` command compares (read by
:func:`f1posterior.io.read_prediction_table`)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .._core.text import escape_text
from ..io import is_stdin, source_name
from ._input_args import check_stdin_inputs

if TYPE_CHECKING:
    from ..io import PredictionTable

__all__ = [
    "ClusteredPredictions",
    "pair_prediction_tables",
    "paired_gate_predictions",
    "read_clustered",
]


def _warn(command: str, message: str) -> None:
    print(f"{command}: warning: {escape_text(message)}", file=sys.stderr)


def pair_prediction_tables(
    tables: list[PredictionTable],
    id_col: str | None = None,
    *,
    command: str = "f1posterior gate",
) -> list[PredictionTable] | None:
    """The tables with their rows in the first table's document order, or None.

    With ``id_col`` (every table read with its ids), rows are joined on the
    id (:func:`f1posterior.metrics.align_ids`): the ids must match one to
    one, and a document must have the same true label in every file, else a
    ``ValueError`` names the ids. Without it, the tables are paired only when
    they list the same true labels in the same order (same length); otherwise
    one warning line ``COMMAND: warning: ...`` on stderr says why they were not
    paired and the result is None (compare them as independent samples).
    """
    from ..io import PredictionTable  # here: a gate on matrices never loads it
    from ..metrics import align_ids

    ref = tables[0]
    if id_col is not None:
        out = [ref]
        for t in tables[1:]:
            if ref.ids is None or t.ids is None:
                raise ValueError("pair_prediction_tables: id_col given, but a table has no ids")
            perm = align_ids(
                ref.ids,
                t.ids,
                name=f"{ref.source} (column {id_col!r})",
                other_name=f"{t.source} (column {id_col!r})",
            ).tolist()
            y = [t.y_true[i] for i in perm]
            differ = [j for j, (a, b) in enumerate(zip(ref.y_true, y, strict=True)) if a != b]
            if differ:
                shown = "; ".join(
                    f"id {ref.ids[j]!r}: {ref.y_true[j]!r} vs {y[j]!r}" for j in differ[:5]
                )
                more = f" (and {len(differ) - 5} more)" if len(differ) > 5 else ""
                raise ValueError(
                    f"{t.source}: {len(differ)} document(s) have a different true label than in "
                    f"{ref.source}: {shown}{more}; a document must have the same true label in "
                    "both files"
                )
            preds = {m: [v[i] for i in perm] for m, v in t.preds.items()}
            out.append(PredictionTable(t.source, ref.y_true, preds, ref.ids))
        return out
    for t in tables[1:]:
        if len(t.y_true) != len(ref.y_true):
            why = f"{len(ref.y_true)} and {len(t.y_true)} documents"
        else:
            j = next(
                (i for i, (a, b) in enumerate(zip(ref.y_true, t.y_true, strict=True)) if a != b),
                None,
            )
            if j is None:
                continue
            why = (
                f"their true labels differ from document {j + 1} on ({ref.y_true[j]!r} vs "
                f"{t.y_true[j]!r}), so the rows are not known to be the same documents"
            )
        _warn(
            command,
            f"{ref.source} and {t.source} are not paired ({why}); they are compared as "
            "independent samples, which is less decisive. To pair the same documents listed "
            "in different orders, give --id-col NAME (a column of document ids in both)",
        )
        return None
    return tables


def paired_gate_predictions(args: argparse.Namespace) -> tuple[list[str], ...] | None:
    """``(y_true, new, baseline)`` when ``gate``'s FILE and --baseline are paired predictions.

    Both must be predictions CSVs (``--true-col``/``--pred-col`` in the
    header). With ``--id-col`` their rows are joined on the id column (ids
    one to one, the same true label per document, else a ValueError naming
    the ids); without it, they are paired only when they list the same true
    labels in the same order, else a warning line explains that they were
    not paired (:func:`pair_prediction_tables`). Anything else is compared
    as independent samples (None). Also checks that at most one input is
    ``-`` and that ``--id-col`` has two predictions CSVs to pair.
    """
    check_stdin_inputs(args)
    id_col = getattr(args, "id_col", None)
    if args.baseline is None or getattr(args, "multilabel", False):
        if id_col is not None:
            why = "there is no --baseline" if args.baseline is None else "--multilabel is given"
            raise ValueError(
                f"--id-col {id_col} pairs two predictions CSVs, FILE and --baseline BASEFILE; {why}"
            )
        return None
    if args.predictions is False:
        return None
    from ..io import is_predictions_table, read_prediction_table

    files = [args.file, args.baseline]
    fmts = [getattr(args, "input_format", None) if is_stdin(f) else None for f in files]
    for f, fmt in zip(files, fmts, strict=True):
        if not (
            args.predictions
            or is_predictions_table(
                f, true_col=args.true_col, pred_col=args.pred_col, input_format=fmt
            )
        ):
            if id_col is not None:
                raise ValueError(
                    f"--id-col {id_col} pairs two predictions CSVs; {source_name(f)} is not one (a "
                    f"predictions CSV has {args.true_col!r} and {args.pred_col!r} columns)"
                )
            return None
    tables = [
        read_prediction_table(
            f, args.true_col, [args.pred_col], min_models=1, id_col=id_col, input_format=fmt
        )
        for f, fmt in zip(files, fmts, strict=True)
    ]
    command = f"f1posterior {getattr(args, 'command', None) or 'gate'}"
    paired = pair_prediction_tables(tables, id_col, command=command)
    if paired is None:
        return None
    new, base = paired
    return new.y_true, new.preds[args.pred_col], base.preds[args.pred_col]


# --- clustered documents (--cluster-col) ---------------------------------------------


@dataclass(frozen=True)
class ClusteredPredictions:
    """One predictions CSV read with its cluster column."""

    y_true: list[str]
    y_pred: list[str]
    clusters: list[str]
    source: str


def read_clustered(args: argparse.Namespace, path: str) -> ClusteredPredictions:
    """``path``'s true labels, predictions (``--pred-col``) and clusters (``--cluster-col``).

    Raises
    ------
    ValueError
        ``path`` is not a predictions CSV, or lacks a column.
    """
    from ..io import is_predictions_table, is_stdin, read_prediction_table, source_name

    fmt = getattr(args, "input_format", None) if is_stdin(path) else None
    if not (
        getattr(args, "predictions", None) is True  # summarize/gate/plan's flag
        or is_predictions_table(
            path, true_col=args.true_col, pred_col=args.pred_col, input_format=fmt
        )
    ):
        raise ValueError(
            f"--cluster-col {args.cluster_col} reads a predictions CSV (one row per document, "
            f"columns {args.true_col!r}, {args.pred_col!r} and {args.cluster_col!r}); "
            f"{source_name(path)} is not one"
        )
    t = read_prediction_table(
        path, args.true_col, [args.pred_col], min_models=1, input_format=fmt,
        cluster_col=args.cluster_col,
    )  # fmt: skip
    assert t.clusters is not None
    return ClusteredPredictions(t.y_true, t.preds[args.pred_col], t.clusters, t.source)
