"""Signals and worker processes: a command that stops cleanly, workers that die with it.

Design notes: docs/design.md#core-signals
"""

from __future__ import annotations

import atexit
import gc
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

__all__ = [
    "Terminated",
    "clear_stop",
    "raise_if_stopped",
    "raise_stop",
    "request_stop",
    "stop_requested",
    "die_with_parent",
    "exit_now",
    "exit_on_signal",
    "end_startup",
    "exit_with",
    "guard_startup",
    "is_command",
    "signal_word",
    "signals_deferred",
    "stop_processes",
]

#: The signals that stop a run: Ctrl-C, and what CI cancellation and ``timeout`` send.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)

_STATE: dict[str, bool | None] = {"command": None}


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived (the command line exits with status 143)."""


#: The first stop signal the command line received in this run (0: none).
_STOP = {"signum": 0}


def request_stop(signum: int) -> None:
    """Remember that the run must stop (the command line's handlers call this)."""
    _STOP["signum"] = _STOP["signum"] or int(signum)


def stop_requested() -> int:
    """The signal that asked the run to stop, or 0."""
    return _STOP["signum"]


def clear_stop() -> None:
    """Forget an earlier stop (each command line run starts clean)."""
    _STOP["signum"] = 0


def raise_stop(signum: int) -> None:
    """Raise the exception of a stop by ``signum``: ``Terminated`` for SIGTERM, else
    ``KeyboardInterrupt``."""
    raise Terminated() if signum == signal.SIGTERM else KeyboardInterrupt


def raise_if_stopped() -> None:
    """Raise as :func:`raise_stop` if a stop was requested.

    The long waits of the batch engine call it, so a stop whose exception Python
    dropped (a signal handler's exception raised inside a finaliser or an at-fork
    callback is printed and ignored) still ends the run within a fraction of a second.
    """
    if _STOP["signum"]:
        raise_stop(_STOP["signum"])


def signal_word(signum: int) -> str:
    """How a stop by ``signum`` is reported: "interrupted" (SIGINT) or "terminated"."""
    return "terminated" if signum == signal.SIGTERM else "interrupted"


def is_command() -> bool:
    """Whether this process is the ``f1posterior`` command (the console script, or
    ``python -m f1posterior``), decided once, at the package's import."""
    if _STATE["command"] is None:
        argv0 = os.path.basename(sys.argv[0]).lower() if sys.argv else ""
        orig = list(getattr(sys, "orig_argv", []))
        by_m = "-m" in orig and orig[orig.index("-m") + 1 : orig.index("-m") + 2] == ["f1posterior"]
        script = argv0 in ("f1posterior", "f1posterior.exe", "f1posterior-script.py")
        _STATE["command"] = script or (by_m and argv0 in ("-m", "__main__.py"))
    return bool(_STATE["command"])


def exit_now(status: int) -> None:
    """Flush standard output and error, then end the process with ``status`` at once."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except Exception:  # noqa: BLE001, S110 - closed, or in use by the interrupted code
            pass
    os._exit(status)


def exit_on_signal(signum: int, frame: Any) -> None:
    """Signal handler of the command outside :func:`f1posterior.cli.main`: one line on
    stderr, then exit with 128 + ``signum`` at once (no output file is open then)."""
    try:
        os.write(2, f"f1posterior: {signal_word(signum)}\n".encode())
    finally:
        exit_now(128 + signum)


def install(handler: Any) -> dict[int, Any]:
    """Set ``handler`` for SIGINT and SIGTERM where they are not ignored; the previous
    handlers (empty off the main thread, where handlers cannot be set)."""
    previous: dict[int, Any] = {}
    if threading.current_thread() is not threading.main_thread():
        return previous
    for sig in STOP_SIGNALS:
        old = signal.getsignal(sig)
        if old is not signal.SIG_IGN:  # e.g. `nohup` or a background job: keep ignoring
            previous[sig] = signal.signal(sig, handler)
    return previous


def restore(previous: dict[int, Any]) -> None:
    """Put back the handlers that :func:`install` returned."""
    for sig, old in previous.items():
        signal.signal(sig, signal.SIG_DFL if old is None else old)


def guard_startup() -> None:
    """In the command only: exit quietly on SIGINT/SIGTERM until ``main`` takes over, and
    hold the cyclic garbage collector back until then (:func:`end_startup`): start-up makes
    modules, classes and functions that live as long as the process, and the collector's
    passes over them would find nothing to free."""
    if is_command():
        install(exit_on_signal)
        gc.disable()
        if _no_exit_handlers():  # none that would run after ours (a coverage tool's, ...)
            atexit.register(_end_without_teardown)  # first registered: the last to run


def end_startup() -> None:
    """The command's start-up is over: what it made is set aside for good (``gc.freeze``,
    never traced again) and the collector runs as usual from here."""
    if is_command():
        gc.freeze()
        gc.enable()


def _no_exit_handlers() -> bool:
    """Whether no exit handler is registered yet (CPython counts them; elsewhere: unknown,
    so no)."""
    count = getattr(atexit, "_ncallbacks", None)
    return count is not None and count() == 0


#: The exit status ``main`` returned in the command (None: it did not return one).
_EXIT: dict[str, int | None] = {"status": None}


def exit_with(status: int) -> None:
    """In the command, ``main`` returned ``status``: the process may end with it as soon as
    the interpreter has run its exit handlers (:func:`_end_without_teardown`)."""
    if is_command():
        _EXIT["status"] = int(status)


def _end_without_teardown() -> None:
    """The command's last exit handler (registered first, so run last): other threads have
    been joined and every other exit handler has run; when ``main`` returned a status,
    standard output and error are flushed and the process ends with it, without the
    interpreter's teardown, which would only free memory the process gives back anyway.
    If a flush fails, the interpreter's own exit reports it, as without this handler."""
    status = _EXIT["status"]
    if status is None:
        return
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except Exception:  # noqa: BLE001 - a closed pipe: Python's exit says so (status 120)
        return
    os._exit(status)


