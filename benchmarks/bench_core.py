"""Core benchmark: evaluate on Figure 3, cost per draw against the Gamma floor,
and the partition-based HDI against a full-sort HDI.

Run: ``python benchmarks/bench_core.py [--quick]``. Writes
``benchmarks/results/bench_core.json`` and prints a summary. Everything is
measured in one run on one machine; times are the best of several repeats
(single thread: numpy's Gamma sampler is single-threaded).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from _common import best_of, machine

from f1posterior import evaluate, hdi, sample_posterior
from f1posterior.io._data import figure3

OUT = Path(__file__).resolve().parent / "results" / "bench_core.json"


def full_sort_hdi(x: np.ndarray, prob: float) -> np.ndarray:
    """The textbook sorted-window HDI: sort everything, scan every window."""
    s = np.sort(x, axis=-1)
    n = s.shape[-1]
    k = int(np.ceil(prob * n))
    widths = s[..., k - 1 :] - s[..., : n - k + 1]
    i = np.argmin(widths, axis=-1)[..., None]
    return np.concatenate(
        [np.take_along_axis(s, i, -1), np.take_along_axis(s, i + k - 1, -1)], axis=-1
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="fewer repeats")
    args = ap.parse_args()
    repeats = 3 if args.quick else 7
    counts = figure3()
    m = counts.shape[0]
    draws = 50_000
    results: dict = {"machine": machine()}

    # (a) evaluate on the Figure 3 matrix, two metrics, 50,000 draws
    t_eval = best_of(
        lambda: (
            evaluate(counts, draws=draws, ref=0.8, rng=0, workers=1)
            if "workers" in evaluate.__code__.co_varnames
            else evaluate(counts, draws=draws, ref=0.8, rng=0)
        ),
        repeats,
    )
    results["evaluate_figure3_50k"] = {"seconds": t_eval, "draws": draws}

    # (b) cost per posterior draw against numpy's raw Gamma variates for the same shapes.
    # numpy offers two ways to draw them: one call with an array of shapes broadcast over
    # the draws, or one call per cell with a scalar shape (numpy's faster path); the
    # floor is the faster of the two.
    conc = np.concatenate([counts + 1.0, (counts.sum(1) + 1.0)[None]], axis=0)  # (M+1, M)
    shape = np.broadcast_to(conc, (draws, m + 1, m))
    gen = np.random.default_rng(0)
    t_broadcast = best_of(lambda: gen.standard_gamma(shape), repeats)
    out = np.empty((m + 1, m, draws))
    cells = [(idx, float(conc[idx])) for idx in np.ndindex(m + 1, m)]

    def per_cell() -> None:
        for idx, a in cells:
            gen.standard_gamma(a, out=out[idx])

    t_cell = best_of(per_cell, repeats)
    t_gamma = min(t_broadcast, t_cell)
    t_sample = best_of(lambda: sample_posterior(counts, draws=draws, rng=0), repeats)
    results["per_draw"] = {
        "gamma_floor_ns_per_draw": 1e9 * t_gamma / draws,
        "gamma_broadcast_call_ns_per_draw": 1e9 * t_broadcast / draws,
        "gamma_per_cell_calls_ns_per_draw": 1e9 * t_cell / draws,
        "sample_posterior_ns_per_draw": 1e9 * t_sample / draws,
        "evaluate_ns_per_draw": 1e9 * t_eval / draws,
        "sample_posterior_over_floor": t_sample / t_gamma,
        "evaluate_over_floor": t_eval / t_gamma,
        "variates_per_draw": m * (m + 1),
    }

    # (c) HDI: partition + tail sort against a full sort, on (B, draws) metric draws
    hd: dict = {}
    for b, n in [(1, 50_000), (1, 1_000_000), (1000, 10_000)]:
        x = np.random.default_rng(1).beta(80, 20, size=(b, n))
        t_ours = best_of(lambda x=x: hdi(x, 0.95), repeats)
        t_full = best_of(lambda x=x: full_sort_hdi(x, 0.95), repeats)
        assert np.allclose(
            hdi(x, 0.95)[..., 1] - hdi(x, 0.95)[..., 0],
            np.diff(full_sort_hdi(x, 0.95), axis=-1)[..., 0],
        )
        hd[f"{b}x{n}"] = {"ours_s": t_ours, "full_sort_s": t_full, "speedup": t_full / t_ours}
    results["hdi"] = hd

    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(results, indent=2))
    pd = results["per_draw"]
    print(f"machine: {results['machine']}")
    print(f"(a) evaluate(Figure 3, 50,000 draws, micro+macro F1): {1e3 * t_eval:.1f} ms")
    print(
        f"(b) per draw ({pd['variates_per_draw']} Gamma variates): floor "
        f"{pd['gamma_floor_ns_per_draw']:.0f} ns (broadcast call "
        f"{pd['gamma_broadcast_call_ns_per_draw']:.0f} ns, per-cell calls "
        f"{pd['gamma_per_cell_calls_ns_per_draw']:.0f} ns), sample_posterior "
        f"{pd['sample_posterior_ns_per_draw']:.0f} ns ({pd['sample_posterior_over_floor']:.2f}x), "
        f"evaluate {pd['evaluate_ns_per_draw']:.0f} ns ({pd['evaluate_over_floor']:.2f}x)"
    )
    for k, v in hd.items():
        print(
            f"(c) hdi {k}: {1e3 * v['ours_s']:.2f} ms vs full sort "
            f"{1e3 * v['full_sort_s']:.2f} ms ({v['speedup']:.1f}x)"
        )
    print(f"written to {OUT}")


if __name__ == "__main__":
    main()
