"""Helpers shared by the benchmark scripts: timing and a record of the machine."""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import f1posterior


def best_of(fn: Callable[[], Any], repeat: int = 3) -> float:
    """Smallest wall time of ``repeat`` calls of ``fn`` (seconds)."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def interleaved(fns: dict[str, Callable[[], Any]], repeat: int) -> dict[str, float]:
    """Best wall time of each function over ``repeat`` rounds, the functions alternating
    within each round (so a change in the machine's load hits them all alike)."""
    best = dict.fromkeys(fns, float("inf"))
    for _ in range(repeat):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - t0)
    return best


def cpu_model() -> str:
    """The processor's model name from /proc/cpuinfo (Linux), else "unknown"."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def machine() -> dict[str, Any]:
    """What the figures were measured on (the load average says how busy it was)."""
    try:
        import psutil

        memory: int | None = psutil.virtual_memory().total
    except ImportError:
        memory = None
    return {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "f1posterior": f1posterior.__version__,
        "cpu": platform.processor() or platform.machine(),
        "cpu_model": cpu_model(),
        "cores": os.cpu_count(),
        "memory_bytes": memory,
        "platform": platform.platform(),
        "load_average": os.getloadavg(),
    }
