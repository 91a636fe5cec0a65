"""Streaming readers of batches of confusion matrices: JSON lines, ``.npy``, ``.npz``.

A batch is read chunk by chunk (:class:`BatchChunk`), never whole.

Design notes: docs/design.md#io-streaming
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from .._core.results import value_equality
from .._core.validation import check_counts
from ._cells import apply_labels, check_cells, matrix_from_json
from ._sources import file_errors, label_list, npy_header, regular_file

if TYPE_CHECKING:
    import zipfile

__all__ = ["BatchChunk", "BatchReader", "open_batch", "BATCH_SUFFIXES", "DEFAULT_CHUNK"]

#: Suffixes read as batches by :func:`open_batch`.
BATCH_SUFFIXES = (".jsonl", ".ndjson", ".npy", ".npz")
#: Matrices per chunk by default.
DEFAULT_CHUNK = 4096
#: A JSON line longer than this many characters is refused (a 700 x 700 matrix fits).
MAX_LINE = 64 << 20


@value_equality
@dataclass(frozen=True, eq=False)
class BatchChunk:
    """Consecutive matrices of a batch file.

    Attributes
    ----------
    counts : ndarray, shape (b, M, M)
        Whole-number float64 counts, rows = true class (labels applied).
    names : list of str
        One name per matrix.
    start : int
        Index of the first matrix in the whole batch.
    """

    counts: np.ndarray
    names: list[str]
    start: int


class BatchReader:
    """An open batch: its size (when known), labels and an iterator of chunks.

    Use :func:`open_batch`; iterate once. ``labels`` and ``m`` are known as
    soon as the reader is opened (the first matrix is read ahead).
    """

    def __init__(
        self,
        source: str,
        m: int,
        labels: list[str] | None,
        total: int | None,
        chunks: Iterator[BatchChunk],
    ) -> None:
        self.source = source
        self.m = m
        self.labels = labels
        self.total = total
        self._chunks = chunks

    def __iter__(self) -> Iterator[BatchChunk]:
        return self._chunks


def _check_chunk_size(chunk: Any) -> int:
    if isinstance(chunk, bool) or not isinstance(chunk, int) or chunk < 1:
        raise ValueError(f"chunk must be a positive int; got {chunk!r}")
    return chunk


def open_batch(
    path: str | Path,
    *,
    chunk: int = DEFAULT_CHUNK,
    labels: Sequence[Any] | None = None,
    transpose: bool = False,
    input_format: str | None = None,
) -> BatchReader:
    """Open a batch file of confusion matrices for reading chunk by chunk.

    Parameters
    ----------
    path : str or Path
        A ``.jsonl``/``.ndjson``, ``.npy`` or ``.npz`` file, or ``"-"`` for
        JSON lines on standard input.
    chunk : int, default 4096
        Matrices per chunk.
    labels : sequence of str, optional
        Class labels in order: names unlabelled matrices; for labelled ones
        fixes the order and adds absent classes.
    transpose : bool, default False
        The matrices have predicted classes in rows.
    input_format : {"jsonl", "npy", "npz"}, optional
        The format, when the suffix does not say (required for ``"-"``
        unless it is JSON lines).

    Returns
    -------
    BatchReader
        Iterate it for :class:`BatchChunk` s.

    Examples
    --------
    >>> import json, tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> f = os.path.join(d, "b.jsonl")
    >>> with open(f, "w") as fh:
    ...     for i in range(3):
    ...         print(json.dumps({"name": f"m{i}", "matrix": [[5 + i, 1], [2, 7]]}), file=fh)
    >>> reader = open_batch(f, chunk=2)
    >>> [(c.start, c.names) for c in reader]
    [(0, ['m0', 'm1']), (2, ['m2'])]
    """
    size = _check_chunk_size(chunk)
    wanted = label_list(labels)
    fmt = input_format
    if fmt is None:
        suffix = "" if str(path) == "-" else Path(path).suffix.lower()
        fmt = {".jsonl": "jsonl", ".ndjson": "jsonl", ".npy": "npy", ".npz": "npz"}.get(
            suffix, "jsonl" if str(path) == "-" else None
        )
        if fmt is None:
            raise ValueError(
                f"{path}: not a batch file; expected a name ending in "
                f"{', '.join(BATCH_SUFFIXES)}; got suffix {suffix!r}"
            )
    if fmt == "jsonl":
        return _open_jsonl(path, size, wanted, transpose)
    if fmt in ("npy", "npz"):
        if str(path) == "-":
            raise ValueError(f"--input-format {fmt}: standard input is read as JSON lines only")
        p = regular_file(path)
        arr, names, file_labels = _open_npy(p) if fmt == "npy" else _open_npz(p)
        if arr.shape[-1] < 2:
            raise ValueError(
                f"{p}: a confusion matrix needs at least 2 classes; got shape {arr.shape}"
            )
        return _array_reader(p, arr, names, file_labels, size, wanted, transpose)
    raise ValueError(f"input_format must be 'jsonl', 'npy' or 'npz'; got {fmt!r}")


# --------------------------------------------------------------------- JSON lines


def open_lines(path: str | Path) -> tuple[str, IO[str], bool]:
    if str(path) == "-":
        return "<stdin>", sys.stdin, False
    p = regular_file(path)
    with file_errors(p):
        fh = p.open(encoding="utf-8", newline="")
    return str(p), fh, True


def _parse_line(line: str, where: str) -> tuple[np.ndarray, list[str] | None, str | None]:
    if len(line) > MAX_LINE:
        raise ValueError(f"{where}: a line of {len(line):,} characters; at most {MAX_LINE:,}")
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{where}: broken JSON at column {exc.colno} ({exc.msg})") from None
    except RecursionError:
        raise ValueError(f"{where}: JSON nested too deeply") from None
    name = None
    if isinstance(obj, dict) and "name" in obj:
        raw = obj.pop("name")
        if not isinstance(raw, (str, int)) or isinstance(raw, bool):
            raise ValueError(f'{where}: "name" must be a string; got {raw!r}')
        name = str(raw)
    counts, lab = matrix_from_json(obj, where, validate=False)
    return counts, lab, name


def _open_jsonl(
    path: str | Path, size: int, wanted: list[str] | None, transpose: bool
) -> BatchReader:
    source, fh, owned = open_lines(path)
    numbered = enumerate(fh, start=1)
    first = None
    try:
        for line_no, line in numbered:
            if line.strip():
                first = (line_no, *_parse_line(line, f"{source}, line {line_no}"))
                break
    except UnicodeDecodeError as exc:
        if owned:
            fh.close()
        raise ValueError(f"{source}: not UTF-8 text ({exc.reason})") from None
    if first is None:
        if owned:
            fh.close()
        raise ValueError(f"{source}: no matrices (the file is empty)")
    first_line, counts0, labels0, _ = first
    shape = counts0.shape
    _, out_labels = apply_labels(counts0, labels0, wanted, f"{source}, line {first_line}")
    m = shape[0] if out_labels is None else len(out_labels)

    def chunks() -> Iterator[BatchChunk]:
        seen: set[str] = set()
        mats: list[np.ndarray] = []
        names: list[str] = []
        lines_of: list[int] = []
        start = 0
        pending = [first]
        try:
            lines = ((n, line) for n, line in numbered if line.strip())
            while True:
                if pending:
                    line_no, counts, lab, name = pending.pop()
                else:
                    nxt = next(lines, None)
                    if nxt is None:
                        break
                    line_no, line = nxt
                    counts, lab, name = _parse_line(line, f"{source}, line {line_no}")
                where = f"{source}, line {line_no}"
                if counts.shape != shape:
                    raise ValueError(
                        f"{where}: a {counts.shape[0]} x {counts.shape[1]} matrix, but line "
                        f"{first_line} has a {shape[0]} x {shape[1]} one; a batch needs one size"
                    )
                if lab is not None and lab != labels0:
                    raise ValueError(
                        f"{where}: labels {lab} differ from line {first_line}'s {labels0}; "
                        "every line of a batch has the same labels (or none after the first)"
                    )
                name = f"line {line_no}" if name is None else name
                if name in seen:
                    raise ValueError(
                        f"{where}: the name {name!r} is used twice; names must be unique"
                    )
                seen.add(name)
                mats.append(counts)
                names.append(name)
                lines_of.append(line_no)
                if len(mats) == size:
                    yield _finish(mats, names, start, labels0, wanted, transpose, source, lines_of)
                    start += len(mats)
                    mats, names, lines_of = [], [], []
            if mats:
                yield _finish(mats, names, start, labels0, wanted, transpose, source, lines_of)
        except UnicodeDecodeError as exc:
            raise ValueError(f"{source}: not UTF-8 text ({exc.reason})") from None
        finally:
            if owned:
                fh.close()

    return BatchReader(source, m, out_labels, None, chunks())


def _finish(
    mats: list[np.ndarray],
    names: list[str],
    start: int,
    file_labels: list[str] | None,
    wanted: list[str] | None,
    transpose: bool,
    source: str,
    lines_of: list[int],
) -> BatchChunk:
    counts = np.stack(mats)
    try:  # every count check for the whole chunk at once; the first bad line named
        check_counts(counts)
    except (ValueError, TypeError):
        for line_no, m in zip(lines_of, mats, strict=True):
            try:
                check_counts(m)
            except (ValueError, TypeError) as exc:
                raise ValueError(f"{source}, line {line_no}: {exc}") from None
        raise
    if transpose:
        counts = np.swapaxes(counts, -1, -2)
    counts, _ = apply_labels(counts, file_labels, wanted, source)
    return BatchChunk(
        counts=np.ascontiguousarray(counts, dtype=np.float64), names=names, start=start
    )


# --------------------------------------------------------------------- arrays


def square_npy_header(fh: IO[bytes], where: str) -> tuple[tuple[int, ...], bool, np.dtype]:
    """:func:`~f1posterior.io._sources.npy_header`, and a square matrix or stack."""
    shape, fortran, dtype = npy_header(fh, where)
    if len(shape) not in (2, 3) or shape[-1] != shape[-2] or 0 in shape:
        raise ValueError(
            f"{where}: expected a square matrix (M, M) or a stack (B, M, M); got shape {shape}"
        )
    return tuple(int(s) for s in shape), bool(fortran), dtype


def _check_size(shape: tuple[int, ...], dtype: np.dtype, available: int, where: str) -> None:
    need = math.prod(shape) * dtype.itemsize
    if need != available:
        raise ValueError(
            f"{where}: the header claims shape {shape} of {dtype} ({need:,} bytes), but the "
            f"file holds {available:,} bytes of data; refusing a forged or truncated array"
        )


def _open_npy(p: Path) -> tuple[np.ndarray, list[str] | None, list[str] | None]:
    with file_errors(p), p.open("rb") as fh:
        shape, fortran, dtype = square_npy_header(fh, str(p))
        offset = fh.tell()
        available = p.stat().st_size - offset
    _check_size(shape, dtype, available, str(p))
    arr = np.memmap(
        p, dtype=dtype, mode="r", offset=offset, shape=shape, order="F" if fortran else "C"
    )
    return arr, None, None


def _npz_member(zf: zipfile.ZipFile, key: str, where: str) -> np.ndarray:
    info = zf.getinfo(key)
    with zf.open(info) as fh:
        shape, fortran, dtype = square_npy_header(fh, where)
        header = fh.tell()
        _check_size(shape, dtype, info.file_size - header, where)
        data = fh.read()
    return np.frombuffer(data, dtype=dtype).reshape(shape, order="F" if fortran else "C")


def _npz_strings(zf: zipfile.ZipFile, key: str, n: int, where: str) -> list[str]:
    info = zf.getinfo(key)
    with zf.open(info) as fh:
        fmt = np.lib.format
        version = fmt.read_magic(fh)
        reader = fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0
        shape, fortran, dtype = reader(fh)
        if dtype.kind != "U" or len(shape) != 1 or shape[0] != n:
            raise ValueError(
                f"{where}: expected {n} strings (a unicode array of shape ({n},)); got shape "
                f"{shape} of {dtype}"
            )
        _check_size(tuple(shape), dtype, info.file_size - fh.tell(), where)
        data = fh.read()
    return [str(x) for x in np.frombuffer(data, dtype=dtype)]


def _open_npz(p: Path) -> tuple[np.ndarray, list[str] | None, list[str] | None]:
    import zipfile  # here: reading a matrix never loads it

    try:
        zf = zipfile.ZipFile(p)
    except (zipfile.BadZipFile, OSError) as exc:
        raise ValueError(f"{p}: not a .npz archive ({exc})") from None
    with zf:
        keys = {n[:-4]: n for n in zf.namelist() if n.endswith(".npy")}
        if "counts" in keys:
            key = "counts"
        elif len(keys) == 1:
            key = next(iter(keys))
        else:
            raise ValueError(
                f"{p}: expected an array named 'counts' (or a single array); got {sorted(keys)}"
            )
        arr = _npz_member(zf, keys[key], f"{p}[{key}]")
        b = arr.shape[0] if arr.ndim == 3 else 1
        names = _npz_strings(zf, keys["names"], b, f"{p}[names]") if "names" in keys else None
        m = arr.shape[-1]
        labs = _npz_strings(zf, keys["labels"], m, f"{p}[labels]") if "labels" in keys else None
    return arr, names, labs


def _array_reader(
    p: Path,
    arr: np.ndarray,
    names: list[str] | None,
    file_labels: list[str] | None,
    size: int,
    wanted: list[str] | None,
    transpose: bool,
) -> BatchReader:
    stack = arr if arr.ndim == 3 else arr[None]
    total = stack.shape[0]
    if names is not None and len(set(names)) != len(names):
        dup = next(x for x in names if names.count(x) > 1)
        raise ValueError(f"{p}: the name {dup!r} is used twice; names must be unique")
    _, out_labels = apply_labels(np.zeros(stack.shape[1:]), file_labels, wanted, str(p))
    m = stack.shape[-1] if out_labels is None else len(out_labels)

    def chunks() -> Iterator[BatchChunk]:
        for s in range(0, total, size):
            e = min(total, s + size)
            values = np.array(stack[s:e], dtype=np.float64)

            def locate(idx: tuple[int, ...], s: int = s) -> str:
                return f"matrix {s + idx[0]}, cell {list(idx[1:])}"

            counts = check_cells(values, str(p), locate)
            if transpose:
                counts = np.swapaxes(counts, -1, -2)
            counts, _ = apply_labels(counts, file_labels, wanted, str(p))
            chunk_names = names[s:e] if names is not None else [str(i) for i in range(s, e)]
            yield BatchChunk(np.ascontiguousarray(counts), chunk_names, s)

    return BatchReader(str(p), m, out_labels, total, chunks())
