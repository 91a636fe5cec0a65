"""Streaming writers: one row per matrix (or per matrix, metric and class), chunk by chunk.

Columns, run metadata, formats and escaping are described in the design notes.

Design notes: docs/design.md#io-writers
"""

from __future__ import annotations

import io
import json
import os
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import numpy as np

from .._core.text import escape_csv, escape_markdown, escape_text
from ._rowmeta import META_PREFIX, HashQuoting, run_metadata
from ._sources import file_kind

if TYPE_CHECKING:  # pragma: no cover
    from ..posterior import Evaluation

__all__ = [
    "STATS",
    "FLAG",
    "ROW_FORMATS",
    "RowWriter",
    "ParquetRowWriter",
    "append_output",
    "atomic_output",
    "output_target",
    "run_metadata",
    "write_output",
]

#: Statistics written for every metric, in column order.
STATS = ("score", "mean", "std", "mc_error", "hdi_low", "hdi_high")
#: The per-row flag written after each metric's statistics.
FLAG = "prior_dominated"
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


def _float(v: float) -> str:
    return repr(float(v))


def _flag_value(v: float) -> bool | None:
    """A flag cell: 1.0/0.0 -> True/False, NaN (not checked) -> None."""
    return None if np.isnan(v) else bool(v)


class RowWriter:
    """Write the rows of evaluated chunks to a text stream.

    Parameters
    ----------
    stream : text file
        Where to write.
    fmt : {"csv", "tsv", "ndjson", "json", "markdown", "table"}
        Output format.
    long : bool, default False
        One row per matrix, metric and class instead of one per matrix.
    meta : dict, optional
        Settings added to the metadata (the source, ...): the metadata is
        :func:`run_metadata` of the first chunk with ``meta`` added, written
        as the CSV/TSV comment line, the NDJSON first line and the JSON
        header.

    Examples
    --------
    >>> import io
    >>> from f1posterior import evaluate
    >>> out = io.StringIO()
    >>> ev = evaluate([[[8, 2], [1, 9]], [[5, 5], [4, 6]]], metrics="micro_f1", draws=1000, rng=0)
    >>> w = RowWriter(out, "csv")
    >>> w.write(ev, ["a", "b"])
    >>> w.close()
    >>> out.getvalue().splitlines()[0][:40]
    '# f1posterior: {"version": "0.2.0", "pri'
    >>> out.getvalue().splitlines()[1].split(",")[1:]  # doctest: +NORMALIZE_WHITESPACE
    ['micro_f1_score', 'micro_f1_mean', 'micro_f1_std', 'micro_f1_mc_error', 'micro_f1_hdi_low',
     'micro_f1_hdi_high', 'micro_f1_prior_dominated']
    """

    def __init__(
        self, stream: TextIO, fmt: str, *, long: bool = False, meta: dict[str, Any] | None = None
    ) -> None:
        if fmt not in ROW_FORMATS:
            raise ValueError(f"fmt must be one of {', '.join(ROW_FORMATS)}; got {fmt!r}")
        self.stream = stream
        self.fmt = fmt
        self.long = long
        self.meta = dict(meta or {})
        self.columns: list[str] | None = None
        self._flags: list[int] = []
        self.rows_written = 0
        self._csv: Any = None
        self._widths: list[int] = []

    # -- building rows ----------------------------------------------------------------

    def _stats(self, ev: Evaluation) -> tuple[str, ...]:
        chance = ("chance", "p_above_chance") if getattr(ev, "chance", False) else ()
        return STATS + (("p_below", "p_above") if ev.ref is not None else ()) + chance + (FLAG,)

    @staticmethod
    def _stat_values(s: Any, stats: tuple[str, ...]) -> list[np.ndarray]:
        hdi = np.asarray(s.hdi, dtype=float)
        flag = s.prior_dominated
        flag = np.full(np.shape(s.score), np.nan) if flag is None else np.asarray(flag, float)
        pick = {
            "score": s.score,
            "mean": s.mean,
            "std": s.std,
            "mc_error": s.mc_error,
            "hdi_low": hdi[..., 0],
            "hdi_high": hdi[..., 1],
            "p_below": s.p_below,
            "p_above": s.p_above,
            "chance": s.chance,
            "p_above_chance": s.p_above_chance,
            FLAG: flag,
        }
        return [np.asarray(pick[k], dtype=float) for k in stats]

    def _wide(self, ev: Evaluation, b: int) -> tuple[list[str], np.ndarray]:
        stats = self._stats(ev)
        cols: list[str] = []
        blocks: list[np.ndarray] = []
        for metric, s in ev.items():
            values = self._stat_values(s, stats)
            if values[0].ndim == 1:  # (b,)
                cols += [f"{metric}_{k}" for k in stats]
                blocks += [v.reshape(b, 1) for v in values]
            else:  # (b, K): columns metric_label_stat
                k = values[0].shape[-1]
                labels = (
                    ev.labels if ev.labels and len(ev.labels) == k else [str(i) for i in range(k)]
                )
                for c in range(k):
                    cols += [f"{metric}_{labels[c]}_{st}" for st in stats]
                    blocks += [v[:, c : c + 1] for v in values]
        return cols, np.hstack(blocks) if blocks else np.empty((b, 0))

    def _long(self, ev: Evaluation, names: list[str]) -> Iterator[tuple[str, str, str, np.ndarray]]:
        stats = self._stats(ev)
        per_metric = []
        for metric, s in ev.items():
            values = np.stack(self._stat_values(s, stats), axis=-1)  # (b, S) or (b, K, S)
            per_metric.append((metric, values))
        for i, name in enumerate(names):
            for metric, values in per_metric:
                if values.ndim == 2:
                    yield name, metric, "", values[i]
                else:
                    k = values.shape[1]
                    labels = (
                        ev.labels if ev.labels and len(ev.labels) == k else list(map(str, range(k)))
                    )
                    for c in range(k):
                        yield name, metric, labels[c], values[i, c]

    # -- writing ----------------------------------------------------------------------

    def write(self, ev: Evaluation, names: list[str]) -> None:
        """Write the rows of one evaluated chunk (``ev`` of batch shape ``(len(names),)``)."""
        b = len(names)
        if tuple(ev.batch_shape) != (b,):
            raise ValueError(
                f"names must give one name per matrix of the batch {tuple(ev.batch_shape)}; "
                f"got {b} names"
            )
        if self.columns is None:
            self.meta = run_metadata(ev, self.meta)
        if self.long:
            stats = self._stats(ev)
            header = ["name", "metric", "class", *stats]
            records = ([n, m, c, *v] for n, m, c, v in self._long(ev, names))
            self._emit(header, records)
        else:
            cols, values = self._wide(ev, b)
            header = ["name", *cols]
            self._emit(header, ([n, *row] for n, row in zip(names, values, strict=True)))

    def _emit(self, header: list[str], records: Any) -> None:
        if self.columns is None:
            self.columns = header
            self._flags = [i for i, h in enumerate(header) if h == FLAG or h.endswith("_" + FLAG)]
            self._start(header)
        elif header != self.columns:
            raise ValueError(
                f"a later chunk has columns {header[:4]}...; the first had {self.columns[:4]}..."
            )
        getattr(self, f"_rows_{self.fmt}")(map(self._with_flags, records))

    def _with_flags(self, record: list[Any]) -> list[Any]:
        """``record`` with its flag cells as True, False or None (not checked)."""
        for i in self._flags:
            record[i] = _flag_value(record[i])
        return record

    def _start(self, header: list[str]) -> None:
        fh = self.stream
        if self.fmt in ("csv", "tsv"):
            fh.write(META_PREFIX + json.dumps(self.meta) + "\n")
            self._csv = HashQuoting(fh, "," if self.fmt == "csv" else "\t")
            self._csv.writerow([escape_csv(h) for h in header])
        elif self.fmt == "ndjson":
            fh.write(json.dumps({"meta": self.meta}) + "\n")
        elif self.fmt == "json":
            head = json.dumps(self.meta, indent=None)[:-1]
            fh.write(head + (", " if self.meta else "") + '"rows": [')
        elif self.fmt == "markdown":
            fh.write("| " + " | ".join(escape_markdown(h) for h in header) + " |\n")
            fh.write("|" + "---|" * len(header) + "\n")
        elif self.fmt == "table":
            n_text = 3 if self.long else 1
            self._widths = [
                24 if i == 0 else 10 if i < n_text else max(10, len(h))
                for i, h in enumerate(header)
            ]
            fh.write(self._table_line(header))

    def _table_line(self, cells: list[str]) -> str:
        n_text = 3 if self.long else 1
        out = [
            f"{c:<{w}}" if i < n_text else f"{c:>{w}}"
            for i, (c, w) in enumerate(zip(cells, self._widths, strict=True))
        ]
        return "  ".join(out).rstrip() + "\n"

    @staticmethod
    def _text(v: Any) -> str:
        if isinstance(v, str):
            return v
        if v is None or isinstance(v, bool):
            return "" if v is None else str(v).lower()
        return "nan" if np.isnan(v) else _float(v)

    def _rows_csv(self, records: Any) -> None:
        n_text = 3 if self.long else 1
        out = []
        for r in records:
            out.append([escape_csv(x) for x in r[:n_text]] + [self._text(v) for v in r[n_text:]])
        self._csv.writerows(out)
        self.rows_written += len(out)

    _rows_tsv = _rows_csv

    def _json_rows(self, records: Any) -> Iterator[str]:
        assert self.columns is not None
        cols = self.columns
        n_text = 3 if self.long else 1
        for r in records:
            obj = dict(zip(cols[:n_text], r[:n_text], strict=True))
            for c, v in zip(cols[n_text:], r[n_text:], strict=True):
                obj[c] = (
                    v if v is None or isinstance(v, bool) else None if np.isnan(v) else float(v)
                )
            yield json.dumps(obj, allow_nan=False)

    def _rows_ndjson(self, records: Any) -> None:
        lines = list(self._json_rows(records))
        if lines:
            self.stream.write("\n".join(lines) + "\n")
        self.rows_written += len(lines)

    def _rows_json(self, records: Any) -> None:
        for line in self._json_rows(records):
            self.stream.write(("\n  " if self.rows_written == 0 else ",\n  ") + line)
            self.rows_written += 1

    def _human(self, records: Any) -> Iterator[list[str]]:
        n_text = 3 if self.long else 1
        esc = escape_markdown if self.fmt == "markdown" else escape_text
        for r in records:
            cells = [esc(x) for x in r[:n_text]]
            cells += [
                self._text(v) if v is None or isinstance(v, bool) else
                "nan" if np.isnan(v) else f"{v:.4f}"
                for v in r[n_text:]
            ]  # fmt: skip
            yield cells

    def _rows_markdown(self, records: Any) -> None:
        for cells in self._human(records):
            self.stream.write("| " + " | ".join(cells) + " |\n")
            self.rows_written += 1

    def _rows_table(self, records: Any) -> None:
        for cells in self._human(records):
            self.stream.write(self._table_line(cells))
            self.rows_written += 1

    def close(self) -> None:
        """Finish the output (closes the ``json`` document); the stream stays open."""
        if self.fmt == "json":
            if self.columns is None:
                head = json.dumps(self.meta)[:-1]
                self.stream.write(head + (", " if self.meta else "") + '"rows": [')
            self.stream.write("\n]}\n" if self.rows_written else "]}\n")
        self.stream.flush()


