"""Old package against new: the same calls, timed in one run, interleaved.

Issue 14 re-laid out the package and folded copies back into the core; issues 15
and later added features on the same paths. This benchmark checks that the calls
users make did not get slower. Run from the repository root::

    git -C <main checkout> worktree add /tmp/old-f1p f83d12c --detach
    python benchmarks/bench_no_slowdown.py [--old /tmp/old-f1p] [--repeats 5]

Each version runs in its own long-lived subprocess (``PYTHONPATH`` set to its
checkout), so both import cleanly and import time is not counted. The parent sends
one case at a time, alternating old and new, ``--repeats`` rounds; every call is
warmed up once first. A case's time is the minimum over the rounds; the noise
estimate is the spread of the repeats ((max - min) / min per version) and the range
of the per-round new/old ratios. A case counts as slower only when its ratio of
minima exceeds 1 by more than that noise.

The old package spells the interval probability ``hdi_prob=``, the new one
``ci_prob=``; each child uses
its own spelling. Both children also return a checksum of the result (posterior
means, interval ends, standard deviations), so the two do the same work: the
largest relative difference of those numbers is reported with each ratio.

Writes ``benchmarks/results/no_slowdown.json`` and ``no_slowdown.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
OLD_COMMIT = "f83d12c"

# The child: reads one case name a line, runs it, answers one JSON line.
_CHILD = r"""
import inspect, json, sys, time, warnings
import numpy as np
import f1posterior as f

KW = "ci_prob" if "ci_prob" in inspect.signature(f.evaluate).parameters else "hdi_prob"
P = {KW: 0.95}


def stack(b, m, seed):
    r = np.random.default_rng(seed)
    c = r.integers(0, 30, size=(b, m, m))
    c[..., np.arange(m), np.arange(m)] += 50
    return c


C4 = stack(1, 4, 1)[0]
C20 = stack(1, 20, 2)[0]
B4 = stack(1000, 4, 3)
C3 = np.array([[50, 3, 2], [4, 40, 6], [1, 5, 60]])
A5, B5 = stack(1, 5, 4)[0], stack(1, 5, 5)[0]
r = np.random.default_rng(6)
ML = r.integers(1, 60, size=(1000, 2, 2))


def summ(ev, metric):
    s = ev[metric]
    return [float(np.sum(s.mean)), float(np.sum(s.hdi)), float(np.sum(s.std))]


def eval_4x4():
    return summ(f.evaluate(C4, draws=50_000, rng=0, **P), "macro_f1")


def eval_20x20():
    return summ(f.evaluate(C20, draws=50_000, rng=0, **P), "macro_f1")


def batch_1000x4x4():
    return summ(f.evaluate(B4, draws=2_000, rng=0, workers=1, **P), "macro_f1")


def gate_3x3():
    if hasattr(f, "Floor"):  # checks as values
        g = f.gate(C3, [f.Floor("macro_f1", 0.8), f.Floor("micro_f1", 0.8)], rng=0, **P)
    else:  # the old package's minimums=
        g = f.gate(C3, minimums={"macro_f1": 0.8, "micro_f1": 0.8}, rng=0, **P)
    return [float(c.prob) for c in g.checks]


def compare_5x5():
    c = f.compare(A5, B5, metric="macro_f1", draws=50_000, rng=0, **P)
    return [float(c.p_a_better), float(np.sum(c.difference.mean)), float(np.sum(c.difference.hdi))]


def multilabel_1000():
    return summ(f.evaluate_multilabel(ML, draws=2_000, rng=0, **P), "macro_f1")


CASES = {n: g for n, g in globals().items() if callable(g) and n[0].isalpha()
         and n not in ("stack", "summ")}
print(json.dumps({"file": f.__file__, "version": f.__version__, "kw": KW}), flush=True)
for line in sys.stdin:
    name = line.strip()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0, c0 = time.perf_counter(), time.process_time()
        out = CASES[name]()
        t, c = time.perf_counter() - t0, time.process_time() - c0
    print(json.dumps({"case": name, "s": t, "cpu": c, "check": out}), flush=True)
