"""Reading confusion matrices from files for the command line.

Every reader returns validated counts and labels, or raises ``ValueError``
naming the file and what was expected. Readers never execute or unpickle
anything. :func:`read_input` also reads standard input (the path ``-``): its
format is given (``input_format``) or sniffed from the bytes.
"""

from __future__ import annotations

import csv
import io
import json
import os
import stat
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .._core.results import value_equality
from .._core.validation import check_counts, check_indicator, check_scores

__all__ = [
    "MatrixInput",
    "read_matrix",
    "read_predictions",
    "read_input",
    "read_multilabel",
    "read_documents",
    "DocumentInput",
    "MATRIX_SUFFIXES",
    "INPUT_FORMATS",
    "STDIN",
]

#: The path that means standard input.
STDIN = "-"
#: How standard input is named in messages and sources.
STDIN_NAME = "<stdin>"
#: Formats :func:`read_input` reads from standard input (``input_format``).
INPUT_FORMATS = ("json", "csv", "tsv", "jsonl", "npy", "predictions")
#: Standard input longer than this many bytes is refused (it may never end).
MAX_STDIN_BYTES = 1 << 30
_FORMAT_OF_SUFFIX = {
    ".json": "json",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".csv": "csv",
    ".tsv": "tsv",
    ".npy": "npy",
}


@value_equality
@dataclass(frozen=True)
class MatrixInput:
    """Counts read from a file.

    Attributes
    ----------
    counts : ndarray, shape (*batch, M, M)
        Validated whole-number counts (float64).
    labels : list of str or None
        Class labels, when the file names them.
    names : list of str or None
        Names of the matrices of a batch, when the file names them.
    source : str
        Where the counts came from (a path, or a description).
    """

    counts: np.ndarray
    labels: list[str] | None
    names: list[str] | None
    source: str


def _regular_file(path: str | Path) -> Path:
    """``path`` as a Path if it names a regular file (through symlinks); else a ValueError.

    Devices (``/dev/zero``), FIFOs and directories are refused before anything is
    opened: reading them could block forever or never end.
    """
    p = Path(path)
    try:
        mode = os.stat(p).st_mode
    except FileNotFoundError:
        raise ValueError(f"{p}: no such file") from None
    except OSError as exc:
        raise ValueError(f"{p}: cannot be read ({exc.strerror})") from None
    if not stat.S_ISREG(mode):
        kind = (
            "a directory"
            if stat.S_ISDIR(mode)
            else "a FIFO"
            if stat.S_ISFIFO(mode)
            else "a device"
            if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a socket"
            if stat.S_ISSOCK(mode)
            else "not a regular file"
        )
        raise ValueError(f"{p}: {kind}; only regular files are read")
    return p


def is_stdin(path: Any) -> bool:
    """Whether ``path`` is ``-``, standard input."""
    return isinstance(path, (str, Path)) and str(path) == STDIN


def _where(path: str | Path) -> str:
    """How ``path`` is named in messages: ``<stdin>`` for ``-``."""
    return STDIN_NAME if is_stdin(path) else str(path)


_stdin_cache: tuple[Any, bytes] | None = None


def _stdin_bytes() -> bytes:
    """All of standard input, read once and kept (reading ``-`` again gives the same bytes).

    A terminal is refused (reading it would wait for typing), and so is input
    longer than :data:`MAX_STDIN_BYTES` (a pipe may never end).
    """
    global _stdin_cache
    stream = sys.stdin
    if _stdin_cache is not None and _stdin_cache[0] is stream:
        return _stdin_cache[1]
    if stream is None:
        raise ValueError(f"{STDIN_NAME}: there is no standard input to read (FILE is -)")
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError, OSError):
        tty = False
    if tty:
        raise ValueError(
            f"{STDIN_NAME}: standard input is a terminal; FILE - reads piped or redirected "
            "input (for example: f1posterior gate - < cm.json)"
        )
    raw = getattr(stream, "buffer", stream)
    chunks: list[bytes] = []
    total = 0
    try:
        while True:
            chunk = raw.read(1 << 20)
            if not chunk:
                break
            if isinstance(chunk, str):
                chunk = chunk.encode("utf-8")
            total += len(chunk)
            if total > MAX_STDIN_BYTES:
                raise ValueError(
                    f"{STDIN_NAME}: more than {MAX_STDIN_BYTES >> 20} MiB on standard input; "
                    "write it to a file and give the path"
                )
            chunks.append(chunk)
    except OSError as exc:
        raise ValueError(f"{STDIN_NAME}: cannot be read ({exc.strerror or exc})") from None
    data = b"".join(chunks)
    _stdin_cache = (stream, data)
    return data


