"""Reading confusion matrices from files for the command line.

Every reader returns validated counts and labels, or raises ``ValueError``
naming the file and what was expected. Readers never execute or unpickle
anything. :func:`read_input` also reads standard input (the path ``-``): its
format is given (``input_format``) or sniffed from the bytes.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ._cells import apply_labels, check_cells, matrix_from_json
from ._sources import (
    FORMAT_OF_SUFFIX,
    MATRIX_FILE_TYPES,
    MATRIX_SUFFIXES,
    MatrixInput,
    input_format_of,
    is_stdin,
    known_suffix,
    load_json,
    parse_npy,
    read_bytes,
    read_text,
    regular_file,
    source_name,
)

__all__ = [
    "MatrixInput",
    "read_matrix",
    "read_input",
    "MATRIX_SUFFIXES",
]


def read_matrix(
    path: str | Path,
    *,
    labels: Sequence[Any] | None = None,
    transpose: bool = False,
) -> MatrixInput:
    """Read one confusion matrix, or a batch, from a file; the format follows the suffix.

    ``.json``
        A nested list of rows, or ``{"matrix": [[...]], "labels": [...]}``.
    ``.jsonl`` / ``.ndjson``
        A batch: one such matrix (list or object, optionally with ``"name"``)
        per line; every matrix has the same size. Unnamed ones are named
        ``line N``.
    ``.csv`` / ``.tsv``
        A square table of counts, with an optional header row and an optional
        index column of class labels (both, if given, in the same order). A
        header of integer labels (``0,1,2``) is told from counts by the shape:
        a first row of M distinct integers above M rows of M counts.
    ``.npy``
        An ``(M, M)`` matrix or an ``(B, M, M)`` stack (named ``0 .. B-1``),
        loaded with ``allow_pickle=False``, always.

    Rows are true classes, columns predicted classes; ``transpose=True``
    reads tables with predictions in rows. ``labels`` names the classes of an
    unlabelled file, or, for a labelled file, fixes their order and adds
    absent classes as rows and columns of zeros. Every malformed input raises
    ``ValueError`` naming the file and, where possible, the line or cell.

    Parameters
    ----------
    path : str or Path
    labels : sequence, optional
    transpose : bool, default False

    Returns
    -------
    MatrixInput
        ``counts`` of shape ``(M, M)`` or ``(B, M, M)``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "cm.csv").write_text(",cat,dog\\ncat,8,2\\ndog,1,9\\n")
    >>> m = read_matrix(d / "cm.csv")
    >>> m.counts.tolist(), m.labels
    ([[8.0, 2.0], [1.0, 9.0]], ['cat', 'dog'])
    """
    p = Path(path)
    suffix = known_suffix(p, MATRIX_SUFFIXES, *MATRIX_FILE_TYPES)
    regular_file(p)
    return _read_matrix(p, FORMAT_OF_SUFFIX[suffix], labels, transpose)


def _read_matrix(p: Path, fmt: str, labels: Any, transpose: bool) -> MatrixInput:
    """:func:`read_matrix` of a file or standard input in format ``fmt``."""
    where = source_name(p)
    names = None
    if fmt == "json":
        counts, file_labels = matrix_from_json(load_json(p), where)
    elif fmt == "jsonl":
        counts, file_labels, names = _read_jsonl(p)
    elif fmt in ("csv", "tsv"):
        counts, file_labels = _read_csv_matrix(
            Path(where), read_text(p), "\t" if fmt == "tsv" else ","
        )
    else:
        counts, names = _read_npy(p)
        file_labels = None
    if not isinstance(transpose, bool):
        raise TypeError(f"transpose must be True or False; got {transpose!r}")
    if transpose:
        counts = np.swapaxes(counts, -1, -2).copy()
    counts, file_labels = apply_labels(counts, file_labels, labels, where)
    return MatrixInput(counts=counts, labels=file_labels, names=names, source=where)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _integer_label_header(first: list[str], rest: list[tuple[int, list[str]]]) -> bool:
    """Is the all-numeric ``first`` row a header of integer class labels?

    Only when its M cells are distinct integers (``0,1,...,9``, as
    ``np.savetxt(..., header=..., comments="")`` writes scikit-learn's classes) and
    the rows after it are a square M x M table, so that with it the table would not
    be square: a row of counts is never taken for labels in a file that is square.
    """
    m = len(first)
    if len(rest) != m or any(len(cells) != m for _, cells in rest):
        return False
    try:
        values = {int(c) for c in first}
    except ValueError:
        return False
    return len(values) == m


def _read_csv_matrix(path: Path, text: str, delimiter: str) -> tuple[np.ndarray, list[str] | None]:
    import csv  # here: a JSON matrix never loads it

    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    rows: list[tuple[int, list[str]]] = []
    try:
        for cells in reader:
            if any(c.strip() for c in cells):
                rows.append((reader.line_num, [c.strip() for c in cells]))
    except csv.Error as exc:
        raise ValueError(f"{path}, line {reader.line_num}: broken CSV ({exc})") from None
    first_line, first = rows[0]
    has_header = (
        any(not _is_number(c) for c in first[1:])
        or (not _is_number(first[0]) and all(_is_number(cells[0]) for _, cells in rows[1:]))
        or _integer_label_header(first, rows[1:])
    )
    header = first if has_header else None
    body = rows[1:] if has_header else rows
    if not body:
        raise ValueError(f"{path}: no rows of counts after the header line {first_line}")
    width = len(body[0][1])
    for line, cells in body:
        if len(cells) != width:
            raise ValueError(
                f"{path}, line {line}: ragged rows: {len(cells)} cells, but line "
                f"{body[0][0]} has {width}"
            )
    has_index = any(not _is_number(cells[0]) for _, cells in body) or (
        header is not None and len(header) == width and header[0] == ""
    )
    start = 1 if has_index else 0
    values = np.empty((len(body), width - start))
    for i, (line, cells) in enumerate(body):
        for j, cell in enumerate(cells[start:]):
            try:
                values[i, j] = float(cell)
            except ValueError:
                raise ValueError(
                    f"{path}, line {line}, column {j + start + 1}: expected a count; got {cell!r}"
                ) from None
    if values.shape[0] != values.shape[1]:
        raise ValueError(
            f"{path}: expected a square confusion matrix; got {values.shape[0]} rows of "
            f"{values.shape[1]} counts"
        )
    m = values.shape[0]

    def locate(idx: tuple[int, ...]) -> str:
        return f"line {body[idx[0]][0]}, column {idx[1] + start + 1}"

    counts = check_cells(values, str(path), locate)
    index_labels = [cells[0] for _, cells in body] if has_index else None
    header_labels = None
    if header is not None:
        if len(header) == m + 1 and has_index:
            header_labels = header[1:]
        elif len(header) == m and not has_index:
            header_labels = header
        else:
            raise ValueError(
                f"{path}, line {first_line}: the header has {len(header)} cells for a "
                f"{m} x {m} matrix; expected {m} labels (plus a corner cell with an index column)"
            )
    if header_labels is not None and index_labels is not None and header_labels != index_labels:
        raise ValueError(
            f"{path}: header labels {header_labels} differ from index labels {index_labels}; "
            "rows and columns must list the classes in the same order"
        )
    return counts, header_labels if header_labels is not None else index_labels


def _read_jsonl(path: Path) -> tuple[np.ndarray, list[str] | None, list[str]]:
    """The whole batch of a JSON-lines file (:func:`f1posterior.io.open_batch`)."""
    from ._streaming import open_batch

    reader = open_batch(path, input_format="jsonl")
    chunks = list(reader)
    names = [n for c in chunks for n in c.names]
    return np.concatenate([c.counts for c in chunks]), reader.labels, names


def _read_npy(path: Path) -> tuple[np.ndarray, list[str] | None]:
    where = source_name(path)
    arr = parse_npy(read_bytes(path), where)
    if arr.ndim not in (2, 3) or arr.shape[-1] != arr.shape[-2] or 0 in arr.shape:
        raise ValueError(
            f"{where}: expected a square matrix (M, M) or a stack (B, M, M); got shape {arr.shape}"
        )

    def locate(idx: tuple[int, ...]) -> str:
        return f"cell {list(idx)}"

    counts = check_cells(arr.astype(np.float64), where, locate)
    names = [str(i) for i in range(arr.shape[0])] if arr.ndim == 3 else None
    return counts, names


def read_input(
    path: str | Path,
    *,
    predictions: bool | None = None,
    true_col: str = "y_true",
    pred_col: str = "y_pred",
    labels: Sequence[Any] | None = None,
    transpose: bool = False,
    input_format: str | None = None,
) -> MatrixInput:
    """Read a confusion matrix, a batch, or a predictions CSV (the command line's reader).

    ``predictions=None`` treats a ``.csv``/``.tsv`` file whose header has both
    ``true_col`` and ``pred_col`` as predictions
    (:func:`f1posterior.io._predictions.read_predictions`) and anything else as a
    matrix (:func:`read_matrix`); True or False forces the choice. ``transpose``
    applies to matrices only.

    ``path`` ``-`` reads standard input (read once; reading ``-`` again gives
    the same bytes), named ``<stdin>`` in messages. Its format is
    ``input_format``, one of ``json``, ``csv``, ``tsv``, ``jsonl``, ``npy``
    and ``predictions`` (a predictions CSV, comma- or tab-separated), or
    else sniffed (:func:`sniff_format`); a format that cannot be told is a
    ``ValueError`` asking for it. For a file path, ``input_format`` overrides
    the suffix. ``.npy`` input is parsed from its bytes: the header's shape is
    checked against the length before anything is allocated, and nothing is
    ever unpickled.

    Parameters
    ----------
    path : str or pathlib.Path
        The file, or ``-`` for standard input.
    predictions : bool, optional
        Read predictions (True) or a matrix (False); None decides from the header.
    true_col, pred_col : str, default "y_true", "y_pred"
        Column names of the true and predicted labels in a predictions file.
    labels : sequence, optional
        Label order of a matrix built from predictions.
    transpose : bool, default False
        The matrix file has true classes in columns.
    input_format : str, optional
        The format, overriding the suffix or the sniffing.

    Returns
    -------
    MatrixInput
        The counts, their labels and where they came from.

    See Also
    --------
    f1posterior.MatrixInput : The result.
    f1posterior.evaluate : What to do with the matrices.

    Examples
    --------
    >>> import io, sys
    >>> sys.stdin = io.TextIOWrapper(io.BytesIO(b"y_true,y_pred\\na,a\\nb,a\\n"))
    >>> m = read_input("-")
    >>> m.source, m.labels, m.counts.tolist()
    ('<stdin>', ['a', 'b'], [[1.0, 0.0], [1.0, 0.0]])
    >>> sys.stdin = sys.__stdin__
    """
    if not is_stdin(path):
        regular_file(path)
    p = Path(path)
    if predictions and input_format is None and not is_stdin(p):
        fmt = "tsv" if p.suffix.lower() == ".tsv" else "csv"  # forced: any suffix
    else:
        fmt = input_format_of(p, input_format)
    if fmt == "predictions":
        if predictions is False:
            raise ValueError(
                f"{source_name(p)}: input_format 'predictions' reads a predictions CSV; got "
                "predictions=False"
            )
        predictions = True
    if predictions is None:
        predictions = False
        if fmt in ("csv", "tsv"):
            from ._predictions import csv_delimiter, csv_header

            header = csv_header(p, csv_delimiter(fmt, ""))
            predictions = true_col in header and pred_col in header
    if predictions:
        if transpose:
            raise ValueError(
                f"{source_name(p)}: transpose applies to confusion-matrix files; a predictions CSV "
                "names its true and predicted columns instead"
            )
        from ._predictions import csv_delimiter, read_prediction_rows

        delimiter = csv_delimiter(fmt, read_text(p) if fmt == "predictions" else "")
        return read_prediction_rows(p, delimiter, true_col, pred_col, labels)
    try:
        return _read_matrix(p, fmt, labels, transpose)
    except ValueError as exc:
        from ._predictions import predictions_hint  # here: a predictions CSV's module

        hint = predictions_hint(p, fmt, true_col, pred_col)
        if not hint:
            raise
        raise ValueError(f"{exc}{hint}") from None
