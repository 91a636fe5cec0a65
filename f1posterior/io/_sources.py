"""Where input comes from: files and standard input (read once, size-capped), format
sniffing, JSON and `.npy` parsing, and the `MatrixInput` every reader returns."""

from __future__ import annotations

import io
import json
import os
import stat
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .._core.results import value_equality

#: The path that means standard input.
STDIN = "-"


#: How standard input is named in messages and sources.
STDIN_NAME = "<stdin>"


#: Formats :func:`read_input` reads from standard input (``input_format``).
INPUT_FORMATS = ("json", "csv", "tsv", "jsonl", "npy", "predictions")


#: Standard input longer than this many bytes is refused (it may never end).
MAX_STDIN_BYTES = 1 << 30


FORMAT_OF_SUFFIX = {
    ".json": "json",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".csv": "csv",
    ".tsv": "tsv",
    ".npy": "npy",
}


@value_equality
@dataclass(frozen=True, eq=False)
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

    See Also
    --------
    f1posterior.read_input : The function that returns it.

    Examples
    --------
    >>> import json, os, tempfile
    >>> from f1posterior import read_input
    >>> path = os.path.join(tempfile.mkdtemp(), "m.json")
    >>> with open(path, "w") as out:
    ...     json.dump([[5, 1], [2, 7]], out)
    >>> read_input(path).counts.tolist()
    [[5.0, 1.0], [2.0, 7.0]]
    """

    counts: np.ndarray
    labels: list[str] | None
    names: list[str] | None
    source: str


def file_kind(mode: int) -> str:
    """What a file of ``st_mode`` ``mode`` is, in words ("a regular file", "a FIFO", ...)."""
    for test, kind in (
        (stat.S_ISREG, "a regular file"),
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a device"),
        (stat.S_ISBLK, "a device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return kind
    return "not a regular file"


@contextmanager
def file_errors(p: Path | str) -> Iterator[None]:
    """OS errors on file ``p`` as one-line ValueErrors naming it."""
    try:
        yield
    except FileNotFoundError:
        raise ValueError(f"{p}: no such file") from None
    except OSError as exc:
        raise ValueError(f"{p}: cannot be read ({exc.strerror})") from None


def regular_file(path: str | Path) -> Path:
    """``path`` as a Path if it names a regular file (through symlinks); else a ValueError.

    Devices (``/dev/zero``), FIFOs and directories are refused before anything is
    opened: reading them could block forever or never end.
    """
    p = Path(path)
    with file_errors(p):
        mode = os.stat(p).st_mode
    if not stat.S_ISREG(mode):
        raise ValueError(f"{p}: {file_kind(mode)}; only regular files are read")
    return p


def npy_ndim(path: str | Path) -> int:
    """The number of dimensions of a ``.npy`` regular file; 0 if it is not one or unreadable.

    A sniffer: a FIFO, device or directory is never opened (it could block or
    never end), and the reader that follows reports any problem.
    """
    try:
        with regular_file(path).open("rb") as fh:
            return len(npy_header(fh, str(path))[0])
    except (OSError, ValueError):
        return 0


def is_stdin(path: Any) -> bool:
    """Whether ``path`` is ``-``, standard input."""
    return isinstance(path, (str, Path)) and str(path) == STDIN


def source_name(path: str | Path) -> str:
    """How ``path`` is named in messages: ``<stdin>`` for ``-``."""
    return STDIN_NAME if is_stdin(path) else str(path)


_stdin_cache: tuple[Any, bytes] | None = None


def stdin_bytes() -> bytes:
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


def read_bytes(path: str | Path) -> bytes:
    """The bytes of a regular file, or of standard input for ``-``."""
    if is_stdin(path):
        return stdin_bytes()
    p = regular_file(path)
    with file_errors(p):
        return p.read_bytes()


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


def _read_file_text(path: Path, encoding: str, what: str) -> str:
    """The text of file ``path`` (text mode: universal newlines); a ValueError when unreadable."""
    with file_errors(path):
        try:
            return path.read_text(encoding=encoding)
        except UnicodeDecodeError:
            raise ValueError(f"{path}: not UTF-8 text; expected {what}") from None


def known_suffix(path: Path, suffixes: Any, what: str, expected: str) -> str:
    """The lower-case suffix of ``path`` if it is one of ``suffixes``; else a ValueError.

    The message reads ``PATH: unknown WHAT '.xyz'; expected EXPECTED``.
    """
    suffix = path.suffix.lower()
    if suffix not in suffixes:
        raise ValueError(f"{path}: unknown {what} {suffix or '(no suffix)'!r}; expected {expected}")
    return suffix


def load_json(path: Path, what: str = "a JSON confusion matrix") -> Any:
    where = source_name(path)
    if is_stdin(path):
        text = _decode(stdin_bytes(), where, "utf-8")
    else:
        text = _read_file_text(path, "utf-8", what)
    if not text.strip():
        empty = "the input is empty" if is_stdin(path) else "the file is empty"
        raise ValueError(f"{where}: {empty}; expected {what}")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"{where}: broken JSON at line {exc.lineno}, column {exc.colno} ({exc.msg})"
        ) from None


#: File suffixes :func:`read_matrix` reads.
MATRIX_SUFFIXES = (".json", ".jsonl", ".ndjson", ".csv", ".tsv", ".npy")
#: ``what`` and ``expected`` of :func:`known_suffix` for a confusion-matrix file.
MATRIX_FILE_TYPES = ("file type", f"one of {', '.join(MATRIX_SUFFIXES)} (or a predictions CSV)")


def read_text(path: Path) -> str:
    """The UTF-8 text of a regular file, or of standard input for ``-``; never empty."""
    if is_stdin(path):
        text = _decode(stdin_bytes(), STDIN_NAME)
        if not text.strip():
            raise ValueError(f"{STDIN_NAME}: the input is empty; expected a confusion matrix")
        return text
    regular_file(path)
    text = _read_file_text(path, "utf-8-sig", "a text file")
    if not text.strip():
        raise ValueError(f"{path}: the file is empty; expected a confusion matrix")
    return text


def label_list(labels: Any, name: str = "labels") -> list[str] | None:
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


def input_format_of(path: str | Path, input_format: str | None = None) -> str:
    """The format :func:`read_input` reads ``path`` in (before telling predictions apart).

    ``input_format`` when given; else, for ``-``, the format sniffed from
    standard input (:func:`sniff_format`); else the file's suffix.
    """
    fmt = check_input_format(input_format)
    if fmt is not None:
        return fmt
    if is_stdin(path):
        return sniff_format(stdin_bytes())
    return FORMAT_OF_SUFFIX[known_suffix(Path(path), FORMAT_OF_SUFFIX, *MATRIX_FILE_TYPES)]


def npy_header(fh: Any, where: str) -> tuple[tuple[int, ...], bool, np.dtype]:
    """Shape, Fortran order and dtype from a ``.npy`` header, never unpickling anything.

    The one reader of ``.npy`` headers (bytes here, memory-mapped files and
    ``.npz`` members in :mod:`f1posterior.io._streaming`): versions 1.0 and 2.0,
    integer or float counts only (object arrays are refused, not unpickled).
    """
    from numpy.lib import format as npy_format

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
    return tuple(int(k) for k in shape), bool(fortran), dtype


def parse_npy(data: bytes, where: str) -> np.ndarray:
    """A numeric array from the bytes of a ``.npy`` file, never unpickling anything.

    The header is parsed first; object dtypes are refused, and the data the
    header's shape and dtype need is checked against the bytes actually present
    before anything is allocated (a forged header claiming terabytes is an
    error, not a MemoryError). The array is a read-only view of ``data``.
    """

    if not data:
        raise ValueError(
            f"{where}: the input is empty: it ended unexpectedly (EOFError, 0 bytes); expected "
            "a .npy array"
        )
    fh = io.BytesIO(data)
    shape, fortran, dtype = npy_header(fh, where)
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
