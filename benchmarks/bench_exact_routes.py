"""Exact routes (issue 16, item 5): micro-F1 from 3M Gamma variates, recall in closed form.

* micro-F1 only: the whole-table path (``M (M + 1)`` Gamma variates a draw, forced
  with the private switch ``f1posterior.posterior.routes._ENABLED = False``) against the
  reduced route (``3 M``), for M = 2, 5, 20, 50: one matrix at 50,000 draws, and
  batches (100 matrices at 5,000 draws, 10 at M = 50; 1,000 at 1,000 for M <= 5).
* recall only: the closed form (scipy, now under any prior) against the reduced
  route's sampled Beta marginal (scipy hidden) and the whole table (both off).

Every variant of a case runs interleaved, ``--repeat`` rounds, and the minimum of
each is kept (other processes share the machine). ``workers=1`` throughout.

Run: python benchmarks/bench_exact_routes.py [--repeat 5] [--quick]
  -> benchmarks/results/exact_routes.json and exact_routes.md
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from _common import interleaved as _interleaved
from _common import machine

import f1posterior.posterior.exact as fx
from f1posterior import evaluate
from f1posterior.posterior import routes

OUT = Path(__file__).parent / "results"


def _no_scipy() -> Any:
    raise ImportError("hidden by the benchmark")


def _variant(kind: str) -> Callable[[Callable[[], Any]], Any]:
    """Run ``fn`` with the whole-table path (``full``), sampled recall (``sampled``), or as is."""

    def run(fn: Callable[[], Any]) -> Any:
        saved_enabled, saved_special = routes._ENABLED, fx._special
        try:
            if kind in ("full", "full_sampled"):
                routes._ENABLED = False
            if kind in ("sampled", "full_sampled"):
                fx._special = _no_scipy  # type: ignore[assignment]
            return fn()
        finally:
            routes._ENABLED, fx._special = saved_enabled, saved_special

    return run


def _counts(m: int, batch: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    c = rng.integers(0, 20, size=(batch, m, m)) + np.eye(m, dtype=int) * 150
    return c[0] if batch == 1 else c


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="M = 2, 5 only, 2 rounds")
    args = ap.parse_args()
    repeat = 2 if args.quick else args.repeat
    ms = (2, 5) if args.quick else (2, 5, 20, 50)
    rows: list[dict[str, Any]] = []
    for m in ms:
        shapes = [(1, 50_000), (100 if m < 50 else 10, 5_000)]
        shapes += [(1_000, 1_000)] if m <= 5 else []
        for batch, draws in shapes:
            c = _counts(m, batch, m)

            def call(metric: str, c: np.ndarray = c, draws: int = draws) -> Callable[[], Any]:
                return lambda: evaluate(c, metrics=[metric], draws=draws, rng=1, workers=1)

            mic = call("micro_f1")
            rec = call("recall")
            t = _interleaved(
                {
                    "micro_full": lambda mic=mic: _variant("full")(mic),
                    "micro_route": mic,
                    "recall_full": lambda rec=rec: _variant("full_sampled")(rec),
                    "recall_route": lambda rec=rec: _variant("sampled")(rec),
                    "recall_exact": rec,
                },
                repeat,
            )
            row = {"M": m, "batch": batch, "draws": draws, **{k + "_s": v for k, v in t.items()}}
            row["micro_speedup"] = t["micro_full"] / t["micro_route"]
            row["recall_route_speedup"] = t["recall_full"] / t["recall_route"]
            row["recall_exact_vs_route"] = t["recall_route"] / t["recall_exact"]
            rows.append(row)
            print(
                f"M={m:>2} batch={batch:>5} draws={draws:>6}  micro-F1 full {t['micro_full']:8.4f}s"
                f" route {t['micro_route']:8.4f}s ({row['micro_speedup']:5.2f}x) | recall full "
                f"{t['recall_full']:8.4f}s route {t['recall_route']:8.4f}s exact "
                f"{t['recall_exact']:8.4f}s",
                flush=True,
            )
    result = {
        "machine": machine(),
        "repeat": repeat,
        "workers": 1,
        "note": (
            "min of interleaved rounds; micro_full = the whole table (M(M+1) Gamma variates a "
            "draw), micro_route = 3M; recall_full = whole table, recall_route = reduced route "
            "(scipy hidden), recall_exact = closed form (scipy)"
        ),
        "rows": rows,
    }
    OUT.mkdir(exist_ok=True)
    suffix = "_quick" if args.quick else ""
    (OUT / f"exact_routes{suffix}.json").write_text(json.dumps(result, indent=2) + "\n")
    lines = [
        "# Exact routes: micro-F1 from 3M Gamma variates, recall in closed form",
        "",
        f"Machine: {result['machine']['cpu']}, {result['machine']['cores']} cores, Python "
        f"{result['machine']['python']}, NumPy {result['machine']['numpy']}; workers = 1; "
        f"min of {repeat} interleaved rounds (other processes were running).",
        "",
        "| M | matrices | draws | micro-F1 whole table (s) | micro-F1 route (s) | speed-up "
        "| recall whole table (s) | recall route (s) | recall exact (s) |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['M']} | {r['batch']:,} | {r['draws']:,} | {r['micro_full_s']:.4f} | "
            f"{r['micro_route_s']:.4f} | {r['micro_speedup']:.2f}x | {r['recall_full_s']:.4f} | "
            f"{r['recall_route_s']:.4f} | {r['recall_exact_s']:.4f} |"
        )
    (OUT / f"exact_routes{suffix}.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
