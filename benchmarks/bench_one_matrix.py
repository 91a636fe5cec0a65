"""One small matrix: ``evaluate`` on one 2 x 2 table at 1,000 draws against numpy's floor.

Runs the same measurement alternately with the package of a reference commit
(exported with ``git archive``, as in ``bench_overheads.py``) and with the working
tree, each in a fresh process, so that both see the same machine load. Every
process times, single thread, ``evaluate(np.array([[40, 10], [5, 45]]),
draws=1000, rng=0)`` (the default metrics and prior) and numpy's floor: the faster
of one broadcasting ``standard_gamma`` call and one call per cell for the same
posterior concentrations, each the best of ``--inner`` blocks of ``--calls``
calls (per call). The excess is evaluate minus the floor. Results, every round and
their medians, in ``benchmarks/results/bench_one_matrix.json``.

Run from the repository root::

    python benchmarks/bench_one_matrix.py --ref main --rounds 7
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import machine
from bench_overheads import export

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"

_CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[3])
import numpy as np
import f1posterior
from f1posterior import evaluate
from f1posterior._core.priors import resolve
from f1posterior._core.sampling import concentrations
calls, inner = map(int, sys.argv[1:3])
c = np.array([[40, 10], [5, 45]])
p = resolve("hierarchical", "hierarchical", c.astype(float))
conc = concentrations(c.astype(float), p.alpha, p.beta)
gen = np.random.default_rng(1)
out = np.empty((*conc.shape, 1000))
cells = conc.tolist()

def broadcast():
    gen.standard_gamma(conc[..., None], out=out)

def per_cell():
    for r, row in enumerate(cells):
        for k, a in enumerate(row):
            gen.standard_gamma(a, None, np.float64, out[r, k])

def one():
    evaluate(c, draws=1000, rng=0)

def per_call(fn):
    best = float("inf")
    for _ in range(inner):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - t0) / calls)
    return best

for fn in (one, broadcast, per_cell):
    fn()
times = {name: per_call(fn) for name, fn in
         (("evaluate_s", one), ("broadcast_s", broadcast), ("per_cell_s", per_cell))}
print(json.dumps({**times, "package": f1posterior.__file__}))
"""


def measure(pkg: Path, calls: int, inner: int, cwd: str) -> dict:
    """One process's times, with the package under ``pkg`` (run in the empty ``cwd``)."""
    args = [sys.executable, "-c", _CHILD, str(calls), str(inner), str(pkg)]
    out = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(out.stderr)
    r = json.loads(out.stdout)
    r["floor_s"] = min(r["broadcast_s"], r["per_cell_s"])
    r["excess_s"] = r["evaluate_s"] - r["floor_s"]
    return r


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ref", required=True, help="commit to compare the working tree with")
    ap.add_argument("--rounds", type=int, default=7, help="alternating rounds")
    ap.add_argument("--calls", type=int, default=200, help="calls per timed block")
    ap.add_argument("--inner", type=int, default=5, help="timed blocks per process (best of)")
    args = ap.parse_args(argv)

    def rev(ref: str) -> str:
        cmd = ["git", "rev-parse", "--short", ref]
        return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True).stdout.strip()

    info = machine()
    print(json.dumps(info), flush=True)
    result: dict = {"machine": info, "before": rev(args.ref), "after": f"{rev('HEAD')} (tree)"}
    runs: dict[str, list[dict]] = {"before": [], "after": []}
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as empty:
        before_pkg = export(args.ref, Path(tmp))
        for _ in range(args.rounds):
            runs["before"].append(measure(before_pkg, args.calls, args.inner, empty))
            runs["after"].append(measure(ROOT, args.calls, args.inner, empty))
    for key, pkg in (("before", before_pkg), ("after", ROOT)):  # the package each one ran
        assert all(r["package"].startswith(str(pkg)) for r in runs[key]), runs[key][0]
    for key, v in runs.items():
        result[key] = {
            "runs": v,
            **{
                f"{k}_median_ms": 1e3 * statistics.median(r[k] for r in v)
                for k in ("evaluate_s", "floor_s", "excess_s")
            },
        }
        row = result[key]
        print(
            f"{key}: evaluate {row['evaluate_s_median_ms']:.3f} ms, floor "
            f"{row['floor_s_median_ms']:.3f} ms, excess {row['excess_s_median_ms']:.3f} ms "
            "(medians)",
            flush=True,
        )
    result["machine"]["load_average_after"] = os.getloadavg()
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / "bench_one_matrix.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