class ParquetRowWriter:
    """Write the wide rows of evaluated chunks to a Parquet file (needs pyarrow).

    The columns are :class:`RowWriter`'s wide columns (``name``, then
    ``{metric}_{stat}`` and ``{metric}_{label}_{stat}`` as float64, the
    ``*_prior_dominated`` flags as nullable booleans); one row group per
    chunk. The metadata (:func:`run_metadata` with ``meta`` added) is the
    JSON value of the schema metadata key ``f1posterior``.

    Parameters
    ----------
    stream : binary file
        Where to write (e.g. from :func:`atomic_output` with ``binary=True``).
    meta : dict, optional
        Settings added to the metadata (the source, ...).
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
        self._layout = RowWriter(io.StringIO(), "csv")
        self._writer: Any = None
        self.rows_written = 0
        self.meta = dict(meta or {})

    def write(self, ev: Evaluation, names: list[str]) -> None:
        """Write the rows of one evaluated chunk."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        columns, values = self._layout._wide(ev, len(names))
        arrays = [pa.array(names, pa.string())]
        for j, col in enumerate(columns):
            if col.endswith("_" + FLAG):
                v = values[:, j]
                arrays.append(pa.array(v == 1, pa.bool_(), mask=np.isnan(v)))
            else:
                arrays.append(pa.array(values[:, j], pa.float64()))
        table = pa.Table.from_arrays(arrays, names=["name", *columns])
        if self._writer is None:
            self.meta = run_metadata(ev, self.meta)
            meta = {b"f1posterior": json.dumps(self.meta).encode()}
            self._writer = pq.ParquetWriter(self.stream, table.schema.with_metadata(meta))
        elif not table.schema.equals(self._writer.schema):
            raise ValueError("a later chunk has other columns than the first")
        self._writer.write_table(table)
        self.rows_written += len(names)

    def close(self) -> None:
        """Finish the file (the stream stays open)."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None
