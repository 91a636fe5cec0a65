"""The prior of ``tau`` in the random-effects aggregate: coverage against width, by simulation.

Part 1 (the normal-normal model; the prior of ``tau`` is all that changes). Each
replicate draws K folds from a known truth on the logit scale::

    theta_k = mu + tau z_k,   z_k ~ N(0, 1)              each fold's true metric
    y_k ~ N(theta_k, s_k^2),   s_k^2 = 1 / (n_k F_k (1 - F_k)),   F_k = expit(theta_k)

``s_k^2`` is the posterior variance of logit(macro-F1) of a fold of ``n_k`` documents
(checked against the core posterior on symmetric 2-, 5- and 10-class tables of 100 to
1,000 documents: the factor is 0.9 to 1.3). Per replicate the typical fold size ``n`` is
log-uniform on [100, 1000], the folds' sizes are ``n`` times U(0.8, 1.2), and the mean
metric ``expit(mu)`` is U(0.65, 0.9). Every candidate prior sees the same replicates.
Measured, per (tau, K) and prior:

- coverage of the 95% HDI of the population mean ``E[expit(mu + tau Z)]`` (what
  ``aggregate`` reports as ``summary``);
- its width relative to the pooled interval (the tau = 0 model: the inverse-variance
  weighted mean), the mean of the per-replicate ratios;
- coverage of the 95% HDI of the predictive metric of a new fold, ``expit(mu + tau z)``.

Part 2 (end to end through :func:`f1posterior.aggregate` on confusion matrices): five
10-class folds of 360 documents (the digits case) from one population (tau = 0) and from
populations that differ (tau = 0.5, 1); each fold's true table is symmetric with accuracy
``a_k = expit(mu + tau z_k)`` (so its true macro-F1 is ``a_k``), the truth is
``E[expit(mu + tau Z)]``. Coverage and mean width of the old default (half-normal 0.5)
and the new one, and the pooled width.

Run: python benchmarks/aggregate_calibration.py [--quick]
 ->  benchmarks/results/aggregate_calibration{,_quick}.json and .md
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from _common import machine

from f1posterior import aggregate
from f1posterior.analysis import _random_effects as rem

HERE = Path(__file__).parent
TAUS = (0.0, 0.1, 0.2, 0.5, 1.0)
KS = (3, 5, 10, 20)
DRAWS = 1000
PROB = 0.95

#: Candidate priors: name -> (family, scale from the folds' variances s2). "pooled" is tau = 0.
Rule = Callable[[np.ndarray], float]
CANDIDATES: dict[str, tuple[str, Rule] | None] = {
    "pooled (tau = 0)": None,
    "HN(0.5) (old default)": ("half_normal", lambda s2: 0.5),
    "HN(s)": ("half_normal", lambda s2: math.sqrt(rem.typical_variance(s2))),
    "HC(0.5)": ("half_cauchy", lambda s2: 0.5),
    "HC(s/2)": ("half_cauchy", lambda s2: 0.5 * math.sqrt(rem.typical_variance(s2))),
    "HC(s)": ("half_cauchy", lambda s2: math.sqrt(rem.typical_variance(s2))),
    "HC(2s)": ("half_cauchy", lambda s2: 2 * math.sqrt(rem.typical_variance(s2))),
}


def hdi(x: np.ndarray, prob: float = PROB) -> tuple[float, float]:
    """Shortest interval holding ``prob`` of the sorted draws."""
    s = np.sort(x)
    m = int(math.ceil(prob * s.size))
    i = int(np.argmin(s[m - 1 :] - s[: s.size - m + 1]))
    return float(s[i]), float(s[i + m - 1])


def expit(z: np.ndarray) -> np.ndarray:
    return rem.from_scale(z, "logit")


def one_replicate(
    k: int, tau: float, rng: np.random.Generator, names: list[str]
) -> dict[str, tuple[bool, float, bool]]:
    """(covers the population mean, width, predictive covers the new fold) per candidate."""
    n = math.exp(rng.uniform(math.log(100), math.log(1000)))
    nk = n * rng.uniform(0.8, 1.2, k)
    mu = float(rem.to_scale(np.array([rng.uniform(0.65, 0.9)]), "logit")[0])
    theta = mu + tau * rng.standard_normal(k)
    f = expit(theta)
    s2 = 1.0 / (nk * f * (1 - f))
    y = theta + np.sqrt(s2) * rng.standard_normal(k)
    truth = float(rem.population_mean(np.array([mu]), np.array([tau]), "logit")[0])
    new_fold = float(expit(np.array([mu + tau * rng.standard_normal()]))[0])
    gen = np.random.Generator(np.random.PCG64(int(rng.integers(2**63))))
    z_new = gen.standard_normal(DRAWS)
    out: dict[str, tuple[bool, float, bool]] = {}
    w = 1.0 / s2
    fe_mu = float(np.sum(w * y) / w.sum())
    fe_draws = expit(fe_mu + gen.standard_normal(DRAWS) / math.sqrt(w.sum()))
    lo, hi = hdi(fe_draws)
    pooled_width = hi - lo
    for name in names:
        spec = CANDIDATES[name]
        if spec is None:
            agg, new = fe_draws, fe_draws
        else:
            family, rule = spec
            post = rem.tau_posterior(y, s2, rule(s2), prior=family)
            m, t = rem.draw_mu_tau(post, DRAWS, gen)
            agg = rem.population_mean(m, t, "logit")
            new = expit(m + t * z_new)
        lo, hi = hdi(agg)
        plo, phi = hdi(new)
        out[name] = (lo <= truth <= hi, (hi - lo) / pooled_width, plo <= new_fold <= phi)
    return out


def part1(reps: int, seed: int, ks: tuple[int, ...] = KS) -> list[dict[str, Any]]:
    rows = []
    names = list(CANDIDATES)
    for k in ks:
        for tau in TAUS:
            rng = np.random.default_rng([seed, k, int(round(tau * 1000))])
            acc: dict[str, list[tuple[bool, float, bool]]] = {n: [] for n in names}
            t0 = time.perf_counter()
            for _ in range(reps):
                for n, v in one_replicate(k, tau, rng, names).items():
                    acc[n].append(v)
            for n in names:
                a = np.array(acc[n], dtype=float)
                rows.append(
                    dict(
                        k=k,
                        tau=tau,
                        prior=n,
                        reps=reps,
                        coverage=float(a[:, 0].mean()),
                        width_ratio=float(a[:, 1].mean()),
                        predictive_coverage=float(a[:, 2].mean()),
                    )
                )
            print(f"K={k:2d} tau={tau:4.2f}: {time.perf_counter() - t0:5.1f} s", flush=True)
    return rows


def _symmetric_tables(acc: np.ndarray, m: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """(K, m, m) tables of n documents, classes equally likely, each class right with
    probability ``acc_k`` and otherwise wrong uniformly: the true macro-F1 is ``acc_k``."""
    k = acc.size
    out = np.zeros((k, m, m))
    per = rng.multinomial(n, np.full(m, 1.0 / m), size=k)
    for i in range(k):
        for j in range(m):
            p = np.full(m, (1 - acc[i]) / (m - 1))
            p[j] = acc[i]
            out[i, j] = rng.multinomial(per[i, j], p)
    return out


def part2(reps: int, seed: int, new_rule: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    mu = float(rem.to_scale(np.array([0.9]), "logit")[0])
    for tau in (0.0, 0.5, 1.0):
        truth = float(rem.population_mean(np.array([mu]), np.array([tau]), "logit")[0])
        rng = np.random.default_rng([seed, 2, int(tau * 1000)])
        res: dict[str, list[tuple[bool, float]]] = {"old": [], "new": [], "pooled": []}
        for r in range(reps):
            acc = expit(mu + tau * rng.standard_normal(5))
            t = _symmetric_tables(acc, 10, 360, rng)
            runs = {
                "old": dict(tau_scale=0.5, tau_prior="half_normal"),
                "new": new_rule,
                "pooled": dict(method="pooled"),
            }
            for name, kw in runs.items():
                a = aggregate(t, metric="macro_f1", draws=4000, rng=r, **kw)
                lo, hi = a.summary.hdi
                res[name].append((bool(lo <= truth <= hi), float(hi - lo)))
        for name, v in res.items():
            a = np.array(v, dtype=float)
            rows.append(
                dict(
                    tau=tau,
                    method=name,
                    reps=reps,
                    coverage=float(a[:, 0].mean()),
                    width=float(a[:, 1].mean()),
                )
            )
        print(f"end to end tau={tau}: done", flush=True)
    return rows


def markdown(
    rows: list[dict[str, Any]],
    rows2: list[dict[str, Any]],
    meta: dict[str, Any],
    meta2: dict[str, Any],
) -> str:
    names = list(CANDIDATES)
    lines = [
        "# The prior of tau: coverage and width",
        "",
        f"{DRAWS} draws a replicate; 95% HDIs. Runs (K: replicates per cell, time, load "
        "average at the start / end, on a shared machine):",
        "",
    ]
    for m in meta["parts"]:
        lines.append(
            f"- K = {', '.join(map(str, m['ks']))}: {m['reps']} replicates, "
            f"{m['seconds']:.0f} s on {m['machine']['cores']} cores, load "
            f"{m['machine']['load_average'][0]:.2f} / {m['load_end']:.2f}"
        )
    lines.append("")
    ks = sorted({r["k"] for r in rows})
    for what, key in (
        ("Coverage of the population mean", "coverage"),
        ("Width relative to pooling (mean ratio)", "width_ratio"),
        ("Coverage of the predictive (a new fold)", "predictive_coverage"),
    ):
        lines += [f"## {what}", "", "| K | tau | " + " | ".join(names) + " |"]
        lines.append("|---:|---:|" + "---:|" * len(names))
        for k in ks:
            for tau in TAUS:
                cell = {r["prior"]: r[key] for r in rows if r["k"] == k and r["tau"] == tau}
                fmt = "{:.3f}" if key != "width_ratio" else "{:.2f}"
                lines.append(
                    f"| {k} | {tau:g} | " + " | ".join(fmt.format(cell[n]) for n in names) + " |"
                )
        lines.append("")
    if rows2:
        lines += [
            "## End to end: 5 folds of 10 classes, 360 documents each",
            "",
            f"{meta2['reps']} replicates per row; `aggregate(..., draws=4000)`; "
            f"{meta2['seconds']:.0f} s, load {meta2['machine']['load_average'][0]:.2f} "
            f"(start) / {meta2['load_end']:.2f} (end).",
            "",
            "| tau | method | coverage | mean HDI width |",
            "|---:|---|---:|---:|",
        ]
        for r in rows2:
            lines.append(
                f"| {r['tau']:g} | {r['method']} | {r['coverage']:.3f} | {r['width']:.4f} |"
            )
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="few replicates (a smoke run)")
    ap.add_argument("--reps", type=int, default=None, help="replicates per cell (part 1)")
    ap.add_argument("--reps2", type=int, default=None, help="replicates per cell (part 2)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--ks", default=",".join(map(str, KS)),
                    help="numbers of folds of part 1, comma-separated (one results file each "
                    "run; the report merges them)")  # fmt: skip
    ap.add_argument("--part", choices=["1", "2", "both", "report"], default="both",
                    help="run part 1, part 2 or both (each writes its own JSON file), or only "
                    "write the report from the JSON files")  # fmt: skip
    args = ap.parse_args()
    reps = args.reps or (40 if args.quick else 200)
    ks = tuple(int(x) for x in args.ks.split(","))
    reps2 = args.reps2 or (10 if args.quick else 200)
    suffix = "_quick" if args.quick else ""
    out = HERE / "results" / f"aggregate_calibration{suffix}"
    out2 = HERE / "results" / f"aggregate_calibration_e2e{suffix}.json"
    if args.part in ("1", "both"):
        info, t0 = machine(), time.perf_counter()
        rows = part1(reps, args.seed, ks)
        meta = dict(reps=reps, draws=DRAWS, seconds=time.perf_counter() - t0, machine=info)
        meta["ks"] = list(ks)
        meta["load_end"] = os.getloadavg()[0]
        one = out.parent / f"{out.name}_k{'_'.join(map(str, ks))}.json"
        one.write_text(json.dumps(dict(meta=meta, rows=rows), indent=1))
    if args.part in ("2", "both"):
        info, t0 = machine(), time.perf_counter()
        rows2 = part2(reps2, args.seed, dict(tau_scale="auto"))
        meta2 = dict(reps=reps2, seconds=time.perf_counter() - t0, machine=info)
        meta2["load_end"] = os.getloadavg()[0]
        out2.write_text(json.dumps(dict(meta=meta2, rows=rows2), indent=1))
    parts = [json.loads(f.read_text()) for f in sorted(out.parent.glob(f"{out.name}_k*.json"))]
    rows = sorted((r for p in parts for r in p["rows"]), key=lambda r: (r["k"], r["tau"]))
    meta = dict(parts=[p["meta"] for p in parts])
    two = json.loads(out2.read_text()) if out2.exists() else dict(meta={}, rows=[])
    out.with_suffix(".json").write_text(
        json.dumps(dict(meta=meta, rows=rows, end_to_end=two), indent=1) + "\n"
    )
    out.with_suffix(".md").write_text(markdown(rows, two["rows"], meta, two["meta"]))
    print(out.with_suffix(".md").read_text())


if __name__ == "__main__":
    main()
