"""Whole-process wall time of ``f1posterior gate`` on a small matrix, and where it goes.

Times, over several repetitions (median and min), in fresh processes:

- ``python -c "import numpy"``: the floor (interpreter + NumPy);
- ``python -c "import f1posterior.cli"``: the package and its command line;
- ``python -m f1posterior gate m.json --metric micro_f1 --min 0.5`` (default prior,
  50,000 draws) and the same through the ``f1posterior`` console script;
- the same gate with ``--prior aligned`` (exact; imports scipy).

Then ``python -X importtime -c "import f1posterior.cli"``: the modules with the
largest cumulative import times, and whether scipy or matplotlib are imported.

Run: python benchmarks/bench_gate_startup.py [--repeat 7]
 ->  benchmarks/results/bench_gate_startup.json
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
HEAVY = ("scipy", "matplotlib", "pandas", "dask", "arviz", "pyarrow", "sklearn")


def _time(cmd: list[str], repeat: int, cwd: str) -> dict[str, float | int]:
    times = []
    status = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True)
        times.append(time.perf_counter() - t0)
        status = proc.returncode
    return {"median_s": statistics.median(times), "min_s": min(times), "exit": int(status or 0)}


def importtime(target: str, cwd: str, top: int = 10) -> dict[str, object]:
    """``-X importtime`` of ``import target``: the slowest modules by self time, the
    f1posterior modules by cumulative time (ms), and the heavy modules imported."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {target}"],
        cwd=cwd,
        capture_output=True,
        text=True,
    )
    rows = []  # (module, self ms, cumulative ms)
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        own, cum, name = line[len("import time:") :].split("|")
        rows.append((name.strip(), int(own) / 1000.0, int(cum) / 1000.0))
    return {
        "by_self_ms": [(n, o) for n, o, _ in sorted(rows, key=lambda r: -r[1])[:top]],
        "f1posterior_cumulative_ms": [
            (n, c) for n, _, c in sorted(rows, key=lambda r: -r[2]) if n.startswith("f1posterior")
        ][:top],
        "numpy_cumulative_ms": max((c for n, _, c in rows if n == "numpy"), default=0.0),
        "total_ms": sum(o for _, o, _ in rows),
        "heavy_imported": sorted(m for m in HEAVY if any(n == m for n, _, _ in rows)),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=7)
    a = ap.parse_args()
    py = sys.executable
    script = shutil.which("f1posterior")
    gate = ["gate", "m.json", "--metric", "micro_f1", "--min", "0.5"]
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "m.json").write_text(MATRIX)
        cases = {
            "python -c 'import numpy' (floor)": [py, "-c", "import numpy"],
            "python -c 'import f1posterior.cli'": [py, "-c", "import f1posterior.cli"],
            "python -m f1posterior gate (default prior)": [py, "-m", "f1posterior", *gate],
            "python -m f1posterior gate --prior aligned (exact, scipy)": [
                py,
                "-m",
                "f1posterior",
                *gate,
                "--prior",
                "aligned",
            ],
        }
        if script:
            cases["f1posterior gate (console script)"] = [script, *gate]
        rows = {}
        for name, cmd in cases.items():
            rows[name] = _time(cmd, a.repeat, tmp)
        top = importtime("f1posterior.cli", tmp)
    width = max(map(len, rows))
    print(f"\n{'command':<{width}}  median s  min s  exit")
    for name, r in rows.items():
        print(f"{name:<{width}}  {r['median_s']:8.3f}  {r['min_s']:5.3f}  {r['exit']:4d}")
    print(
        f"\npython -X importtime -c 'import f1posterior.cli': {top['total_ms']:.0f} ms in all, "
        f"numpy {top['numpy_cumulative_ms']:.0f} ms; heavy modules imported: "
        f"{top['heavy_imported'] or 'none'}"
    )
    print("slowest modules (self ms):")
    for name, ms in top["by_self_ms"]:  # type: ignore[attr-defined]
        print(f"  {name:<45} {ms:7.1f}")
    print("f1posterior modules (cumulative ms):")
    for name, ms in top["f1posterior_cumulative_ms"]:  # type: ignore[attr-defined]
        print(f"  {name:<45} {ms:7.1f}")
    out = {
        "repeat": a.repeat,
        "matrix": MATRIX,
        "wall_time": rows,
        "importtime_ms": top,
        "machine": machine(),
        "cwd_env": {"PYTHONPATH": os.environ.get("PYTHONPATH", "")},
    }
    path = Path(__file__).parent / "results" / "bench_gate_startup.json"
    path.write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
