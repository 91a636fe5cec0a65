"""Stopping cleanly: real signals sent to real ``f1posterior`` processes and their workers.

SIGINT (once, or twice 50 ms apart to the whole process group as a terminal's Ctrl-C
does) and SIGTERM stop a batch that runs on forked worker processes within seconds,
with one line on stderr, exit status 130 / 143, no temporary output file and no worker
left; a worker whose parent is killed (SIGKILL) exits by itself; a signal while the
command starts gives no traceback and never exit status 1. Children are found in
``/proc`` (Linux only). Waits poll for a condition (the workers exist, the handlers are
installed), never a fixed sleep before a signal.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads /proc to find worker processes"
)

COMMAND = [sys.executable, "-m", "f1posterior"]


def _children(pid: int) -> list[int]:
    out = []
    for f in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            out += [int(x) for x in f.read_text().split()]
        except OSError:
            pass
    return out


def _alive(pid: int) -> bool:
    """Running (a zombie, dead but not yet reaped by its new parent, counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def _wait(condition, timeout: float, what: str, proc=None) -> None:
    end = time.monotonic() + timeout
    while not condition():
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"the process ended before {what}: {proc.communicate()}")
        assert time.monotonic() < end, f"timed out waiting for {what}"
        time.sleep(0.02)


def _caught(pid: int) -> int:
    """The process's mask of caught signals (SigCgt in /proc/PID/status)."""
    text = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"^SigCgt:\s*([0-9a-f]+)$", text, re.M).group(1), 16)


@pytest.fixture
def batch_run(tmp_path):
    """Start ``summarize`` of a 20,000-matrix stack on two forked workers; wait for them."""
    stack = tmp_path / "stack.npy"
    np.save(stack, np.random.default_rng(0).integers(1, 50, size=(20_000, 2, 2)))
    started = []

    def start():
        out = tmp_path / "o.csv"
        args = ["summarize", str(stack), "--output", str(out), "--workers", "2"]
        proc = subprocess.Popen(
            [*COMMAND, *args, "--draws", "20000"],
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,  # its own process group, as a terminal's job
        )
        started.append((proc, []))
        _wait(lambda: len(_children(proc.pid)) >= 2, 60, "the workers", proc)
        started[-1][1].extend(_children(proc.pid))
        return proc, started[-1][1]

    yield start
    for proc, workers in started:  # never leave a process behind, whatever failed
        for pid in workers + _children(proc.pid):
            _kill(pid)
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


def _files(tmp_path: Path) -> list[str]:
    return sorted(p.name for p in tmp_path.iterdir())


def _stopped(proc, workers, tmp_path, status: int, word: str) -> None:
    t0 = time.monotonic()
    try:
        _, err = proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        raise AssertionError("the process did not stop") from None
    assert time.monotonic() - t0 < 10
    assert proc.returncode == status, err
    assert err == f"f1posterior summarize: {word}\n"
    _wait(lambda: not any(_alive(w) for w in workers), 5, "the workers to exit")
    assert _files(tmp_path) == ["stack.npy"]  # no o.csv, no .o.csv.*.part


def test_ctrl_c_twice_stops_the_workers_and_exits_130(batch_run, tmp_path):
    proc, workers = batch_run()
    os.killpg(proc.pid, signal.SIGINT)  # a terminal's Ctrl-C reaches the whole group
    time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)
    _stopped(proc, workers, tmp_path, 130, "interrupted")


def test_sigint_to_the_main_process_stops_the_workers(batch_run, tmp_path):
    proc, workers = batch_run()
    proc.send_signal(signal.SIGINT)
    _stopped(proc, workers, tmp_path, 130, "interrupted")


def test_sigterm_stops_the_workers_exits_143_and_removes_the_part_file(batch_run, tmp_path):
    proc, workers = batch_run()
    assert any(name.endswith(".part") for name in _files(tmp_path))  # the run is writing
    proc.send_signal(signal.SIGTERM)  # what CI cancellation and `timeout` send
    _stopped(proc, workers, tmp_path, 143, "terminated")


def test_workers_exit_when_their_parent_is_killed(batch_run):
    proc, workers = batch_run()
    proc.send_signal(signal.SIGKILL)  # nothing can run in the parent: the workers must go
    proc.communicate(timeout=20)
    _wait(lambda: not any(_alive(w) for w in workers), 5, "the orphaned workers to exit")


