"""Streaming writers: one row per matrix (or per matrix, metric and class), chunk by chunk.

Columns, run metadata, formats and escaping are described in the design notes.

Design notes: docs/design.md#io-writers
"""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from .._core.text import escape_csv, escape_markdown, escape_text
from ._receipt import Receipt
from ._rowmeta import META_PREFIX, HashQuoting
from ._sources import file_kind

__all__ = [
    "ROW_FORMATS",
    "RowWriter",
    "ParquetRowWriter",
    "append_output",
    "atomic_output",
    "output_target",
    "write_output",
]

#: Formats of :class:`RowWriter`.
ROW_FORMATS = ("csv", "tsv", "ndjson", "json", "markdown", "table")


def output_target(path: str | os.PathLike[str], flag: str = "path") -> Path:
    """The file that writing ``path`` replaces: ``path``, or a symlink's regular target.

    Only a new path or an existing regular file is written. A symbolic link is
    followed to its target, which must be a regular file (the link itself is
    kept); a directory, FIFO, device or socket, or a link to one, is refused
    before anything is opened, with a one-line ValueError naming ``flag`` and
    the path.

    Examples
    --------
    >>> output_target("/dev/null", "--output")
    Traceback (most recent call last):
    ...
    ValueError: --output /dev/null: a device; only a regular file or a new path is written (- is standard output)
    """  # noqa: E501
    shown = f"{flag} {path}"
    try:
        st = os.stat(path)  # through symlinks
    except FileNotFoundError:
        if os.path.islink(path):
            raise ValueError(
                f"{shown}: a symbolic link to a missing file; give the file itself"
            ) from None
        return Path(path)  # new (a missing folder is reported when the file is made)
    except OSError as exc:
        raise ValueError(f"{shown}: cannot write there ({exc.strerror or exc})") from None
    if not stat.S_ISREG(st.st_mode):
        stdout = flag == "--output" and not stat.S_ISDIR(st.st_mode)
        raise ValueError(
            f"{shown}: {file_kind(st.st_mode)}; only a regular file or a new path is written"
            + (" (- is standard output)" if stdout else "")
        )
    return Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)


def _temporary_beside(target: Path, like: os.stat_result | None) -> tuple[int, str]:
    """A new file ``.NAME.RANDOM.part`` in ``target``'s folder: (descriptor, path).

    Created with ``0o666`` minus the umask, as any new file (not ``mkstemp``'s
    0600); with the permissions (and, where allowed, the owner) of ``like``, the
    file it will replace.
    """
    folder = target.parent
    for _ in range(100):
        tmp = folder / f".{target.name}.{os.urandom(4).hex()}.part"
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
            fd = os.open(tmp, flags, 0o666)
        except FileExistsError:
            continue
        break
    else:  # pragma: no cover - 100 random names taken
        raise FileExistsError(f"no free temporary name beside {target}")
    if like is not None:
        try:
            os.chmod(tmp, stat.S_IMODE(like.st_mode))
            if hasattr(os, "fchown") and (like.st_uid, like.st_gid) != os.fstat(fd)[4:6]:
                os.fchown(fd, like.st_uid, like.st_gid)
        except OSError:  # not allowed to give it the old owner: keep ours
            pass
    return fd, str(tmp)


@contextmanager
def atomic_output(
    path: str | os.PathLike[str] | None, *, binary: bool = False, flag: str = "path"
) -> Iterator[Any]:
    """A stream that becomes ``path`` only when the block ends without an error.

    The one writer of output files. ``path`` must be a new path or a regular
    file (a symlink is followed to its regular target and kept):
    :func:`output_target` refuses anything else before a byte is written.
    The data go to a temporary file in the same folder, which is flushed to
    disk and renamed over the target on success; on any exception (an
    interrupt included) it is removed and the target is left as it was. A new
    file gets the umask's permissions, a replaced one keeps its own.
    ``None`` or ``"-"`` yields standard output (text only). ``binary=True``
    yields a binary file (Parquet, images). ``flag`` names the option in
    messages.
    """
    if path is None or str(path) == "-":
        if binary:
            raise ValueError(f"{flag} -: a binary output needs a file; give {flag} FILE")
        yield sys.stdout
        sys.stdout.flush()
        return
    target = output_target(path, flag)
    try:
        fd, tmp = _temporary_beside(target, _stat_or_none(target))
    except OSError as exc:
        raise ValueError(f"{flag} {path}: cannot write there ({exc.strerror or exc})") from None
    try:
        with (
            os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8", newline="")
        ) as fh:
            yield fh
            if not fh.closed:  # (a writer may have closed it: then it is flushed)
                fh.flush()
                os.fsync(fh.fileno())  # on disk before the rename: never half a file
        output_target(path, flag)  # still a regular file or nothing: never replace a device
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _stat_or_none(target: Path) -> os.stat_result | None:
    try:
        return os.stat(target)
    except FileNotFoundError:
        return None


