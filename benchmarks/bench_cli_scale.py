"""The command line at scale: 10^4, 10^5, 10^6 matrices from files to CSV.

For each size and input format (JSON lines, an ``.npy`` stack) this runs
``f1posterior summarize FILE --format csv --output OUT --draws 1000`` in a
fresh process and records its wall time and peak resident memory (RSS of the
child, from ``getrusage``), then times ``evaluate`` on the same stack already
in memory (same draws, metrics, seed and workers) in another fresh process,
and reports the ratio CLI / API. The issue's targets: peak RSS under 512 MiB
for 10^6 4 x 4 matrices, and a ratio of at most 1.3.

Run: ``python benchmarks/bench_cli_scale.py [--sizes 10000 100000 1000000] [--quick]``.
Results go to ``benchmarks/results/cli_scale.json`` and ``.md``. With ``--rounds R`` the
API and CLI runs are interleaved R times and the best time of each is kept (the
ratio is then robust to other work on the machine); peak RSS is the largest seen.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _common import machine

HERE = Path(__file__).parent
M = 4
DRAWS = 1000
SEED = 7

_CHILD = """
import resource, subprocess, sys, time
t0 = time.perf_counter()
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
wall = time.perf_counter() - t0
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
print(done.returncode, wall, rss)
sys.stderr.write(done.stderr[-2000:])
"""

_API = """
import sys, time, numpy as np
from f1posterior import evaluate
stack = np.load(sys.argv[1]).astype(float)
workers = None if sys.argv[3] == "None" else int(sys.argv[3])
t0 = time.perf_counter()
evaluate(stack, draws=int(sys.argv[2]), rng=7, workers=workers, prior_check=True)
print(time.perf_counter() - t0)
"""


def make_inputs(n: int, folder: Path) -> tuple[Path, Path]:
    """A JSON-lines file and an .npy stack of the same n random 4 x 4 matrices."""
    rng = np.random.default_rng(n)
    stack = rng.integers(0, 60, size=(n, M, M)).astype(np.int32)
    stack[:, np.arange(M), np.arange(M)] += 40
    npy = folder / f"stack{n}.npy"
    np.save(npy, stack)
    jsonl = folder / f"stack{n}.jsonl"
    flat = stack.reshape(n, M * M)
    with jsonl.open("w") as fh:
        for i in range(0, n, 50_000):
            rows = flat[i : i + 50_000]
            lines = []
            for j, r in enumerate(rows, start=i):
                matrix = json.dumps(r.reshape(M, M).tolist())
                lines.append(f'{{"name": "m{j}", "matrix": {matrix}}}')
            fh.write("\n".join(lines) + "\n")
    return jsonl, npy


def run_cli(path: Path, out: Path, workers: int | None) -> tuple[float, int]:
    cmd = [sys.executable, "-m", "f1posterior", "summarize", str(path), "--format", "csv"]
    cmd += ["--output", str(out), "--draws", str(DRAWS), "--seed", str(SEED), "--no-progress"]
    if workers is not None:
        cmd += ["--workers", str(workers)]
    done = subprocess.run([sys.executable, "-c", _CHILD, *cmd], capture_output=True, text=True)
    code, wall, rss = done.stdout.split()
    if code != "0":
        raise RuntimeError(f"CLI failed ({code}): {done.stderr}")
    return float(wall), int(rss)


def run_api(npy: Path, workers: int | None) -> float:
    done = subprocess.run(
        [sys.executable, "-c", _API, str(npy), str(DRAWS), str(workers)],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(done.stdout.strip())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--quick", action="store_true", help="only 10^4 matrices")
    ap.add_argument("--name", default="cli_scale", help="results file name (without suffix)")
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument(
        "--rounds", type=int, default=1, help="interleaved rounds of API and CLI (best of each)"
    )
    ap.add_argument(
        "--full-above",
        type=int,
        default=100_000,
        help="above this many matrices, run only the JSON-lines CLI (the memory bound), "
        "not the .npy CLI and the in-memory evaluate",
    )
    args = ap.parse_args()
    sizes = [10_000] if args.quick else args.sizes
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for n in sizes:
            t0 = time.perf_counter()
            jsonl, npy = make_inputs(n, folder)
            print(f"n = {n:,}: inputs written in {time.perf_counter() - t0:.1f} s", flush=True)
            full = n <= args.full_above
            inputs = (("jsonl", jsonl), ("npy", npy))[: 2 if full else 1]
            api: float | None = None
            cli: dict[str, tuple[float, int]] = {}
            for _ in range(args.rounds if full else 1):  # interleaved; the best of each
                if full:
                    t = run_api(npy, args.workers)
                    api = t if api is None else min(api, t)
                for fmt, path in inputs:
                    w, r = run_cli(path, folder / "out.csv", args.workers)
                    old = cli.get(fmt)
                    cli[fmt] = (w, r) if old is None else (min(old[0], w), max(old[1], r))
            for fmt, _ in inputs:
                wall, rss = cli[fmt]
                row = {
                    "matrices": n,
                    "input": fmt,
                    "cli_seconds": round(wall, 2),
                    "api_seconds": None if api is None else round(api, 2),
                    "ratio": None if api is None else round(wall / api, 3),
                    "peak_rss_mib": round(rss / 2**20, 1),
                    "matrices_per_second": round(n / wall),
                }
                rows.append(row)
                print(json.dumps(row), flush=True)
    out = {"machine": machine(), "m": M, "draws": DRAWS, "workers": args.workers, "rows": rows}
    results = HERE / "results"
    results.mkdir(exist_ok=True)
    name = "cli_scale_quick" if args.quick else args.name
    (results / f"{name}.json").write_text(json.dumps(out, indent=2) + "\n")
    lines = [
        f"CLI at scale: {M} x {M} matrices, {DRAWS:,} draws, `summarize --format csv --output`",
        "",
        "| matrices | input | CLI s | evaluate s | ratio | peak RSS MiB | matrices/s |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['matrices']:,} | {r['input']} | {r['cli_seconds']} | "
            f"{r['api_seconds'] or 'not run'} | {r['ratio'] or ''} | {r['peak_rss_mib']} | "
            f"{r['matrices_per_second']:,} |"
        )
    (results / f"{name}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
