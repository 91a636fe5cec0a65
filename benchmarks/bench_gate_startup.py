"""Whole-process time of ``f1posterior gate`` on a 3 x 3 matrix against ``import numpy``.

The gate (``f1posterior gate m.json --metric micro_f1 --min 0.5``: default prior, 50,000
draws) and ``python -c "import numpy"`` run in turn, A B A B ..., after one warm-up each,
from compiled bytecode (``compileall`` first); each run's wall time and CPU time (user +
system, the kernel's accounting of the finished child, ``os.wait4``) are recorded, and the
ratios A/B pair by pair, so that a drift of the machine's speed cancels. Quoted: medians.
The same again with one BLAS thread on both sides (``OPENBLAS_NUM_THREADS=1`` and its
kin): NumPy's BLAS starts a worker thread per core at import, which spins for a while,
so each process's CPU time grows with how long it lives beyond its own work; with one
thread the ratio is that of the work alone. Then the modules one gate run loads (its
f1posterior modules; heavy ones it must not load).

Run with the interpreter whose install is measured (editable, or a wheel in a venv)::

    python benchmarks/bench_gate_startup.py [--runs 9] [--script PATH] [--label NAME]
 ->  benchmarks/results/bench_gate_startup.json (one entry per label)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import machine

MATRIX = "[[50, 3, 2], [4, 40, 6], [1, 5, 39]]"
GATE = ["gate", "m.json", "--metric", "micro_f1", "--min", "0.5"]
NOT_LOADED = ("multiprocessing", "concurrent.futures.process", "zipfile", "shutil",
              "statistics", "fractions", "decimal", "scipy", "matplotlib", "pandas")  # fmt: skip
#: The environment of one BLAS thread (OpenBLAS, MKL, OpenMP, Accelerate).
ONE_BLAS_THREAD = {k: "1" for k in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                                    "OMP_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")}  # fmt: skip
RESULTS = Path(__file__).resolve().parent / "results" / "bench_gate_startup.json"


def _run(cmd: list[str], cwd: str, env: dict[str, str] | None = None) -> tuple[float, float, int]:
    """(wall s, CPU s, exit status) of one whole process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=None if env is None else {**os.environ, **env})  # fmt: skip
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime + usage.ru_stime, proc.returncode


def compare(
    a: list[str], b: list[str], runs: int, cwd: str, env: dict[str, str] | None = None
) -> dict[str, object]:
    """A and B in turn after a warm-up each: medians and pairwise ratios A/B."""
    _run(a, cwd, env), _run(b, cwd, env)
    rows = [(_run(a, cwd, env), _run(b, cwd, env)) for _ in range(runs)]
    med = statistics.median
    return {
        "runs": runs,
        "a_wall_s": med(ra[0] for ra, _ in rows),
        "a_cpu_s": med(ra[1] for ra, _ in rows),
        "b_wall_s": med(rb[0] for _, rb in rows),
        "b_cpu_s": med(rb[1] for _, rb in rows),
        "ratio_wall": med(ra[0] / rb[0] for ra, rb in rows),
        "ratio_cpu": med(ra[1] / rb[1] for ra, rb in rows),
        "ratio_wall_range": [
            min(ra[0] / rb[0] for ra, rb in rows),
            max(ra[0] / rb[0] for ra, rb in rows),
        ],  # fmt: skip
        "exit": sorted({ra[2] for ra, _ in rows} | {rb[2] for _, rb in rows}),
    }


def loaded(py: str, cwd: str) -> dict[str, object]:
    """The modules one gate run loads, in a fresh interpreter."""
    code = (
        "import contextlib, io, json, sys\nfrom f1posterior.cli import main\n"
        f"with contextlib.redirect_stdout(io.StringIO()):\n    main({GATE!r})\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    mods = json.loads(subprocess.run([py, "-c", code], cwd=cwd, capture_output=True,
                                     text=True, check=True).stdout)  # fmt: skip
    return {
        "f1posterior_modules": sum(m.startswith("f1posterior") for m in mods),
        "all_modules": len(mods),
        "heavy_loaded": [m for m in NOT_LOADED if m in mods],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--script", help="the f1posterior console script (default: beside python)")
    ap.add_argument("--label", default="editable install")
    a = ap.parse_args()
    py = sys.executable
    script = a.script or shutil.which("f1posterior", path=str(Path(py).parent))
    if script is None:
        raise SystemExit("no f1posterior console script beside this python; give --script")
    import f1posterior

    subprocess.run([py, "-m", "compileall", "-q", str(Path(f1posterior.__file__).parent)],
                   check=True, stdout=subprocess.DEVNULL)  # fmt: skip
    load_before = list(os.getloadavg())
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "m.json").write_text(MATRIX)
        result = compare([script, *GATE], [py, "-c", "import numpy"], a.runs, tmp)
        one = compare([script, *GATE], [py, "-c", "import numpy"], a.runs, tmp, ONE_BLAS_THREAD)
        result["one_blas_thread"] = one
        result.update(loaded(py, tmp))
    result["machine"] = machine()
    result["load_average_before"] = load_before
    print(f"{a.label}: gate {result['a_wall_s']:.3f} s wall, {result['a_cpu_s']:.3f} s CPU; "
          f"import numpy {result['b_wall_s']:.3f} s, {result['b_cpu_s']:.3f} s; ratio (median "
          f"of {a.runs} pairs) wall {result['ratio_wall']:.2f}, CPU {result['ratio_cpu']:.2f}; "
          f"one BLAS thread: gate {one['a_cpu_s']:.3f} s CPU, numpy {one['b_cpu_s']:.3f} s, "
          f"ratio wall {one['ratio_wall']:.2f}, CPU {one['ratio_cpu']:.2f}; "
          f"{result['f1posterior_modules']} f1posterior modules, heavy: "
          f"{result['heavy_loaded'] or 'none'}")  # fmt: skip
    old = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    old = old if "wall_time" not in old else {}  # an earlier format
    old[a.label] = result
    RESULTS.write_text(json.dumps(old, indent=2) + "\n")


if __name__ == "__main__":
    main()