def _read_bytes(path: str | Path) -> bytes:
    """The bytes of a regular file, or of standard input for ``-``."""
    if is_stdin(path):
        return _stdin_bytes()
    p = _regular_file(path)
    try:
        return p.read_bytes()
    except FileNotFoundError:
        raise ValueError(f"{p}: no such file") from None
    except OSError as exc:
        raise ValueError(f"{p}: cannot be read ({exc.strerror})") from None


def _decode(data: bytes, where: str, encoding: str = "utf-8-sig") -> str:
    try:
        return data.decode(encoding)
    except UnicodeDecodeError:
        raise ValueError(f"{where}: not UTF-8 text; expected a text file") from None


def check_input_format(input_format: Any) -> str | None:
    """``input_format`` if it is None or one of :data:`INPUT_FORMATS`; else a ValueError."""
    if input_format is None or (isinstance(input_format, str) and input_format in INPUT_FORMATS):
        return input_format
    raise ValueError(
        f"input_format must be one of {', '.join(INPUT_FORMATS)} (or None); got {input_format!r}"
    )


def sniff_format(data: bytes, where: str = STDIN_NAME) -> str:
    """The format of input bytes: ``npy``, ``json``, ``jsonl``, ``csv`` or ``tsv``.

    ``.npy`` by its magic bytes; JSON when the text parses as one JSON value
    starting with ``[`` or ``{``; JSON lines when it does not but every
    non-empty line starts with ``[`` or ``{``; TSV when the first line has
    tabs and no commas; CSV when it has commas. Anything else is a
    ``ValueError`` asking for the format. (A predictions CSV is a CSV whose
    header names the true and predicted columns; :func:`read_input` tells.)
    """
    if data.startswith(b"\x93NUMPY"):
        return "npy"
    ask = f"give --input-format {'|'.join(INPUT_FORMATS)}"
    if not data.strip():
        raise ValueError(f"{where}: the input is empty; expected a confusion matrix")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValueError(
            f"{where}: cannot tell the input format: neither UTF-8 text nor a .npy array; {ask}"
        ) from None
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if lines[0][0] in "[{":
        try:
            json.loads(text)
        except json.JSONDecodeError:
            if len(lines) > 1 and all(line[0] in "[{" for line in lines):
                return "jsonl"
        except RecursionError:
            pass
        return "json"
    if "\t" in lines[0] and "," not in lines[0]:
        return "tsv"
    if "," in lines[0]:
        return "csv"
    raise ValueError(
        f"{where}: cannot tell the input format (not JSON, JSON lines, comma- or "
        f"tab-separated values, or .npy); {ask}"
    )


def _load_json(path: Path, what: str = "a JSON confusion matrix") -> Any:
    where = _where(path)
    if is_stdin(path):
        text = _decode(_stdin_bytes(), where, "utf-8")
    else:
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ValueError(f"{path}: no such file") from None
        except UnicodeDecodeError:
            raise ValueError(f"{path}: not UTF-8 text; expected {what}") from None
        except OSError as exc:
            raise ValueError(f"{path}: cannot be read ({exc.strerror})") from None
    if not text.strip():
        empty = "the input is empty" if is_stdin(path) else "the file is empty"
        raise ValueError(f"{where}: {empty}; expected {what}")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"{where}: broken JSON at line {exc.lineno}, column {exc.colno} ({exc.msg})"
        ) from None