"""

CASES = {
    "eval_4x4": "evaluate, one 4x4 matrix, 50,000 draws",
    "eval_20x20": "evaluate, one 20x20 matrix, 50,000 draws",
    "batch_1000x4x4": "evaluate, 1,000 4x4 matrices, 2,000 draws, workers=1",
    "gate_3x3": "gate, 3x3 matrix, macro-F1 and micro-F1 floors (default draws)",
    "compare_5x5": "compare (independent), two 5x5 matrices, 50,000 draws",
    "multilabel_1000": "evaluate_multilabel, 1,000 labels, 2,000 draws",
}


class Child:
    """A long-lived interpreter importing f1posterior from ``root``."""

    def __init__(self, root: Path) -> None:
        env = dict(os.environ, PYTHONPATH=str(root), OMP_NUM_THREADS="1")
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _CHILD],
            cwd=str(root),
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.info = json.loads(self._line())
        if not self.info["file"].startswith(str(root)):
            raise RuntimeError(f"child imported {self.info['file']}, not from {root}")

    def _line(self) -> str:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("child exited")
        return line

    def run(self, case: str) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(case + "\n")
        self.proc.stdin.flush()
        return json.loads(self._line())

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def git_head(root: Path) -> str:
    out = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    )
    return out.stdout.strip()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", default="/tmp/old-f1p", help="checkout of the old commit")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--cases", nargs="+", choices=list(CASES), help="a subset of the cases")
    ap.add_argument("--out", help="directory for the results (default benchmarks/results)")
    args = ap.parse_args(argv)
    cases = {c: CASES[c] for c in (args.cases or CASES)}
    old_root = Path(args.old).resolve()
    load_before = os.getloadavg()
    old, new = Child(old_root), Child(ROOT)
    times: dict[str, dict[str, list[float]]] = {c: {"old": [], "new": []} for c in cases}
    cpu: dict[str, dict[str, list[float]]] = {c: {"old": [], "new": []} for c in cases}
    checks: dict[str, dict[str, Any]] = {c: {} for c in cases}
    for case in cases:  # warm-up (first-call caches, page faults), not timed
        checks[case]["old"] = old.run(case)["check"]
        checks[case]["new"] = new.run(case)["check"]
    for rnd in range(args.repeats):
        for case in cases:
            pair = [("old", old), ("new", new)]
            if rnd % 2:  # alternate which version goes first
                pair.reverse()
            for tag, child in pair:
                got = child.run(case)
                times[case][tag].append(got["s"])
                cpu[case][tag].append(got["cpu"])
        print(f"round {rnd + 1}/{args.repeats} done", file=sys.stderr, flush=True)
    old.close()
    new.close()
    rows = []
    for case, desc in cases.items():
        t_old, t_new = np.array(times[case]["old"]), np.array(times[case]["new"])
        u_old, u_new = np.array(cpu[case]["old"]), np.array(cpu[case]["new"])
        cpu_ratio = float(u_new.min() / u_old.min())
        cpu_noise = float(max(np.ptp(u_old) / u_old.min(), np.ptp(u_new) / u_new.min()))
        c_old, c_new = np.array(checks[case]["old"]), np.array(checks[case]["new"])
        rel_diff = float(np.max(np.abs(c_new - c_old) / np.maximum(np.abs(c_old), 1e-300)))
        ratio = float(t_new.min() / t_old.min())
        per_round = t_new / t_old
        noise = float(max(np.ptp(t_old) / t_old.min(), np.ptp(t_new) / t_new.min()))
        if ratio > 1 + noise:
            verdict = "slower"
        elif ratio < 1 - noise:
            verdict = "faster"
        else:
            verdict = "within noise"
        rows.append(
            {
                "case": case,
                "what": desc,
                "old_min_s": float(t_old.min()),
                "new_min_s": float(t_new.min()),
                "ratio_new_over_old": ratio,
                "per_round_ratio_range": [float(per_round.min()), float(per_round.max())],
                "spread_old": float(np.ptp(t_old) / t_old.min()),
                "spread_new": float(np.ptp(t_new) / t_new.min()),
                "noise": noise,
                "verdict": verdict,
                "checksum_old": c_old.tolist(),
                "checksum_new": c_new.tolist(),
                "checksum_max_rel_diff": rel_diff,
                "cpu_old_min_s": float(u_old.min()),
                "cpu_new_min_s": float(u_new.min()),
                "cpu_ratio_new_over_old": cpu_ratio,
                "cpu_noise": cpu_noise,
                "cpu_verdict": (
                    "slower"
                    if cpu_ratio > 1 + cpu_noise
                    else "faster"
                    if cpu_ratio < 1 - cpu_noise
                    else "within noise"
                ),
                "old_cpu_s": u_old.tolist(),
                "new_cpu_s": u_new.tolist(),
                "old_times_s": t_old.tolist(),
                "new_times_s": t_new.tolist(),
            }
        )
        print(json.dumps(rows[-1]), flush=True)
    result = {
        "machine": {
            "python": platform.python_version(),
            "numpy": np.__version__,
            "cores": os.cpu_count(),
            "platform": platform.platform(),
            "load_average_before": load_before,
            "load_average_after": os.getloadavg(),
            "note": "2 cores shared with other processes; min of repeats, interleaved",
        },
        "old": {"root": str(old_root), "commit": git_head(old_root), **old.info},
        "new": {"root": str(ROOT), "commit": git_head(ROOT), **new.info},
        "repeats": args.repeats,
        "cases": rows,
    }
    out = Path(args.out) if args.out else RESULTS
    out.mkdir(exist_ok=True)
    (out / "no_slowdown.json").write_text(json.dumps(result, indent=2) + "\n")
    (out / "no_slowdown.md").write_text(markdown(result))
    print(f"wrote {out / 'no_slowdown.json'} and no_slowdown.md")
    return 0


def markdown(result: dict[str, Any]) -> str:
    m = result["machine"]
    lines = [
        "# Old package against new: same calls, one run, interleaved",
        "",
        f"Old: commit {result['old']['commit']} ({result['old']['kw']}=); "
        f"new: commit {result['new']['commit']} ({result['new']['kw']}=). "
        f"Min of {result['repeats']} interleaved repeats, each version in its own process. "
        f"Python {m['python']}, NumPy {m['numpy']}, {m['cores']} cores shared with other "
        f"jobs; load average before {m['load_average_before'][0]:.2f}, "
        f"after {m['load_average_after'][0]:.2f}.",
        "",
        "Noise = largest (max - min) / min of the repeats of either version; a case is "
        "slower or faster only when new/old differs from 1 by more than that.",
        "",
        "Wall time first, then process CPU time (all threads of the child; far less "
        "disturbed by other jobs on a shared machine).",
        "",
        "| case | old (s) | new (s) | new/old | per-round range | noise | verdict "
        "| CPU new/old | CPU noise | CPU verdict | results: max rel. diff |",
        "|---|---:|---:|---:|---|---:|---|---:|---:|---|---|",
    ]
    for r in result["cases"]:
        lo, hi = r["per_round_ratio_range"]
        lines.append(
            f"| {r['what']} | {r['old_min_s']:.4f} | {r['new_min_s']:.4f} | "
            f"{r['ratio_new_over_old']:.2f} | {lo:.2f}-{hi:.2f} | {r['noise']:.0%} | "
            f"{r['verdict']} | {r['cpu_ratio_new_over_old']:.2f} | {r['cpu_noise']:.0%} | "
            f"{r['cpu_verdict']} | {r['checksum_max_rel_diff']:.1e} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