def write_output(path: str | os.PathLike[str], data: str | bytes, flag: str) -> Path:
    """Write ``data`` (text as UTF-8) to ``path`` with :func:`atomic_output`; the path.

    Errors (a device, a missing folder, a full disk...) are one-line ValueErrors
    naming ``flag`` and the path.
    """
    try:
        with atomic_output(path, binary=isinstance(data, bytes), flag=flag) as fh:
            fh.write(data)
    except OSError as exc:
        raise ValueError(f"{flag} {path}: cannot write ({exc.strerror or exc})") from None
    return Path(path)


def append_output(path: str | os.PathLike[str], text: str, flag: str) -> None:
    """Append ``text`` to ``path``, a regular file or a new path (:func:`output_target`)."""
    target = output_target(path, flag)
    try:
        with target.open("a", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        raise ValueError(f"{flag} {path}: cannot write ({exc.strerror or exc})") from None


def _number(v: Any) -> str:
    """A number or flag cell of CSV: shortest round-trip, ``nan``, ``true``/``false``/empty."""
    if v is None or isinstance(v, bool):
        return "" if v is None else str(v).lower()
    return "nan" if np.isnan(v) else repr(float(v))


def _json_number(v: Any) -> Any:
    return v if v is None or isinstance(v, bool) else None if np.isnan(v) else float(v)


class RowWriter:
    """Write rows (a header, then records of text and numbers) to a text stream.

    Parameters
    ----------
    stream : text file
        Where to write.
    fmt : {"csv", "tsv", "ndjson", "json", "markdown", "table"}
        Output format.
    meta : dict, optional
        What the output records about its run
        (:func:`~f1posterior.io.row_metadata`), written before the rows:
        the CSV/TSV comment line, the NDJSON first line, the JSON header.
    text_columns : int, default 1
        How many leading columns of a record are text (names, labels); the
        others are numbers (NaN when undefined) or flags (True, False, or
        None when not checked).

    See Also
    --------
    ParquetRowWriter : The same rows in Parquet.
    f1posterior.posterior.evaluation_rows : The rows of an evaluation.
    f1posterior.io.row_metadata : The metadata.

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> w = RowWriter(out, "csv", meta={"draws": 1000})
    >>> w.write(["name", "score", "flag"], [["=a", 0.25, True], ["b", float("nan"), None]])
    >>> w.close()
    >>> print(out.getvalue(), end="")
    # f1posterior: {"draws": 1000}
    name,score,flag
    '=a,0.25,true
    b,nan,
    """

    def __init__(
        self,
        stream: TextIO,
        fmt: str,
        *,
        meta: dict[str, Any] | None = None,
        text_columns: int = 1,
    ) -> None:
        if fmt not in ROW_FORMATS:
            raise ValueError(f"fmt must be one of {', '.join(ROW_FORMATS)}; got {fmt!r}")
        self.stream = stream
        self.fmt = fmt
        self.meta = dict(meta or {})
        self.text_columns = text_columns
        self.columns: list[str] | None = None
        self.rows_written = 0
        self._csv: Any = None
        self._widths: list[int] = []

    def write(self, header: Sequence[str], records: Iterable[Sequence[Any]]) -> None:
        """Write ``records`` under ``header`` (the same header at every call)."""
        if self.columns is None:
            self.columns = list(header)
            self._start(self.columns)
        elif list(header) != self.columns:
            raise ValueError(
                f"a later chunk has columns {list(header)[:4]}...; the first had "
                f"{self.columns[:4]}..."
            )
        getattr(self, f"_rows_{self.fmt}")(records)

    def _start(self, header: list[str]) -> None:
        fh = self.stream
        if self.fmt in ("csv", "tsv"):
            fh.write(META_PREFIX + json.dumps(self.meta) + "\n")
            self._csv = HashQuoting(fh, "," if self.fmt == "csv" else "\t")
            self._csv.writerow([escape_csv(h) for h in header])
        elif self.fmt == "ndjson":
            fh.write(json.dumps({"meta": self.meta}) + "\n")
        elif self.fmt == "json":
            self._json_head()
        elif self.fmt == "markdown":
            fh.write("| " + " | ".join(escape_markdown(h) for h in header) + " |\n")
            fh.write("|" + "---|" * len(header) + "\n")
        elif self.fmt == "table":
            self._widths = [24 if i == 0 else max(10, len(h)) for i, h in enumerate(header)]
            fh.write(self._table_line(header))

    def _json_head(self) -> None:
        head = json.dumps(self.meta)[:-1]
        self.stream.write(head + (", " if self.meta else "") + '"rows": [')

    def _table_line(self, cells: list[str]) -> str:
        n_text = self.text_columns
        out = [
            f"{c:<{w}}" if i < n_text else f"{c:>{w}}"
            for i, (c, w) in enumerate(zip(cells, self._widths, strict=True))
        ]
        return "  ".join(out).rstrip() + "\n"

    def _rows_csv(self, records: Iterable[Sequence[Any]]) -> None:
        n = self.text_columns
        out = [[*map(escape_csv, r[:n]), *map(_number, r[n:])] for r in records]
        self._csv.writerows(out)
        self.rows_written += len(out)

    _rows_tsv = _rows_csv

    def _json_rows(self, records: Iterable[Sequence[Any]]) -> Iterator[str]:
        assert self.columns is not None
        n = self.text_columns
        for r in records:
            obj = dict(zip(self.columns[:n], r[:n], strict=True))
            obj.update(zip(self.columns[n:], map(_json_number, r[n:]), strict=True))
            yield json.dumps(obj, allow_nan=False)

    def _rows_ndjson(self, records: Iterable[Sequence[Any]]) -> None:
        lines = list(self._json_rows(records))
        if lines:
            self.stream.write("\n".join(lines) + "\n")
        self.rows_written += len(lines)

    def _rows_json(self, records: Iterable[Sequence[Any]]) -> None:
        for line in self._json_rows(records):
            self.stream.write(("\n  " if self.rows_written == 0 else ",\n  ") + line)
            self.rows_written += 1

    def _human(self, records: Iterable[Sequence[Any]]) -> Iterator[list[str]]:
        n = self.text_columns
        esc = escape_markdown if self.fmt == "markdown" else escape_text
        for r in records:
            cells = [esc(x) for x in r[:n]]
            cells += [
                _number(v) if v is None or isinstance(v, bool) else
                "nan" if np.isnan(v) else f"{v:.4f}"
                for v in r[n:]
            ]  # fmt: skip
            yield cells

    def _rows_markdown(self, records: Iterable[Sequence[Any]]) -> None:
        for cells in self._human(records):
            self.stream.write("| " + " | ".join(cells) + " |\n")
            self.rows_written += 1

    def _rows_table(self, records: Iterable[Sequence[Any]]) -> None:
        for cells in self._human(records):
            self.stream.write(self._table_line(cells))
            self.rows_written += 1

    def close(self) -> None:
        """Finish the output (closes the ``json`` document); the stream stays open."""
        if self.fmt == "json":
            if self.columns is None:
                self._json_head()
            self.stream.write("\n]}\n" if self.rows_written else "]}\n")
        elif self.fmt in ("markdown", "table") and "receipt" in self.meta:
            receipt = Receipt.from_dict(self.meta["receipt"])  # a footer: the last line
            md = self.fmt == "markdown"
            self.stream.write("\n" + (receipt.markdown() if md else receipt.text()) + "\n")
        self.stream.flush()


class ParquetRowWriter:
    """Write rows to a Parquet file (needs pyarrow), one row group per call.

    The records are :class:`RowWriter`'s: text cells become strings, numbers
    float64 and flags nullable booleans (a column's kind is its first cell's).
    The metadata is the JSON value of the schema metadata key ``f1posterior``.

    Parameters
    ----------
    stream : binary file
        Where to write (e.g. from :func:`atomic_output` with ``binary=True``).
    meta : dict, optional
        What the output records about its run
        (:func:`~f1posterior.io.row_metadata`).

    See Also
    --------
    RowWriter : The text formats.
    """

    def __init__(self, stream: Any, *, meta: dict[str, Any] | None = None) -> None:
        try:
            import pyarrow  # noqa: F401
            import pyarrow.parquet  # noqa: F401
        except ImportError:
            raise ImportError(
                "Parquet output needs pyarrow, an optional extra: "
                "pip install 'f1posterior[parquet]'"
            ) from None
        self.stream = stream
        self._writer: Any = None
        self.rows_written = 0
        self.meta = dict(meta or {})

    def write(self, header: Sequence[str], records: Iterable[Sequence[Any]]) -> None:
        """Write ``records`` under ``header`` (the same columns at every call)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        rows = list(records)
        arrays = []
        for col in zip(*rows, strict=True) if rows else [()] * len(header):
            first = col[0] if col else 0.0
            if isinstance(first, str):
                arrays.append(pa.array(col, pa.string()))
            elif first is None or isinstance(first, bool):
                arrays.append(pa.array(col, pa.bool_()))
            else:
                arrays.append(pa.array(np.asarray(col, dtype=float), pa.float64()))
        table = pa.Table.from_arrays(arrays, names=list(header))
        if self._writer is None:
            meta = {b"f1posterior": json.dumps(self.meta).encode()}
            self._writer = pq.ParquetWriter(self.stream, table.schema.with_metadata(meta))
        elif not table.schema.equals(self._writer.schema):
            raise ValueError("a later chunk has other columns than the first")
        self._writer.write_table(table)
        self.rows_written += len(rows)

    def close(self) -> None:
        """Finish the file (the stream stays open)."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None