def _matrix_from_json(
    obj: Any, where: str, validate: bool = True
) -> tuple[np.ndarray, list[str] | None]:
    """Counts and labels of one JSON matrix; ``validate=False`` leaves the count checks
    (finite, non-negative, whole, a document) to the caller, who checks a whole batch at
    once (:mod:`f1posterior.io.streaming`)."""
    labels = None
    if isinstance(obj, dict):
        if "matrix" not in obj:
            raise ValueError(
                f'{where}: a JSON object must have a "matrix" key (and optionally "labels"); '
                f"got keys {sorted(obj)}"
            )
        raw_labels = obj.get("labels")
        obj = obj["matrix"]
        if raw_labels is not None:
            if not isinstance(raw_labels, list):
                raise ValueError(
                    f'{where}: "labels" must be a list; got {type(raw_labels).__name__}'
                )
            labels = [str(x) for x in raw_labels]
    if not isinstance(obj, list) or not obj or not all(isinstance(r, list) for r in obj):
        raise ValueError(f"{where}: expected a confusion matrix as a nested list of rows")
    widths = {len(r) for r in obj}
    if len(widths) != 1:
        bad = next(i for i, r in enumerate(obj) if len(r) != len(obj[0]))
        raise ValueError(
            f"{where}: ragged rows: row 0 has {len(obj[0])} entries but row {bad} "
            f"has {len(obj[bad])}"
        )
    for i, row in enumerate(obj):
        for j, x in enumerate(row):
            if isinstance(x, bool) or not isinstance(x, (int, float)):
                raise ValueError(f"{where}: cell [{i}][{j}] must be a number; got {x!r}")
    try:
        counts = check_counts(obj) if validate else np.array(obj, dtype=np.float64)
        if not validate and counts.shape[-1] < 2:
            check_counts(counts)  # the one-class message
    except (ValueError, TypeError, OverflowError) as exc:
        raise ValueError(f"{where}: {exc}") from None
    if labels is not None and len(labels) != counts.shape[-1]:
        raise ValueError(
            f"{where}: {len(labels)} labels for a {counts.shape[-1]} x {counts.shape[-1]} matrix"
        )
    return counts, labels


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
        index column of class labels (both, if given, in the same order).
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
    suffix = p.suffix.lower()
    if suffix in MATRIX_SUFFIXES:
        _regular_file(p)
    if suffix not in MATRIX_SUFFIXES:
        raise ValueError(
            f"{p}: unknown file type {suffix or '(no suffix)'!r}; expected one of "
            f"{', '.join(MATRIX_SUFFIXES)} (or a predictions CSV)"
        )
    return _read_matrix(p, _FORMAT_OF_SUFFIX[suffix], labels, transpose)


def _read_matrix(p: Path, fmt: str, labels: Any, transpose: bool) -> MatrixInput:
    """:func:`read_matrix` of a file or standard input in format ``fmt``."""
    where = _where(p)
    names = None
    if fmt == "json":
        counts, file_labels = _matrix_from_json(_load_json(p), where)
    elif fmt == "jsonl":
        counts, file_labels, names = _read_jsonl(p)
    elif fmt in ("csv", "tsv"):
        counts, file_labels = _read_csv_matrix(
            Path(where), _read_text(p), "\t" if fmt == "tsv" else ","
        )
    else:
        counts, names = _read_npy(p)
        file_labels = None
    if not isinstance(transpose, bool):
        raise TypeError(f"transpose must be True or False; got {transpose!r}")
    if transpose:
        counts = np.swapaxes(counts, -1, -2).copy()
    counts, file_labels = _apply_labels(counts, file_labels, labels, where)
    return MatrixInput(counts=counts, labels=file_labels, names=names, source=where)


