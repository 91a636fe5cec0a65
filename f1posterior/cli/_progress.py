"""A progress line on stderr for long batch runs (only when stderr is a terminal)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

__all__ = ["terminal_progress"]


def terminal_progress(
    stream: TextIO | None = None,
    *,
    interval: float = 0.2,
    clock: Callable[[], float] = time.monotonic,
) -> Callable[[int, int], None] | None:
    """A ``progress(done, total)`` callback for :func:`f1posterior.evaluate`, or None.

    Returns None when ``stream`` (default ``sys.stderr``) is not a terminal, so
    piped and redirected output stays clean. The line is redrawn in place at
    most every ``interval`` seconds, only for batches of more than one matrix,
    and ends with a newline when the batch is done.
    """
    out = sys.stderr if stream is None else stream
    if not (hasattr(out, "isatty") and out.isatty()):
        return None
    last = [-float("inf")]

    def report(done: int, total: int) -> None:
        if total <= 1:
            return
        now = clock()
        if done < total and now - last[0] < interval:
            return
        last[0] = now
        end = "\n" if done >= total else ""
        out.write(f"\r  {done:,} / {total:,} matrices ({100 * done / total:.0f}%){end}")
        out.flush()

    return report


def progress_reporter(
    flag: bool | None,
    stream: TextIO | None = None,
    *,
    plain_interval: float = 10.0,
    clock: Callable[[], float] = time.monotonic,
) -> Callable[[int, int], None] | None:
    """A ``progress(done, total)`` callback with rate and ETA, or None.

    ``flag=None`` (the default of ``--progress/--no-progress``) shows a line
    redrawn in place only when ``stream`` (default ``sys.stderr``) is a
    terminal; ``False`` shows nothing; ``True`` on a stream that is not a
    terminal (a CI log) prints one plain line every ``plain_interval``
    seconds and one at the end. Call it with ``total = 0`` while the size is
    unknown (no ETA), and once with ``done == total`` at the end.
    """
    out = sys.stderr if stream is None else stream
    tty = hasattr(out, "isatty") and out.isatty()
    if flag is False or (flag is None and not tty):
        return None
    start = clock()
    last = [-float("inf")]
    interval = 0.2 if tty else plain_interval
    ended = [False]

    def report(done: int, total_now: int) -> None:
        # total_now = 0 while the size is unknown; a call with done >= total_now > 0 ends
        now = clock()
        total = total_now or None
        finished = total is not None and done >= total
        if ended[0] or (not finished and now - last[0] < interval):
            return
        ended[0] = finished
        last[0] = now
        elapsed = max(now - start, 1e-9)
        rate = done / elapsed
        line = f"{done:,}"
        if total is not None:
            line += f" / {total:,} matrices ({100 * done / max(total, 1):.0f}%)"
        else:
            line += " matrices"
        line += f", {rate:,.0f}/s"
        if total is not None and not finished and rate > 0:
            line += f", ETA {_clock((total - done) / rate)}"
        else:
            line += f", {_clock(elapsed)} elapsed"
        if tty:
            out.write(f"\r  {line}   " + ("\n" if finished else ""))
        else:
            out.write(f"f1posterior: progress: {line}\n")
        out.flush()

    return report


def _clock(seconds: float) -> str:
    s = int(round(seconds))
    return (
        f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"
    )
