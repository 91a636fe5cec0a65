"""Reading prediction tables (one row per document: true and predicted label)."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ._sources import (
    MatrixInput,
    input_format_of,
    is_stdin,
    label_list,
    read_text,
    source_name,
)


def sort_labels(values: set[str]) -> list[str]:
    """Numeric order when every label is an integer, else lexicographic.

    A total order, never the set's iteration order: labels with the same
    integer value ("1" and "01") are ordered by their text.
    """
    try:
        return sorted(values, key=lambda x: (int(x), x))
    except ValueError:
        return sorted(values)


def read_predictions(
    path: str | Path,
    *,
    true_col: str = "y_true",
    pred_col: str = "y_pred",
    labels: Sequence[Any] | None = None,
) -> MatrixInput:
    """Count a CSV of predictions (one document per line) into a confusion matrix.

    The CSV has a header line; ``true_col`` and ``pred_col`` name the columns
    of true and predicted labels (other columns are ignored). Labels are read
    as text; without ``labels`` the classes are the labels seen, in numeric
    order when all are integers and in text order otherwise. ``labels`` fixes
    the order and adds classes never seen; a label in the file that is not in
    ``labels`` is an error naming its line.

    Parameters
    ----------
    path : str or Path
    true_col, pred_col : str
    labels : sequence, optional

    Returns
    -------
    MatrixInput
        ``counts`` of shape ``(M, M)`` (rows = true label) and ``labels``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "pred.csv"
    >>> _ = f.write_text("id,y_true,y_pred\\n1,10,2\\n2,2,2\\n3,10,10\\n")
    >>> m = read_predictions(f)
    >>> m.labels, m.counts.tolist()
    (['2', '10'], [[1.0, 0.0], [1.0, 1.0]])
    """
    p = Path(path)
    return read_prediction_rows(
        p, "\t" if p.suffix.lower() == ".tsv" else ",", true_col, pred_col, labels
    )


def csv_delimiter(fmt: str, text: str) -> str:
    """Tab for TSV (and for predictions whose header line has tabs and no commas), else comma."""
    if fmt == "tsv":
        return "\t"
    if fmt == "predictions":
        first = text.lstrip("\ufeff").split("\n", 1)[0]
        return "\t" if "\t" in first and "," not in first else ","
    return ","


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
    lines : tuple of int
        The line of each document in the file.
    slices : list of str or None
        The slice of each document, when a slice column was read.
    clusters : list of str or None
        The cluster (user, conversation, source, ...) of each document, when a
        cluster column was read.
    """

    source: str
    y_true: list[str]
    preds: dict[str, list[str]]
    ids: list[str] | None = None
    lines: tuple[int, ...] = ()
    slices: list[str] | None = None
    clusters: list[str] | None = None


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
    delimiter: str | None = None,
    slice_col: str | None = None,
    cluster_col: str | None = None,
) -> PredictionTable:
    """Read ``true_col``, model columns and optional id, slice and cluster columns.

    The one reader of predictions CSVs. ``models=None`` takes every column but
    ``true_col``, ``id_col``, ``slice_col`` and ``cluster_col``. ``path`` ``-``
    reads standard input (format ``input_format`` or sniffed); ``delimiter``
    overrides the one of the file name. Every malformed row is a ``ValueError``
    naming the file and line.
    """
    p = Path(path)
    where = source_name(p)
    text = read_text(p)
    sep = delimiter or _table_delimiter(p, text, input_format)
    reader = csv.reader(io.StringIO(text), delimiter=sep)
    try:
        header = [c.strip() for c in next(reader, [])]
        missing = [c for c in (true_col, *(models or ())) if c not in header]
        if missing:
            raise ValueError(
                f"{where}, line 1: no column {missing[0]!r} in the header; columns are {header} "
                f"(a predictions CSV has a {true_col} column and one column per model)"
            )
        if id_col is not None and id_col not in header:
            raise ValueError(f"--id-col: no column {id_col!r} in {where}; columns are {header}")
        for flag, col in (("--slice-col", slice_col), ("--cluster-col", cluster_col)):
            if col is not None and col not in header:
                raise ValueError(f"{flag}: no column {col!r} in {where}; columns are {header}")
        if models is None:
            models = [c for c in header if c not in (true_col, id_col, slice_col, cluster_col)]
        elif len(set(models)) != len(models):
            raise ValueError(f"--models must not repeat a model; got {models}")
        if len(models) < min_models:
            raise ValueError(
                f"{where}: need at least two model columns besides {true_col!r}; got {models}"
            )
        for flag, col in (("--slice-col", slice_col), ("--cluster-col", cluster_col)):
            if col is not None and col in (true_col, *models):
                raise ValueError(
                    f"{flag} must be its own column, not one of the labels "
                    f"({', '.join(map(repr, (true_col, *models)))}); got {col!r}"
                )
        extra = [c for c in (id_col, slice_col, cluster_col) if c is not None]
        cols = [header.index(c) for c in (true_col, *models, *extra)]
        values: list[list[str]] = [[] for _ in cols]
        lines: list[int] = []
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
                    what = {
                        id_col: "document id",
                        slice_col: "slice",
                        cluster_col: "cluster id",
                    }.get(header[i], "label")
                    raise ValueError(
                        f"{where}, line {reader.line_num}: empty {what} in column {header[i]!r}"
                    )
                out.append(v)
            lines.append(reader.line_num)
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
        lines=tuple(lines),
        slices=values[k + 1 + (id_col is not None)] if slice_col is not None else None,
        clusters=values[-1] if cluster_col is not None else None,
    )