#: File suffixes :func:`read_matrix` reads.
MATRIX_SUFFIXES = (".json", ".jsonl", ".ndjson", ".csv", ".tsv", ".npy")


def _read_text(path: Path) -> str:
    """The UTF-8 text of a regular file, or of standard input for ``-``; never empty."""
    if is_stdin(path):
        text = _decode(_stdin_bytes(), STDIN_NAME)
        if not text.strip():
            raise ValueError(f"{STDIN_NAME}: the input is empty; expected a confusion matrix")
        return text
    _regular_file(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not UTF-8 text; expected a text file") from None
    except OSError as exc:
        raise ValueError(f"{path}: cannot be read ({exc.strerror})") from None
    if not text.strip():
        raise ValueError(f"{path}: the file is empty; expected a confusion matrix")
    return text


def _check_cells(values: np.ndarray, where: str, locate: Any) -> np.ndarray:
    """Cell-level checks with a location ``locate(index) -> str``; then :func:`check_counts`."""
    checks = (
        (~np.isfinite(values), "must be a finite count"),
        (values < 0, "must be a non-negative count"),
    )
    for bad, what in checks:
        if bad.any():
            idx = tuple(int(i) for i in np.argwhere(bad)[0])
            raise ValueError(f"{where}, {locate(idx)}: {what}; got {values[idx]:g}")
    frac = values != np.round(values)
    if frac.any():
        idx = tuple(int(i) for i in np.argwhere(frac)[0])
        hint = ""
        total = values.sum(axis=(-2, -1))
        if np.allclose(values.sum(axis=-1), 1.0) or np.allclose(total, 1.0):
            hint = (
                " (the matrix looks normalised: its rows or total sum to 1; pass the raw "
                "document counts, not proportions)"
            )
        raise ValueError(
            f"{where}, {locate(idx)}: must be a whole-number count; got {values[idx]:g}{hint}"
        )
    try:
        return check_counts(values)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{where}: {exc}") from None


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _read_csv_matrix(path: Path, text: str, delimiter: str) -> tuple[np.ndarray, list[str] | None]:
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    rows: list[tuple[int, list[str]]] = []
    try:
        for cells in reader:
            if any(c.strip() for c in cells):
                rows.append((reader.line_num, [c.strip() for c in cells]))
    except csv.Error as exc:
        raise ValueError(f"{path}, line {reader.line_num}: broken CSV ({exc})") from None
    first_line, first = rows[0]
    has_header = any(not _is_number(c) for c in first[1:]) or (
        not _is_number(first[0]) and all(_is_number(cells[0]) for _, cells in rows[1:])
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

    counts = _check_cells(values, str(path), locate)
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
    """The whole batch of a JSON-lines file (:func:`f1posterior.io.streaming.open_batch`)."""
    from .streaming import open_batch

    reader = open_batch(path, input_format="jsonl")
    chunks = list(reader)
    names = [n for c in chunks for n in c.names]
    return np.concatenate([c.counts for c in chunks]), reader.labels, names


def _parse_npy(data: bytes, where: str) -> np.ndarray:
    """A numeric array from the bytes of a ``.npy`` file, never unpickling anything.

    The header is parsed first; object dtypes are refused, and the data the
    header's shape and dtype need is checked against the bytes actually present
    before anything is allocated (a forged header claiming terabytes is an
    error, not a MemoryError). The array is a read-only view of ``data``.
    """
    from numpy.lib import format as npy_format

    if not data:
        raise ValueError(
            f"{where}: the input is empty: it ended unexpectedly (EOFError, 0 bytes); expected "
            "a .npy array"
        )
    fh = io.BytesIO(data)
    try:
        version = npy_format.read_magic(fh)
        if version == (1, 0):
            shape, fortran, dtype = npy_format.read_array_header_1_0(fh)
        elif version == (2, 0):
            shape, fortran, dtype = npy_format.read_array_header_2_0(fh)
        else:
            raise ValueError(f"unsupported .npy format version {version[0]}.{version[1]}")
    except (ValueError, EOFError, SyntaxError, TypeError) as exc:
        raise ValueError(f"{where}: not a numeric .npy array ({_short(exc)})") from None
    if dtype.hasobject:
        raise ValueError(
            f"{where}: not a numeric .npy array (it holds Python objects, which are never "
            "unpickled)"
        )
    if dtype.kind not in "iuf":  # bool is kind "b"
        raise ValueError(f"{where}: expected an array of counts; got dtype {dtype}")
    n = 1
    for k in shape:
        n *= int(k)
    needed = n * dtype.itemsize
    offset = fh.tell()
    present = len(data) - offset
    if needed != present:
        raise ValueError(
            f"{where}: the .npy header claims shape {tuple(shape)} of {dtype} ({needed:,} bytes "
            f"of data) but {present:,} bytes follow it; the file is truncated or forged"
        )
    arr = np.frombuffer(data, dtype=dtype, count=n, offset=offset)
    return arr.reshape(shape, order="F" if fortran else "C")


def _short(exc: BaseException, limit: int = 200) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _read_npy(path: Path) -> tuple[np.ndarray, list[str] | None]:
    where = _where(path)
    arr = _parse_npy(_read_bytes(path), where)
    if arr.ndim not in (2, 3) or arr.shape[-1] != arr.shape[-2] or 0 in arr.shape:
        raise ValueError(
            f"{where}: expected a square matrix (M, M) or a stack (B, M, M); got shape {arr.shape}"
        )

    def locate(idx: tuple[int, ...]) -> str:
        return f"cell {list(idx)}"

    counts = _check_cells(arr.astype(np.float64), where, locate)
    names = [str(i) for i in range(arr.shape[0])] if arr.ndim == 3 else None
    return counts, names


def _label_list(labels: Any, name: str = "labels") -> list[str] | None:
    if labels is None:
        return None
    if isinstance(labels, (str, bytes)) or not isinstance(labels, Sequence):
        raise TypeError(f"{name} must be a sequence of class labels; got {labels!r}")
    out = [str(x) for x in labels]
    if not out:
        raise ValueError(f"{name} must name at least one class; got an empty sequence")
    if len(set(out)) != len(out):
        dup = next(x for x in out if out.count(x) > 1)
        raise ValueError(f"{name} must not repeat a class; got {dup!r} twice in {out}")
    return out


def _apply_labels(
    counts: np.ndarray, file_labels: list[str] | None, labels: Any, where: str
) -> tuple[np.ndarray, list[str] | None]:
    """Name the classes of an unlabelled matrix, or reorder/extend a labelled one."""
    if file_labels is not None:
        seen: set[str] = set()
        for x in file_labels:
            if x in seen:
                raise ValueError(
                    f"{where}: the file's labels repeat {x!r} ({file_labels}); each class "
                    "must have one row and one column"
                )
            seen.add(x)
    wanted = _label_list(labels)
    if wanted is None:
        return counts, file_labels
    m = counts.shape[-1]
    if file_labels is None:
        if len(wanted) != m:
            raise ValueError(
                f"{where}: {len(wanted)} labels given for a {m} x {m} matrix without labels; "
                f"got {wanted}"
            )
        return counts, wanted
    unknown = [x for x in file_labels if x not in wanted]
    if unknown:
        raise ValueError(
            f"{where}: the file's label(s) {unknown} are not among the given labels {wanted}"
        )
    pos = np.array([wanted.index(x) for x in file_labels])
    out = np.zeros((*counts.shape[:-2], len(wanted), len(wanted)))
    out[..., pos[:, None], pos[None, :]] = counts
    return out, wanted


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


def _delimiter(fmt: str, text: str) -> str:
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

    text = _read_text(path)
    p = _where(path)
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
    text = _read_text(path)
    first = next(csv.reader(io.StringIO(text), delimiter=delimiter), [])
    return [c.strip() for c in first]


def input_format_of(path: str | Path, input_format: str | None = None) -> str:
    """The format :func:`read_input` reads ``path`` in (before telling predictions apart).

    ``input_format`` when given; else, for ``-``, the format sniffed from
    standard input (:func:`sniff_format`); else the file's suffix.
    """
    fmt = check_input_format(input_format)
    if fmt is not None:
        return fmt
    if is_stdin(path):
        return sniff_format(_stdin_bytes())
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in _FORMAT_OF_SUFFIX:
        raise ValueError(
            f"{p}: unknown file type {suffix or '(no suffix)'!r}; expected one of "
            f"{', '.join(MATRIX_SUFFIXES)} (or a predictions CSV)"
        )
    return _FORMAT_OF_SUFFIX[suffix]


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
    header = _csv_header(Path(path), _delimiter(fmt, ""))
    return true_col in header and pred_col in header


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
    ``true_col`` and ``pred_col`` as predictions (:func:`read_predictions`)
    and anything else as a matrix (:func:`read_matrix`); True or False forces
    the choice. ``transpose`` applies to matrices only.

    ``path`` ``-`` reads standard input (read once; reading ``-`` again gives
    the same bytes), named ``<stdin>`` in messages. Its format is
    ``input_format``, one of ``json``, ``csv``, ``tsv``, ``jsonl``, ``npy``
    and ``predictions`` (a predictions CSV, comma- or tab-separated), or
    else sniffed (:func:`sniff_format`); a format that cannot be told is a
    ``ValueError`` asking for it. For a file path, ``input_format`` overrides
    the suffix. ``.npy`` input is parsed from its bytes: the header's shape is
    checked against the length before anything is allocated, and nothing is
    ever unpickled.

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
        _regular_file(path)
    p = Path(path)
    if predictions and input_format is None and not is_stdin(p):
        fmt = "tsv" if p.suffix.lower() == ".tsv" else "csv"  # forced: any suffix
    else:
        fmt = input_format_of(p, input_format)
    if fmt == "predictions":
        if predictions is False:
            raise ValueError(
                f"{_where(p)}: input_format 'predictions' reads a predictions CSV; got "
                "predictions=False"
            )
        predictions = True
    if predictions is None:
        predictions = False
        if fmt in ("csv", "tsv"):
            header = _csv_header(p, _delimiter(fmt, ""))
            predictions = true_col in header and pred_col in header
    if predictions:
        if transpose:
            raise ValueError(
                f"{_where(p)}: transpose applies to confusion-matrix files; a predictions CSV "
                "names its true and predicted columns instead"
            )
        delimiter = _delimiter(fmt, _read_text(p) if fmt == "predictions" else "")
        return _read_predictions(p, delimiter, true_col, pred_col, labels)
    return _read_matrix(p, fmt, labels, transpose)


#: File suffixes :func:`read_multilabel` reads.
MULTILABEL_SUFFIXES = (".json", ".npy")


def read_multilabel(path: str | Path, *, labels: Sequence[Any] | None = None) -> MatrixInput:
    """Read multi-label input: per-label 2 x 2 tables, or indicator-matrix predictions.

    ``.npy``
        A stack ``(L, 2, 2)`` or a batch ``(B, L, 2, 2)`` of per-label tables
        ``[[tn, fp], [fn, tp]]`` (``allow_pickle=False``, always).
    ``.json``
        A list of ``L`` tables; or ``{"tables": [...], "labels": [...]}``; or
        predictions ``{"y_true": [[0, 1, ...], ...], "y_pred": [[...], ...],
        "labels": [...]}`` (``(D, L)`` 0/1 indicator matrices), counted with
        :func:`f1posterior.metrics.confusion.multilabel_confusion_matrix`.

    A ``(L, 2, 2)`` stack looks like a batch of binary tables, so multi-label
    input is only read when asked for (``--multilabel`` on the command line).

    Returns
    -------
    MatrixInput
        ``counts`` of shape ``(L, 2, 2)`` or ``(B, L, 2, 2)``; ``labels``
        names the L labels when the file or ``labels`` does.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "p.json").write_text('{"y_true": [[1, 0], [1, 1]], "y_pred": [[1, 1], [0, 1]]}')
    >>> read_multilabel(d / "p.json", labels=["a", "b"]).counts.tolist()
    [[[0.0, 0.0], [1.0, 1.0]], [[0.0, 1.0], [0.0, 1.0]]]
    """
    from ..metrics.confusion import multilabel_confusion_matrix

    p = Path(path)
    suffix = p.suffix.lower()
    if is_stdin(p):  # standard input: .npy by its magic bytes, else JSON
        suffix = ".npy" if _stdin_bytes().startswith(b"\x93NUMPY") else ".json"
    elif suffix in MULTILABEL_SUFFIXES:
        _regular_file(p)
    if suffix not in MULTILABEL_SUFFIXES:
        raise ValueError(
            f"{p}: unknown multi-label file type {suffix or '(no suffix)'!r}; expected "
            f"{' or '.join(MULTILABEL_SUFFIXES)}"
        )
    file_labels: list[str] | None = None
    where = _where(p)
    if suffix == ".npy":
        raw: Any = _parse_npy(_read_bytes(p), where)
    else:
        obj = _load_json(p)
        if isinstance(obj, dict) and ("y_true" in obj or "y_pred" in obj):
            if "y_true" not in obj or "y_pred" not in obj:
                raise ValueError(f'{where}: predictions need both "y_true" and "y_pred"')
            try:
                raw = multilabel_confusion_matrix(obj["y_true"], obj["y_pred"])
            except (TypeError, ValueError) as exc:
                raise ValueError(f"{where}: {exc}") from None
        elif isinstance(obj, dict):
            if "tables" not in obj:
                raise ValueError(
                    f'{where}: a JSON object must have "tables" or "y_true" and "y_pred"; got keys '
                    f"{sorted(obj)}"
                )
            raw = obj["tables"]
        else:
            raw = obj
        if isinstance(obj, dict) and obj.get("labels") is not None:
            file_labels = _label_list(obj["labels"])
    arr = np.asarray(raw) if not isinstance(raw, np.ndarray) else raw
    if arr.dtype == object or arr.ndim not in (3, 4) or arr.shape[-2:] != (2, 2):
        raise ValueError(
            f"{where}: expected per-label 2 x 2 tables of shape (L, 2, 2) or (B, L, 2, 2); got "
            f"{'shape ' + str(arr.shape) if arr.dtype != object else 'ragged input'}"
        )
    try:
        counts = check_counts(arr, "tables")
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: {exc}") from None
    wanted = _label_list(labels) if labels is not None else file_labels
    n_labels = counts.shape[-3]
    if wanted is not None and len(wanted) != n_labels:
        raise ValueError(f"{where}: {len(wanted)} labels given for {n_labels} per-label tables")
    names = [str(i) for i in range(counts.shape[0])] if counts.ndim == 4 else None
    return MatrixInput(counts=counts, labels=wanted, names=names, source=where)


DOCUMENT_SUFFIXES = (".json", ".npz")
#: Keys of a documents file (``labels`` is accepted in JSON and ignored).
DOCUMENT_KEYS = ("y_true", "y_pred", "scores")


@value_equality
@dataclass(frozen=True)
class DocumentInput:
    """Per-document multi-label data read from a file.

    Attributes
    ----------
    y_true : ndarray of bool, shape (D, L)
        True label indicators.
    y_pred : ndarray of bool, shape (D, L), or None
        Predicted label indicators.
    scores : ndarray of float, shape (D, L), or None
        Finite label scores (higher = more likely).
    source : str
        The path read.
    """

    y_true: np.ndarray
    y_pred: np.ndarray | None
    scores: np.ndarray | None
    source: str


def _load_npz(p: Path) -> dict[str, Any]:
    """The arrays of an ``.npz`` archive, never unpickling anything."""
    try:
        with p.open("rb") as fh:
            archive = np.load(fh, allow_pickle=False)
            if not isinstance(archive, np.lib.npyio.NpzFile):
                raise ValueError(f"{p}: expected a .npz archive of arrays; got a single .npy array")
            with archive:
                return {k: archive[k] for k in archive.files}
    except FileNotFoundError:
        raise ValueError(f"{p}: no such file") from None
    except ValueError as exc:
        if str(exc).startswith(f"{p}: "):
            raise
        raise ValueError(f"{p}: not a .npz archive of numeric arrays ({exc})") from None
    except Exception as exc:  # zipfile.BadZipFile, EOFError, OSError from a damaged file
        raise ValueError(
            f"{p}: not a readable .npz archive ({type(exc).__name__}: {exc})"
        ) from None


def read_documents(path: str | Path) -> DocumentInput:
    """Read per-document multi-label data for document-level metrics.

    ``.json``
        An object ``{"y_true": [[0, 1, ...], ...], "y_pred": [[...], ...],
        "scores": [[...], ...]}``: ``(D, L)`` 0/1 indicator matrices and a
        ``(D, L)`` matrix of finite scores; ``y_true`` and at least one of
        ``y_pred`` and ``scores`` are required, a ``"labels"`` entry is
        ignored, any other key is an error (a misspelt key is never skipped).
    ``.npz``
        Arrays with the same names (``numpy.savez``), loaded with
        ``allow_pickle=False``; other arrays are an error.

    Returns
    -------
    DocumentInput
        Validated ``y_true``, ``y_pred`` and ``scores`` of one shape ``(D, L)``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "docs.json").write_text('{"y_true": [[1, 0], [1, 1]], "y_pred": [[1, 1], [0, 1]]}')
    >>> doc = read_documents(d / "docs.json")
    >>> doc.y_true.shape, doc.y_pred.sum(), doc.scores is None
    ((2, 2), np.int64(3), True)
    """
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix in DOCUMENT_SUFFIXES:
        _regular_file(p)
    if suffix not in DOCUMENT_SUFFIXES:
        raise ValueError(
            f"{p}: unknown documents file type {suffix or '(no suffix)'!r}; expected "
            f"{' or '.join(DOCUMENT_SUFFIXES)}"
        )
    quoted = ", ".join(f'"{k}"' for k in DOCUMENT_KEYS)
    if suffix == ".npz":
        obj: Any = _load_npz(p)
        extra = sorted(set(obj) - set(DOCUMENT_KEYS))
    else:
        obj = _load_json(p, f"a JSON object with {quoted}")
        if not isinstance(obj, dict):
            raise ValueError(
                f"{p}: expected a JSON object with {quoted}; got a JSON {type(obj).__name__}"
            )
        extra = sorted(set(obj) - {*DOCUMENT_KEYS, "labels"})
    if extra:
        raise ValueError(f"{p}: unknown entries {extra}; expected {quoted}")
    if "y_true" not in obj:
        raise ValueError(f'{p}: "y_true" (the true label indicators) is missing')
    if obj.get("y_pred") is None and obj.get("scores") is None:
        raise ValueError(
            f'{p}: give "y_pred" (predicted labels), "scores" (a score matrix), or both'
        )
    try:
        t = check_indicator(obj["y_true"], '"y_true"')
        pred = None
        if obj.get("y_pred") is not None:
            pred = check_indicator(obj["y_pred"], '"y_pred"')
            if pred.shape != t.shape:
                raise ValueError(
                    f'"y_pred" must have the shape of "y_true", {t.shape} (D documents, L labels); '
                    f"got shape {pred.shape}"
                )
        scores = None
        if obj.get("scores") is not None:
            scores = check_scores(obj["scores"], '"scores"', shape=t.shape, like='"y_true"')
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{p}: {exc}") from None
    return DocumentInput(y_true=t, y_pred=pred, scores=scores, source=str(p))
