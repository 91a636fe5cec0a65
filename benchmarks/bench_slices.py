"""Cost of one call over S slices against plain ``evaluate`` on the same documents.

D documents of a 3-class classifier, split into S slices. Timed (best of ``--repeat``,
the calls interleaved so that load hits them alike), 50,000 draws, macro-F1:

- ``evaluate``: one table of all D documents (the plain call);
- ``batch``: ``evaluate`` of the S slices' tables, counted beforehand (the engine alone);
- ``slices``: ``evaluate_slices(y_true, y_pred, groups)`` (counting included);
- ``slices_floor``: the same with ``floor=`` (the joint probability, draws kept);
- ``loop``: S separate ``evaluate`` calls, one per slice (what a script would do);
- ``gate_slices``: ``gate`` with ``SliceFloor`` on the S tables, and ``gate_pooled``:
  ``gate`` with ``Floor`` on the pooled table.

Run: python benchmarks/bench_slices.py [--quick]
 ->  benchmarks/results/bench_slices{,_quick}.json and .md
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from _common import interleaved, machine

from f1posterior import Floor, SliceFloor, confusion_matrix, evaluate, evaluate_slices, gate
from f1posterior.io import slice_tables

RESULTS = Path(__file__).resolve().parent / "results"


def data(d: int, s: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, size=d)
    pred = np.where(rng.random(d) < 0.85, y, rng.integers(0, 3, size=d))
    return y, pred, rng.integers(0, s, size=d)


def run(d: int, s: int, repeat: int, draws: int = 50_000) -> dict[str, float]:
    y, p, g = data(d, s)
    t = slice_tables(y, p, g)
    pooled = confusion_matrix(y, p).counts
    kw = dict(metrics="macro_f1", draws=draws, rng=0)
    fns = {
        "evaluate": lambda: evaluate(pooled, **kw),
        "batch": lambda: evaluate(t.counts, **kw),
        "slices": lambda: evaluate_slices(y, p, g, **kw),
        "slices_floor": lambda: evaluate_slices(y, p, g, floor=0.8, **kw),
        "loop": lambda: [evaluate(c, **kw) for c in t.counts],
        "gate_pooled": lambda: gate(pooled, [Floor("macro_f1", 0.8)], draws=draws),
        "gate_slices": lambda: gate(t.counts, [SliceFloor("macro_f1", 0.8)], draws=draws),
    }
    return interleaved(fns, repeat)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    sizes = [(20_000, 2), (20_000, 10)] if args.quick else [(20_000, s) for s in (2, 5, 10, 50)]
    rows = []
    lines = [
        "| documents | slices | evaluate (one table) | batch of S tables | evaluate_slices | "
        "with floor | S evaluate calls | gate pooled | gate SliceFloor |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for d, s in sizes:
        t = run(d, s, args.repeat)
        rows.append({"documents": d, "slices": s, "seconds": t})
        base = t["evaluate"]
        cells = [f"{1000 * t[k]:.0f} ms ({t[k] / base:.1f}x)" for k in t]
        lines.append(f"| {d:,} | {s} | " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    RESULTS.mkdir(exist_ok=True)
    stem = "bench_slices" + ("_quick" if args.quick else "")
    record = {"machine": machine(), "rows": rows}
    (RESULTS / f"{stem}.json").write_text(json.dumps(record, indent=2))
    (RESULTS / f"{stem}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
