"""Prediction tables on the command line: reading them, pairing two by document id, and
the paired predictions the `gate` command compares."""

from __future__ import annotations

import argparse
import csv
import io
import sys
from dataclasses import dataclass
from pathlib import Path

from .._core.text import escape_text
from ..io.predictions import csv_delimiter, is_predictions_table
from ..io.sources import input_format_of, is_stdin, read_text, source_name
from ..metrics.confusion import align_ids
from .input_args import check_stdin_inputs

__all__ = [
    "PredictionTable",
    "read_prediction_table",
    "pair_prediction_tables",
    "paired_gate_predictions",
]


@dataclass(frozen=True)
class PredictionTable:
    """Columns of a predictions CSV, labels and ids as text.

    Attributes
    ----------
    source : str
        The path (``<stdin>`` for standard input).
    y_true : list of str
        True label of each document.
    preds : dict of str to list of str
        Predicted labels, one list per model column.
    ids : list of str or None
        Document ids, when an id column was read.
    """

    source: str
    y_true: list[str]
    preds: dict[str, list[str]]
    ids: list[str] | None = None


def _table_delimiter(path: str | Path, text: str, input_format: str | None) -> str:
    if not is_stdin(path) and input_format is None:
        return "\t" if Path(path).suffix.lower() == ".tsv" else ","
    fmt = input_format_of(path, input_format)
    if fmt not in ("csv", "tsv", "predictions"):
        raise ValueError(
            f"{source_name(path)}: read as {fmt}, but a predictions CSV was expected (give "
            "--input-format csv, tsv or predictions)"
        )
    return csv_delimiter(fmt, text)


def read_prediction_table(
    path: str | Path,
    true_col: str = "y_true",
    models: list[str] | None = None,
    min_models: int = 2,
    *,
    id_col: str | None = None,
    input_format: str | None = None,
) -> PredictionTable:
    """Read ``true_col``, model columns and an optional id column from a predictions CSV.

    ``models=None`` takes every column but ``true_col`` and ``id_col``.
    ``path`` ``-`` reads standard input (format ``input_format`` or sniffed).
    Every malformed row is a ``ValueError`` naming the file and line.
    """
    p = Path(path)
    where = source_name(p)
    text = read_text(p)
    reader = csv.reader(io.StringIO(text), delimiter=_table_delimiter(p, text, input_format))
    try:
        header = [c.strip() for c in next(reader, [])]
        if true_col not in header:
            raise ValueError(
                f"{where}: no column {true_col!r} in the header; columns are {header} (a "
                f"predictions CSV has a {true_col} column and one column per model)"
            )
        if id_col is not None and id_col not in header:
            raise ValueError(f"--id-col: no column {id_col!r} in {where}; columns are {header}")
        if models is None:
            models = [c for c in header if c not in (true_col, id_col)]
        else:
            missing = [m for m in models if m not in header]
            if missing:
                raise ValueError(
                    f"--models: no column {missing[0]!r} in {where}; columns are {header}"
                )
            if len(set(models)) != len(models):
                raise ValueError(f"--models must not repeat a model; got {models}")
        if len(models) < min_models:
            raise ValueError(
                f"{where}: need at least two model columns besides {true_col!r}; got {models}"
            )
        names = [true_col, *models] + ([id_col] if id_col is not None else [])
        cols = [header.index(c) for c in names]
        values: list[list[str]] = [[] for _ in cols]
        for cells in reader:
            if not any(c.strip() for c in cells):
                continue
            if len(cells) <= max(cols):
                raise ValueError(
                    f"{where}, line {reader.line_num}: {len(cells)} cells; the header has "
                    f"{len(header)}"
                )
            for out, i in zip(values, cols, strict=True):
                v = cells[i].strip()
                if not v:
                    what = "document id" if id_col is not None and i == cols[-1] else "label"
                    raise ValueError(
                        f"{where}, line {reader.line_num}: empty {what} in column {header[i]!r}"
                    )
                out.append(v)
    except csv.Error as exc:
        raise ValueError(f"{where}, line {reader.line_num}: broken CSV ({exc})") from None
    if not values[0]:
        raise ValueError(f"{where}: no predictions after the header line")
    k = len(models)
    return PredictionTable(
        source=where,
        y_true=values[0],
        preds=dict(zip(models, values[1 : k + 1], strict=True)),
        ids=values[k + 1] if id_col is not None else None,
    )


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
    id (:func:`f1posterior.metrics.confusion.align_ids`): the ids must match one to
    one, and a document must have the same true label in every file, else a
    ``ValueError`` names the ids. Without it, the tables are paired only when
    they list the same true labels in the same order (same length); otherwise
    one warning line ``COMMAND: warning: ...`` on stderr says why they were not
    paired and the result is None (compare them as independent samples).
    """
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