@contextmanager
def signals_deferred() -> Iterator[None]:
    """Hold SIGINT and SIGTERM back for the duration of the block (main thread only);
    the ones that arrived are handed to the previous handlers at its end."""
    pending: list[int] = []
    previous = install(lambda signum, frame: pending.append(signum))
    try:
        yield
    finally:
        restore(previous)
        for signum in dict.fromkeys(pending):
            handler = previous.get(signum)
            if callable(handler):
                handler(signum, None)
            elif handler is signal.SIG_DFL:
                signal.raise_signal(signum)


# ------------------------------------------------------------------------- workers
#: prctl(2) option: the signal a process gets when its parent dies.
_PR_SET_PDEATHSIG = 1


def _parent_death_signal(sig: int) -> bool:
    """Ask Linux to send ``sig`` to this process when its parent dies; False elsewhere."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent: int, interval: float) -> None:
    """A daemon thread that ends this process once its parent is no longer ``parent``."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(interval)
        os._exit(1)

    threading.Thread(target=watch, name="f1posterior-parent-watch", daemon=True).start()


def die_with_parent(parent: int, use_prctl: bool = True, interval: float = 0.5) -> None:
    """Initializer of a worker process forked by ``parent`` (a process id).

    The worker ignores SIGINT (a terminal's Ctrl-C reaches the whole process
    group; the parent stops its workers itself), takes SIGTERM's default action
    (it dies), and dies when the parent does: through Linux's parent-death
    signal (SIGKILL), or elsewhere (or with ``use_prctl=False``) a thread that
    checks the parent every ``interval`` seconds. A parent that died before
    this ran is noticed at once.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if not (use_prctl and _parent_death_signal(signal.SIGKILL)):
        _watch_parent(parent, interval)
    if os.getppid() != parent:  # the parent died before the death signal was set
        os._exit(1)


def stop_processes(procs: Sequence[Any], timeout: float = 2.0) -> None:
    """Kill worker processes (``multiprocessing.Process``) and reap them, at once.

    Runs under :func:`signals_deferred`, so a repeated Ctrl-C cannot leave a
    worker behind.
    """
    with signals_deferred():
        for p in procs:
            try:
                p.kill()
            except (OSError, ValueError, AttributeError):
                pass
        end = time.monotonic() + timeout
        for p in procs:
            try:
                p.join(max(0.0, end - time.monotonic()))
            except (OSError, ValueError, AssertionError):
                pass
