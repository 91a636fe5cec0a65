"""Reading prediction tables (one row per document: true and predicted label)."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .sources import (
    MatrixInput,
    _label_list,
    input_format_of,
    read_text,
    source_name,
)


def _sort_labels(values: set[str]) -> list[str]:
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
    return _read_predictions(
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


def _read_predictions(
    path: Path, delimiter: str, true_col: str, pred_col: str, labels: Any
) -> MatrixInput:
    """:func:`read_predictions` of a file or standard input."""
    from ..metrics.confusion import confusion_matrix

    text = read_text(path)
    p = source_name(path)
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    try:
        header = [c.strip() for c in next(reader)]
        missing = [c for c in (true_col, pred_col) if c not in header]
        if missing:
            raise ValueError(
                f"{p}, line {reader.line_num}: no column {missing[0]!r} in the header; columns "
                f"are {header} (set the column names of true and predicted labels)"
            )
        it, ip = header.index(true_col), header.index(pred_col)
        y_true: list[str] = []
        y_pred: list[str] = []
        lines: list[int] = []
        for cells in reader:
            if not any(c.strip() for c in cells):
                continue
            line = reader.line_num
            if len(cells) <= max(it, ip):
                raise ValueError(
                    f"{p}, line {line}: {len(cells)} cells; the header has {len(header)}"
                )
            t, q = cells[it].strip(), cells[ip].strip()
            for value, col in ((t, true_col), (q, pred_col)):
                if not value:
                    raise ValueError(f"{p}, line {line}: empty label in column {col!r}")
            y_true.append(t)
            y_pred.append(q)
            lines.append(line)
    except csv.Error as exc:
        raise ValueError(f"{p}, line {reader.line_num}: broken CSV ({exc})") from None
    if not y_true:
        raise ValueError(f"{p}: no predictions after the header line")
    wanted = _label_list(labels)
    if wanted is None:
        order = _sort_labels(set(y_true) | set(y_pred))
    else:
        allowed = set(wanted)
        for col, ys in ((true_col, y_true), (pred_col, y_pred)):
            bad = next((i for i, y in enumerate(ys) if y not in allowed), None)
            if bad is not None:
                raise ValueError(
                    f"{p}, line {lines[bad]}: unknown label {ys[bad]!r} in column {col!r}; "
                    f"labels are {wanted}"
                )
        order = wanted
    counts, _ = confusion_matrix(y_true, y_pred, labels=order)
    return MatrixInput(
        counts=np.asarray(counts, dtype=np.float64), labels=order, names=None, source=p
    )


def _csv_header(path: Path, delimiter: str = ",") -> list[str]:
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
    header = _csv_header(Path(path), csv_delimiter(fmt, ""))
    return true_col in header and pred_col in header


def predictions_hint(path: str | Path, fmt: str, true_col: str, pred_col: str) -> str:
    """A hint for a CSV refused as a matrix whose header names columns, as a predictions CSV's.

    ``""`` unless ``fmt`` is ``csv``/``tsv`` and every cell of the first row is a
    name (not a number); the hint names the options that pick the columns.
    """
    if fmt not in ("csv", "tsv"):
        return ""
    header = _csv_header(Path(path), csv_delimiter(fmt, ""))

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