# --------------------------------------------------------------------- a worker's life
_WORKER = textwrap.dedent(
    """
    import os, sys, time
    from f1posterior._core.signals import die_with_parent
    parent = os.getpid()
    child = os.fork()
    if child == 0:
        die_with_parent({parent}, use_prctl={use_prctl}, interval=0.05)
        time.sleep(60)
        os._exit(0)
    print(child, flush=True)
    time.sleep(60)
    """
)


@pytest.mark.parametrize("use_prctl", [True, False], ids=["prctl", "polling-thread"])
def test_a_worker_dies_with_its_parent(use_prctl):
    """Both ways: Linux's parent-death signal, and the portable thread that polls getppid."""
    code = _WORKER.replace("{parent}", "parent").replace("{use_prctl}", str(use_prctl))
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    child = int(proc.stdout.readline())
    try:
        assert _alive(child)
        time.sleep(0.2)  # the worker is set up and asleep (a live control: it stays)
        assert _alive(child)
        proc.kill()
        proc.communicate(timeout=10)
        _wait(lambda: not _alive(child), 5, "the worker to exit")
    finally:
        _kill(child)


def test_a_worker_whose_parent_died_before_it_started_exits_at_once():
    code = textwrap.dedent(
        """
        import os
        from f1posterior._core.signals import die_with_parent
        pid = os.fork()
        if pid == 0:
            die_with_parent(os.getppid() + 10**6)  # not its parent: as if it had died
            os._exit(0)
        _, status = os.waitpid(pid, 0)
        print(os.waitstatus_to_exitcode(status))
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "1", done.stderr


# --------------------------------------------------------------------- start-up
def _gate_command(tmp_path, entry):
    m = tmp_path / "m.json"
    m.write_text(json.dumps([[50, 3, 2], [4, 40, 6], [1, 5, 39]]))
    args = ["gate", str(m), "--metric", "micro_f1", "--min", "0.5"]
    if entry == "script":
        script = Path(sys.executable).with_name("f1posterior")
        if not script.exists():
            pytest.skip(f"no console script beside {sys.executable}")
        return [str(script), *args]
    return [*COMMAND, *args]


@pytest.mark.parametrize("entry", ["script", "module"])
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_during_start_up_exits_quietly(tmp_path, entry, sig):
    """From the moment the package starts importing (its first statement installs the
    handlers: SIGTERM becomes caught) to the end: one line and 128 + signal, or, when the
    signal comes after the gate finished, the gate's own result (and exit 0, or death by
    the signal while Python tears down). Never 1, no traceback.
    (Before the package's first statement, the interpreter itself is starting: a signal
    then is Python's own business.)"""
    cmd = _gate_command(tmp_path, entry)
    word = "interrupted" if sig == signal.SIGINT else "terminated"
    outcomes = []
    for delay in (0.0, 0.0, 0.01, 0.03, 0.06, 0.1, 0.2, 0.4):
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            _wait(
                lambda p=proc: _caught(p.pid) & (1 << (signal.SIGTERM - 1)), 30, "the guard", proc
            )
        finally:
            if proc.poll() is None and not _caught(proc.pid) & (1 << (signal.SIGTERM - 1)):
                proc.kill()
                proc.communicate()
        time.sleep(delay)
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
        assert proc.returncode != 1 and "Traceback" not in err, (delay, proc.returncode, err)
        if proc.returncode in (0, -sig):
            # the gate had finished: its verdict, nothing else (killed by the signal while
            # the interpreter tears down, after main, is the default action: no message)
            assert "PASS" in out and err == "", (delay, proc.returncode, err)
        else:
            assert proc.returncode == 128 + sig, (delay, proc.returncode, err)
            assert re.fullmatch(rf"f1posterior( gate)?: {word}\n", err), (delay, err)
        outcomes.append(proc.returncode)
    assert outcomes[0] == 128 + sig  # at least the first was stopped, during the import


def test_summarize_of_a_fifo_npy_is_refused_at_once(tmp_path):
    fifo = tmp_path / "f.npy"
    os.mkfifo(fifo)
    try:
        done = subprocess.run(
            [*COMMAND, "summarize", str(fifo)], capture_output=True, text=True, timeout=30
        )
    except subprocess.TimeoutExpired:
        raise AssertionError("summarize opened the FIFO and blocked") from None
    assert done.returncode == 2
    assert (
        done.stderr
        == f"f1posterior summarize: error: {fifo}: a FIFO; only regular files are read\n"
    )
