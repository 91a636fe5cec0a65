"""Benchmark of paired rankings: k = 2, 3, 5, 10 classifiers, M = 8 classes, 3,000 documents,
20,000 draws, macro-F1.

For each k: the wall time of ``rank_predictions``, of one paired comparison
(``compare_predictions`` of the first two models) and of numpy drawing the same Gamma
variates alone (``Generator.standard_gamma`` on the model's concentrations, in chunks of the
same size), the number of cells of the sparse model against the M^(k+1) of the dense one it
replaced. Errors are independent across models (the worst case: nearly every document is
its own tuple). Writes benchmarks/results/ranking.json and ranking.md.

Run: python benchmarks/bench_ranking.py
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from _common import best_of, machine

from f1posterior.analysis._paired import compare_predictions
from f1posterior.analysis._ranking import rank_predictions
from f1posterior.analysis._tuples import count_tuples, joint_prior, posterior_tuples

M, N_DOCS, DRAWS = 8, 3_000, 20_000


def models(k: int, seed: int = 0) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, M, N_DOCS)
    preds = {
        f"m{i}": np.where(rng.random(N_DOCS) < 0.6 + 0.03 * i, y, rng.integers(0, M, N_DOCS))
        for i in range(k)
    }
    return y, preds


def cells(y: np.ndarray, preds: dict[str, np.ndarray]) -> np.ndarray:
    """Concentrations of the sparse model's cells and prevalences (what is drawn a draw)."""
    tuples, counts = count_tuples(y, np.array(list(preds.values())))
    p_t, p_c, b, _ = joint_prior("paired", "adaptive", tuples, counts, M)
    _, conc = posterior_tuples(tuples, counts, p_t, p_c)
    return np.concatenate([conc, b + np.bincount(y, minlength=M)])


def raw_gamma(conc: np.ndarray, chunk: int = 640) -> None:
    gen = np.random.default_rng(0)
    for d0 in range(0, DRAWS, chunk):
        gen.standard_gamma(conc[:, None], size=(conc.size, min(chunk, DRAWS - d0)))


def main() -> None:
    rows = []
    y2, p2 = models(2)
    for k in (2, 3, 5, 10):
        y, preds = models(k)
        conc = cells(y, preds)
        # the pair is timed again next to each ranking (the machine's load drifts)
        pair_s = best_of(
            lambda: compare_predictions(y2, p2["m0"], p2["m1"], draws=DRAWS, rng=0), repeat=3
        )
        rank_s = best_of(lambda y=y, p=preds: rank_predictions(y, p, draws=DRAWS, rng=0), 3)
        gamma_s = best_of(lambda c=conc: raw_gamma(c), repeat=3)
        rows.append(
            {
                "k": k,
                "variates_per_draw": int(conc.size),
                "dense_variates_per_draw": M ** (k + 1) + M,
                "rank_s": round(rank_s, 3),
                "one_pair_s": round(pair_s, 3),
                "rank_over_pair": round(rank_s / pair_s, 2),
                "pairs": k * (k - 1) // 2,
                "numpy_gamma_s": round(gamma_s, 3),
                "rank_over_numpy_gamma": round(rank_s / gamma_s, 2),
            }
        )
        print(rows[-1])
    out = {
        "benchmark": "ranking",
        "machine": machine(),
        "note": "2 cores shared with other jobs; best of 3 runs, the pair re-timed for each k",
        "case": {"M": M, "documents": N_DOCS, "draws": DRAWS, "metric": "macro_f1"},
        "results": rows,
    }
    here = Path(__file__).resolve().parent / "results"
    here.mkdir(exist_ok=True)
    (here / "ranking.json").write_text(json.dumps(out, indent=2) + "\n")
    lines = [
        f"# Paired rankings: M = {M}, {N_DOCS:,} documents, {DRAWS:,} draws, macro-F1",
        "",
        "| k | variates/draw | dense M^(k+1)+M | rank (s) | one pair (s) | rank/pair | pairs "
        "| numpy Gamma (s) | rank/Gamma |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['k']} | {r['variates_per_draw']:,} | {r['dense_variates_per_draw']:,} "
            f"| {r['rank_s']} | {r['one_pair_s']} | {r['rank_over_pair']} | {r['pairs']} "
            f"| {r['numpy_gamma_s']} | {r['rank_over_numpy_gamma']} |"
        )
    lines += ["", f"Machine: {out['machine']['platform']}, {out['note']}."]
    (here / "ranking.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
