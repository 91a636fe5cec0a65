"""One matrix of many classes against numpy's Gamma floor, before and after a change.

The large cases of ``bench_engine.py --sampler`` (one M x M matrix, 10,000 draws,
``evaluate`` with micro- and macro-F1, the default prior, one worker, CPU time) run
in fresh processes that alternate between this working tree and a ``--baseline``
source tree (an exported earlier commit, say), round by round; each process times
the floor (the faster of numpy's broadcasting and one-call-per-cell Gamma variates
for the same concentrations, :func:`bench_engine.floor_fns`) and ``evaluate``
interleaved, so every ratio is against a floor measured beside it. (``bench_overheads.py``
alternates versions the same way for batches, in wall time, against ``bench_batch.py``'s
floor for the paper prior's concentrations; this is ``--sampler``'s measurement.)

Run from the repository root::

    git archive <commit> | tar -x -C /tmp/before
    python benchmarks/bench_large_m.py --baseline /tmp/before            # about 15 minutes
    python benchmarks/bench_large_m.py --m 300 --draws 2000 --rounds 1   # this tree alone

Writes ``benchmarks/results/large_m.json`` and ``large_m.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"


def child(m: int, kind: str, draws: int) -> dict[str, float]:
    """One process's CPU seconds: the two floors and ``evaluate``, interleaved once."""
    sys.path.insert(0, str(HERE))
    import numpy as np
    from bench_engine import METRICS, floor_fns, sparse, stack

    from f1posterior import evaluate

    c = stack(1, m) if kind == "dense" else sparse(m)
    fns = floor_fns(c, draws)
    evaluate(c, draws=min(draws, 50), rng=0, workers=1, metrics=METRICS)  # warm
    out = {}
    for name, fn in (
        ("floor_per_cell", fns["floor_per_cell"]),
        ("evaluate", lambda: evaluate(c, draws=draws, rng=0, workers=1, metrics=METRICS)),
        ("floor_broadcast", fns["floor_broadcast"]),
    ):
        t0 = time.process_time()
        fn()
        out[name] = time.process_time() - t0
    out["floor"] = min(out["floor_per_cell"], out["floor_broadcast"])
    out["ratio"] = out["evaluate"] / out["floor"]
    out["numpy"] = float(np.__version__.split(".")[0])
    return out


def run_child(tree: Path, m: int, kind: str, draws: int) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    argv = [sys.executable, str(Path(__file__).resolve()), "--child", str(m), kind, str(draws)]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=True, cwd="/")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", type=Path, default=None, help="source tree to compare with")
    ap.add_argument("--m", type=int, nargs="+", default=[50, 100, 300], help="classes")
    ap.add_argument("--sparse", action="store_true", help="also a sparse matrix of each size")
    ap.add_argument("--draws", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        m, kind, draws = args.child
        print(json.dumps(child(int(m), kind, int(draws))))
        return 0
    sys.path.insert(0, str(HERE))
    from _common import machine

    info = machine()
    trees = {"this tree": HERE.parent}
    if args.baseline is not None:
        trees = {"baseline": args.baseline.resolve(), **trees}
    cases = [(m, k) for m in args.m for k in (("dense", "sparse") if args.sparse else ("dense",))]
    best: dict[str, dict[str, dict[str, float]]] = {}
    for r in range(args.rounds):
        for m, kind in cases:
            order = list(trees.items()) if r % 2 == 0 else list(trees.items())[::-1]
            for label, tree in order:
                t = run_child(tree, m, kind, args.draws)
                key = f"{m} {kind}"
                slot = best.setdefault(key, {}).setdefault(label, {})
                for k in ("floor", "evaluate", "ratio"):
                    slot[k] = min(slot.get(k, float("inf")), t[k])
                print(f"round {r + 1}, M = {m} {kind}, {label}: floor {t['floor']:.2f} s, "
                      f"evaluate {t['evaluate']:.2f} s, {t['ratio']:.3f}x "
                      f"(load {os.getloadavg()[0]:.1f})", flush=True)  # fmt: skip
    info["load_average_after"] = os.getloadavg()
    lines = [
        f"Machine: {info['cpu_model']}, {info['cores']} cores, NumPy {info['numpy']}; load "
        f"average {info['load_average'][0]:.1f} before, {info['load_average_after'][0]:.1f} "
        f"after; one matrix, {args.draws:,} draws, micro- and macro-F1, default prior, one "
        f"worker; CPU time, fresh processes alternating, {args.rounds} rounds; best ratio of "
        "evaluate to the floor measured beside it.",
        "",
        "| matrix | " + " | ".join(f"{label}: evaluate / floor" for label in trees) + " |",
        "|---|" + "---:|" * len(trees),
    ]
    for key, by in best.items():
        m, kind = key.split()
        cells = " | ".join(f"{by[label]['ratio']:.2f}x ({by[label]['evaluate']:.2f} s)"
                           for label in trees)  # fmt: skip
        lines.append(f"| {kind} {m}x{m} | {cells} |")
    RESULTS.mkdir(exist_ok=True)
    result = {"machine": info, "argv": sys.argv[1:], "best": best}
    (RESULTS / "large_m.json").write_text(json.dumps(result, indent=2) + "\n")
    (RESULTS / "large_m.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