def read_prediction_rows(
    path: Path, delimiter: str, true_col: str, pred_col: str, labels: Any
) -> MatrixInput:
    """:func:`read_predictions` of a file or standard input."""
    from ..metrics import confusion_matrix

    t = read_prediction_table(path, true_col, [pred_col], min_models=1, delimiter=delimiter)
    order = label_order(t, true_col, pred_col, labels)
    counts, _ = confusion_matrix(t.y_true, t.preds[pred_col], labels=order)
    return MatrixInput(
        counts=np.asarray(counts, dtype=np.float64), labels=order, names=None, source=t.source
    )


def label_order(t: PredictionTable, true_col: str, pred_col: str, labels: Any) -> list[str]:
    """The classes of ``t``: ``labels`` (every label of the file among them), else those seen."""
    y_true, y_pred = t.y_true, t.preds[pred_col]
    wanted = label_list(labels)
    if wanted is None:
        return sort_labels(set(y_true) | set(y_pred))
    allowed = set(wanted)
    for col, ys in ((true_col, y_true), (pred_col, y_pred)):
        bad = next((i for i, y in enumerate(ys) if y not in allowed), None)
        if bad is not None:
            raise ValueError(
                f"{t.source}, line {t.lines[bad]}: unknown label {ys[bad]!r} in column "
                f"{col!r}; labels are {wanted}"
            )
    return wanted


def csv_header(path: Path, delimiter: str = ",") -> list[str]:
    text = read_text(path)
    first = next(csv.reader(io.StringIO(text), delimiter=delimiter), [])
    return [c.strip() for c in first]


def is_predictions_table(
    path: str | Path,
    *,
    true_col: str = "y_true",
    pred_col: str = "y_pred",
    input_format: str | None = None,
) -> bool:
    """Whether :func:`read_input` reads ``path`` as a predictions CSV (``predictions=None``)."""
    fmt = input_format_of(path, input_format)
    if fmt == "predictions":
        return True
    if fmt not in ("csv", "tsv"):
        return False
    header = csv_header(Path(path), csv_delimiter(fmt, ""))
    return true_col in header and pred_col in header


def predictions_hint(path: str | Path, fmt: str, true_col: str, pred_col: str) -> str:
    """A hint for a CSV refused as a matrix whose header names columns, as a predictions CSV's.

    ``""`` unless ``fmt`` is ``csv``/``tsv`` and every cell of the first row is a
    name (not a number); the hint names the options that pick the columns.
    """
    if fmt not in ("csv", "tsv"):
        return ""
    header = csv_header(Path(path), csv_delimiter(fmt, ""))

    def is_name(cell: str) -> bool:
        try:
            float(cell)
        except ValueError:
            return bool(cell)
        return False

    if len(header) < 2 or not all(map(is_name, header)):
        return ""
    shown = ", ".join(repr(c) for c in header[:6]) + (", ..." if len(header) > 6 else "")
    return (
        f"; if it holds predictions (columns {shown}), say which columns are the true and the "
        f"predicted labels: --true-col NAME --pred-col NAME on the command line (true_col=, "
        f"pred_col= in Python; the defaults are {true_col!r} and {pred_col!r})"
    )
