"""The prior of ``tau`` in the random-effects aggregate: coverage against width, by simulation.

Part 1 (the normal-normal model; the prior of ``tau`` is all that changes). Each
replicate draws K folds from a known truth on the logit scale::

    theta_k = mu + tau z_k,   z_k ~ N(0, 1)              each fold's true metric
    y_k ~ N(theta_k, s_k^2),   s_k^2 = 1 / (n_k F_k (1 - F_k)),   F_k = expit(theta_k)

``s_k^2`` is the posterior variance of logit(macro-F1) of a fold of ``n_k`` documents
(checked against the core posterior on symmetric 2-, 5- and 10-class tables of 100 to
1,000 documents: the factor is 0.9 to 1.3). Per replicate the typical fold size ``n`` is
log-uniform on [100, 1000], the folds' sizes are ``n`` times U(0.8, 1.2), and the mean
metric ``expit(mu)`` is U(0.65, 0.9); tau in {0, 0.1, 0.2, 0.5, 1} and K in {3, 5, 10,
20}. Every candidate prior sees the same replicates. The candidates: half-normal(0.5)
(the earlier default), half-normal(s) and half-Cauchy(c s) for c = 1/2, 1, 2, with ``s``
the folds' typical within-fold standard deviation (Higgins & Thompson), and
half-Cauchy(0.5) (Gelman 2006; Roever et al. 2021). Measured, per (tau, K) and prior:

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

Run: python benchmarks/aggregate_calibration.py [--quick] [--part 1|2|both|report]
     [--ks 3,5] [--reps N] [--seed S] [--priors "HC(3s);HC(4s)"] [--multiple C]
 ->  one JSON file per part-1 run (aggregate_calibration_k<K>_s<seed>[_extra].json) and
     per part-2 run (aggregate_calibration_e2e_<rows>_c<C>.json); every run then merges
     all of them (cells of several seeds pooled, weighted by replicates) into
     benchmarks/results/aggregate_calibration.json and .md, with the choice of the rule
     (``choose``). The figures in docs/aggregation.md came from: --ks 3,5,10 and --ks 20
     (seed 2026, 200 replicates), --ks 3,5 --reps 600 and --ks 10,20 (seed 2027), the
     same with --priors "HC(3s);HC(4s)", and --part 2 for c = 1, 2, 3.
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
    "HC(3s)": ("half_cauchy", lambda s2: 3 * math.sqrt(rem.typical_variance(s2))),
    "HC(4s)": ("half_cauchy", lambda s2: 4 * math.sqrt(rem.typical_variance(s2))),
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


def part1(
    reps: int, seed: int, ks: tuple[int, ...] = KS, names: list[str] | None = None
) -> list[dict[str, Any]]:
    rows = []
    names = list(CANDIDATES) if names is None else names
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


def merge(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per (K, tau, prior): runs of other seeds pooled, weighted by replicates."""
    cells: dict[tuple[int, float, str], list[dict[str, Any]]] = {}
    for r in rows:
        cells.setdefault((r["k"], r["tau"], r["prior"]), []).append(r)
    out = []
    for (k, tau, prior), rs in sorted(cells.items(), key=lambda c: c[0][:2]):
        n = sum(r["reps"] for r in rs)
        row: dict[str, Any] = dict(k=k, tau=tau, prior=prior, reps=n)
        for key in ("coverage", "width_ratio", "predictive_coverage"):
            row[key] = sum(r[key] * r["reps"] for r in rs) / n
        out.append(row)
    return out


#: The choice: coverage of the population mean at least FLOOR (less 2 binomial standard
#: errors of the cell) wherever some candidate reaches FLOOR; then the narrowest at tau = 0.
FLOOR = 0.93


