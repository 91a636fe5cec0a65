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