def choose(rows: list[dict[str, Any]]) -> tuple[str | None, list[str]]:
    """The rule's choice among the random-effects candidates measured in every cell, and
    the reasons each other candidate was not chosen."""
    cells: dict[tuple[int, float], dict[str, dict[str, Any]]] = {}
    for r in rows:
        cells.setdefault((r["k"], r["tau"]), {})[r["prior"]] = r
    names = [n for n, spec in CANDIDATES.items() if spec is not None]
    names = [n for n in names if all(n in c for c in cells.values())]
    notes, passing = [], []
    for n in names:
        fails = []
        for (k, tau), c in sorted(cells.items()):
            best = max(c[m]["coverage"] for m in names)
            reps = c[n]["reps"]
            tol = 2 * math.sqrt(FLOOR * (1 - FLOOR) / reps)
            need = FLOOR - tol
            if best >= FLOOR and c[n]["coverage"] < need:
                fails.append(f"K={k}, tau={tau:g}: {c[n]['coverage']:.3f} < {need:.3f}")
        if fails:
            notes.append(f"{n}: under-covers at " + "; ".join(fails))
        else:
            passing.append(n)
    if not passing:
        return None, notes
    width = {
        n: float(np.mean([c[n]["width_ratio"] for (k, tau), c in cells.items() if tau == 0]))
        for n in passing
    }
    for n in passing:
        notes.append(f"{n}: covers; mean width ratio at tau = 0 over K: {width[n]:.2f}")
    return min(passing, key=width.__getitem__), notes


LABELS = {"old": "half-normal(0.5) (earlier default)", "pooled": "pooled"}


def merge_e2e(files: list[Path]) -> dict[str, Any]:
    """The end-to-end runs in one table: rows labelled by their prior, runs listed."""
    rows, metas = [], []
    for f in files:
        d = json.loads(f.read_text())
        c = d["meta"].get("multiple", 1.0)
        metas.append(d["meta"])
        for r in d["rows"]:
            label = LABELS.get(r["method"], f"half-Cauchy({c:g} s)")
            rows.append({**r, "method": label})
    rows.sort(key=lambda r: (r["tau"], r["method"]))
    return dict(meta=dict(parts=metas), rows=rows)


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


def part2(
    reps: int, seed: int, new_rule: dict[str, Any], methods: tuple[str, ...]
) -> list[dict[str, Any]]:
    rows = []
    mu = float(rem.to_scale(np.array([0.9]), "logit")[0])
    for tau in (0.0, 0.5, 1.0):
        truth = float(rem.population_mean(np.array([mu]), np.array([tau]), "logit")[0])
        rng = np.random.default_rng([seed, 2, int(tau * 1000)])
        res: dict[str, list[tuple[bool, float]]] = {m: [] for m in methods}
        for r in range(reps):
            acc = expit(mu + tau * rng.standard_normal(5))
            t = _symmetric_tables(acc, 10, 360, rng)
            runs = {
                "old": dict(tau_scale=0.5, tau_prior="half_normal"),
                "new": new_rule,
                "pooled": dict(method="pooled"),
            }
            for name in methods:
                kw = runs[name]
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
        f"{DRAWS} draws a replicate; 95% HDIs; each cell pools the runs below (binomial "
        "SE of a coverage near 0.95: 0.015 at 200 replicates, 0.0077 at 800). Runs (K, "
        "seed: replicates per cell, time, load average at the start / end, on a shared "
        "machine):",
        "",
    ]
    for m in meta["parts"]:
        lines.append(
            f"- K = {', '.join(map(str, m['ks']))}, seed {m.get('seed', 2026)}: "
            f"{m['reps']} replicates{' of ' + m['only'] if m.get('only') else ''}, "
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
                vals = (fmt.format(cell[n]) if n in cell else "" for n in names)
                lines.append(f"| {k} | {tau:g} | " + " | ".join(vals) + " |")
        lines.append("")
    chosen, notes = choose(rows)
    lines += [
        "## The choice",
        "",
        f"Rule: coverage of the population mean at least {FLOOR} (less 2 binomial SE of the "
        f"cell) in every cell where some candidate reaches {FLOOR}; then the narrowest at "
        "tau = 0 (mean width ratio over K). Candidates measured in every cell:",
        "",
        *[f"- {x}" for x in notes],
        "",
        f"Chosen: **{chosen}**.",
        "",
    ]
    if rows2:
        lines += [
            "## End to end: 5 folds of 10 classes, 360 documents each",
            "",
            f"{meta2['parts'][0]['reps']} replicates per row; `aggregate(..., draws=4000)`; "
            + "; ".join(
                f"a run of {m['seconds']:.0f} s, load {m['machine']['load_average'][0]:.2f} "
                f"(start) / {m['load_end']:.2f} (end)"
                for m in meta2["parts"]
            )
            + ".",
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
    ap.add_argument("--multiple", type=float, default=None,
                    help="part 2: the multiple c of the default rule's scale c s to run as "
                    "'new' (default: the package's)")  # fmt: skip
    ap.add_argument("--methods", default="old,new,pooled", help="part 2: rows to run")
    ap.add_argument("--priors", default=None,
                    help="candidate priors of part 1, separated by ';' (default all)")  # fmt: skip
    args = ap.parse_args()
    reps = args.reps or (40 if args.quick else 200)
    ks = tuple(int(x) for x in args.ks.split(","))
    reps2 = args.reps2 or (10 if args.quick else 200)
    suffix = "_quick" if args.quick else ""
    out = HERE / "results" / f"aggregate_calibration{suffix}"
    out2 = HERE / "results" / f"aggregate_calibration_e2e{suffix}.json"
    if args.part in ("1", "both"):
        info, t0 = machine(), time.perf_counter()
        names = None if args.priors is None else args.priors.split(";")
        rows = part1(reps, args.seed, ks, names)
        meta = dict(reps=reps, draws=DRAWS, seconds=time.perf_counter() - t0, machine=info)
        meta["ks"], meta["seed"] = list(ks), args.seed
        meta["load_end"] = os.getloadavg()[0]
        tag = "" if names is None else "_extra"
        one = out.parent / f"{out.name}_k{'_'.join(map(str, ks))}_s{args.seed}{tag}.json"
        one.write_text(json.dumps(dict(meta=meta, rows=rows), indent=1))
    if args.part in ("2", "both"):
        info, t0 = machine(), time.perf_counter()
        if args.multiple is not None:
            rem.DEFAULT_TAU_MULTIPLE = args.multiple
        methods = tuple(args.methods.split(","))
        rows2 = part2(reps2, args.seed, dict(tau_scale="auto"), methods)
        meta2 = dict(reps=reps2, seconds=time.perf_counter() - t0, machine=info)
        meta2["multiple"] = rem.DEFAULT_TAU_MULTIPLE
        meta2["load_end"] = os.getloadavg()[0]
        tag = f"{'_'.join(methods)}_c{rem.DEFAULT_TAU_MULTIPLE:g}"
        (out2.parent / f"{out2.stem}_{tag}.json").write_text(
            json.dumps(dict(meta=meta2, rows=rows2), indent=1)
        )
    parts = []
    for f in sorted(out.parent.glob(f"{out.name}_k*.json")):
        parts.append(json.loads(f.read_text()))
        parts[-1]["meta"]["only"] = "HC(3s), HC(4s)" if f.stem.endswith("_extra") else ""
    rows = merge([r for p in parts for r in p["rows"]])
    meta = dict(parts=[p["meta"] for p in parts])
    two = merge_e2e(sorted(out2.parent.glob(f"{out2.stem}_*.json")))
    out.with_suffix(".json").write_text(
        json.dumps(dict(meta=meta, rows=rows, end_to_end=two), indent=1) + "\n"
    )
    out.with_suffix(".md").write_text(markdown(rows, two["rows"], meta, two["meta"]))
    print(out.with_suffix(".md").read_text())


if __name__ == "__main__":
    main()
