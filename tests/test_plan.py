"""Planning the test set: assurance against independent truths.

The exact truth for per-class recall of a binary table under the default
("adaptive") prior, computed here without the package: with two classes the
prior is alpha = 1/2 in every cell and beta = 1/2, so

    mu_1 | C ~ Beta(1/2 + n_1, 1/2 + n_0),  recall_j | C ~ Beta(1/2 + c_jj, 1/2 + c_jk);

n more documents give n_1 ~ BetaBinomial(n, .) new documents of class 1 and
tp_j ~ BetaBinomial(n_j, .) new true positives, and the future posterior of
recall_j is again a Beta whose tail decides the verdict. Summing over n_1 and
tp_j gives the assurance exactly (scipy), to compare with plan's
simulated curve within its binomial Monte Carlo error.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

stats = pytest.importorskip("scipy.stats")
special = pytest.importorskip("scipy.special")

from f1posterior import Floor, gate, plan  # noqa: E402
from f1posterior.gating._plan_result import CurvePoint, PlanResult  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TABLE = [[45, 5], [8, 42]]  # recall 0.90 and 0.84 against a floor of 0.8: inconclusive


def _betabinom_pmf(k: np.ndarray, n: np.ndarray, a: float, b: float) -> np.ndarray:
    lg = special.gammaln
    log = lg(n + 1) - lg(k + 1) - lg(n - k + 1) + special.betaln(k + a, n - k + b)
    return np.exp(log - special.betaln(a, b))


def _class_outcomes(n: int, a: float, b: float, t: float, prob: float) -> np.ndarray:
    """P(pass), P(fail) of a recall floor after m = 0..n more documents of the class, (2, n+1)."""
    m = np.arange(n + 1)[:, None]
    tp = np.arange(n + 1)[None, :]
    valid = tp <= m
    tp_ = np.where(valid, tp, 0)
    w = np.where(valid, _betabinom_pmf(tp_, m, a, b), 0.0)
    p = special.betainc(b + m - tp_, a + tp_, 1.0 - t)  # the Beta(a + tp, b + m - tp) tail
    return np.stack([(w * (p >= prob)).sum(axis=1), (w * (1.0 - p >= prob)).sum(axis=1)])


def exact_recall_assurance(
    counts: list[list[int]], n: int, t: float, prob: float = 0.95, require: str = "every"
) -> float:
    """Exact P(conclusive) of the per-class recall floors after n more documents."""
    c = np.asarray(counts, dtype=float)
    rows = c.sum(axis=1)
    (p0, f0), (p1, f1) = (
        _class_outcomes(n, 0.5 + c[j, j], 0.5 + rows[j] - c[j, j], t, prob) for j in range(2)
    )
    k = np.arange(n + 1)  # new documents of class 1; n - k of class 0
    w = stats.betabinom.pmf(k, n, 0.5 + rows[1], 0.5 + rows[0])
    assert np.isclose(w.sum(), 1.0)
    p0, f0 = p0[n - k], f0[n - k]
    p1, f1 = p1[k], f1[k]
    if require == "every":
        ok = (p0 + f0) * (p1 + f1)
    else:  # any FAIL, or both PASS
        ok = 1.0 - ((1.0 - f0) * (1.0 - f1) - p0 * p1)
    return float(np.sum(w * ok))


# --- (a) already conclusive ------------------------------------------------------------


@pytest.mark.parametrize(
    ("counts", "floor", "verdict"),
    [([[90, 10], [5, 95]], 0.5, "pass"), ([[60, 40], [45, 55]], 0.9, "fail")],
)
def test_already_conclusive_needs_no_documents(counts, floor, verdict) -> None:
    res = plan(counts, metric="micro_f1", threshold=floor)
    assert res.current_verdict == verdict
    assert res.additional_documents == 0 and res.reached
    assert res.curve == (CurvePoint(0, 1.0, 0.0),)
    assert "already conclusive" in str(res) and verdict.upper() in res.summary


# --- (b) against the exact assurance ---------------------------------------------------


@pytest.mark.parametrize("require", ["every", "overall"])
def test_curve_matches_exact_assurance(require: str) -> None:
    res = plan(TABLE, metric="recall", threshold=0.8, simulations=600, rng=7, require=require)
    assert res.current_verdict == "inconclusive"
    assert res.curve[0] == CurvePoint(0, 0.0, 0.0)
    checked = 0
    for pt in res.curve[1:]:
        if pt.documents > 2600:
            continue
        truth = exact_recall_assurance(TABLE, pt.documents, 0.8, require=require)
        se = math.sqrt(max(truth * (1 - truth), 1e-4) / res.simulations)
        assert abs(pt.assurance - truth) <= 4 * se, (pt, truth)
        assert pt.undecided == 0.0  # recall is exact: no Monte Carlo noise per table
        checked += 1
    assert checked >= 5


def test_exact_truth_detects_a_wrong_sample_size() -> None:
    # the comparison above can fail: the curve at n does not match the truth at 4n
    res = plan(TABLE, metric="recall", threshold=0.8, simulations=600, rng=7)
    pt = next(p for p in res.curve if p.documents == 160)
    truth = exact_recall_assurance(TABLE, 640, 0.8)
    assert abs(pt.assurance - truth) > 4 * math.sqrt(truth * (1 - truth) / 600)


def test_chosen_size_achieves_the_exact_assurance() -> None:
    res = plan(TABLE, metric="recall", threshold=0.75, simulations=600, rng=3)
    n = res.additional_documents
    assert n is not None and 0 < n < 2000
    truth = exact_recall_assurance(TABLE, n, 0.75)
    assert truth >= res.assurance - 4 * math.sqrt(0.16 / 600), (n, truth)
    # the bisection stopped within 10%: 10% fewer documents than the last failure fall short
    lo = max(p.documents for p in res.curve if p.documents < n)
    assert exact_recall_assurance(TABLE, lo, 0.75) < truth
    below = [p for p in res.curve if 0 < p.documents < n]
    assert all(p.assurance < res.assurance for p in below)


# --- (c) a score at the floor needs far more documents ---------------------------------


def test_score_at_floor_needs_more_than_score_above() -> None:
    at = plan(TABLE, metric="recall", threshold=0.84, simulations=300, rng=5)
    above = plan(TABLE, metric="recall", threshold=0.75, simulations=300, rng=5)
    assert above.current_verdict == at.current_verdict == "inconclusive"
    assert above.additional_documents is not None
    assert at.additional_documents is None or at.additional_documents >= 5 * (
        above.additional_documents
    )


def test_not_reached_by_the_cap() -> None:
    res = plan(TABLE, metric="recall", threshold=0.84, simulations=200, max_documents=300, rng=5)
    assert not res.reached and res.additional_documents is None
    assert res.curve[-1].documents == 300
    assert res.curve[-1].assurance < 0.8
    assert "Not reached by the cap" in res.summary


# --- (d) re-simulated with an independent seed and independent code -------------------


def _independent_assurance(counts, n, floor, seed, s, **gate_kw) -> tuple[float, float]:
    """Posterior parameters by numpy's Dirichlet, future tables, then the gate itself."""
    rng = np.random.default_rng(seed)
    c = np.asarray(counts, dtype=float)
    m = c.shape[0]
    if gate_kw.get("beta") == "aligned":  # one Dirichlet over the cells
        p = rng.dirichlet((1.0 + c).ravel(), size=s)
    else:  # adaptive prior, M = 2: alpha = 1/2, beta = 1/2
        mu = rng.dirichlet(0.5 + c.sum(axis=1), size=s)
        theta = np.stack([rng.dirichlet(0.5 + c[j], size=s) for j in range(m)], axis=1)
        p = (mu[:, :, None] * theta).reshape(s, -1)
    future = c + rng.multinomial(n, p).reshape(s, m, m)
    res = gate(future, [Floor("micro_f1", floor)], **gate_kw)
    ok = np.mean([ch.verdict != "inconclusive" for ch in res.checks])
    return float(ok), math.sqrt(ok * (1 - ok) / s)


def test_chosen_size_achieves_assurance_when_resimulated_exact_gate() -> None:
    kw = dict(alpha=1.0, beta="aligned")
    res = plan(TABLE, metric="micro_f1", threshold=0.82, simulations=400, rng=11, **kw)
    n = res.additional_documents
    assert n is not None and n > 0
    ok, se = _independent_assurance(TABLE, n, 0.82, 2024, 2000, **kw)
    assert ok >= 0.8 - 3 * math.hypot(se, math.sqrt(0.16 / 400)), (n, ok)
    # and half as many documents fall short
    low, se_low = _independent_assurance(TABLE, n // 2, 0.82, 2025, 2000, **kw)
    assert low < ok


def test_chosen_size_achieves_assurance_when_resimulated_sampled_gate() -> None:
    res = plan(TABLE, metric="micro_f1", threshold=0.82, simulations=200, rng=13)
    n = res.additional_documents
    assert n is not None and n > 0
    ok, se = _independent_assurance(TABLE, n, 0.82, 99, 200, draws=2_000, max_draws=32_000, rng=4)
    assert ok >= 0.8 - 3 * math.hypot(se, math.sqrt(0.16 / 200)), (n, ok)


# --- reproducibility, baseline, Python errors ------------------------------------------


def test_reproducible_and_seed_sequence_not_consumed() -> None:
    seq = np.random.SeedSequence(42)
    a = plan(TABLE, metric="recall", threshold=0.8, simulations=100, rng=seq)
    assert seq.n_children_spawned == 0
    b = plan(TABLE, metric="recall", threshold=0.8, simulations=100, rng=np.random.SeedSequence(42))
    assert a == b and a.seed == 42
    gen = np.random.default_rng(0)
    c = plan(TABLE, metric="recall", threshold=0.8, simulations=100, rng=gen)
    assert isinstance(c, PlanResult)


def test_baseline_plan() -> None:
    base = [[40, 10], [9, 41]]
    res = plan(TABLE, metric="micro_f1", baseline=base, max_drop=0.02, simulations=60,
               draws=1_000, max_draws=4_000, max_documents=5_000, rng=1)  # fmt: skip
    assert res.baseline and res.threshold is None and res.current_verdict == "inconclusive"
    assert any("independent samples" in a for a in res.assumptions)
    assert "new - baseline >= -0.02" in str(res)
    assert res.curve[-1].assurance > res.curve[1].assurance
    d = res.to_dict()
    assert d["settings"]["baseline"] is True and d["settings"]["max_drop"] == 0.02


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (dict(metric="recall"), ValueError, "plan needs a check"),
        (dict(metric="f2", threshold=0.5), ValueError, "metric must name a known metric"),
        (dict(metric="recall", threshold=1.5), ValueError, r"Floor\('recall'\).threshold must be"),
        (dict(metric="recall", threshold=0.8, prob=0.4), ValueError, r"prob must be in \(0.5, 1\)"),
        (dict(metric="recall", threshold=0.8, assurance=1.0), ValueError, "assurance must be in"),
        (dict(metric="recall", threshold=0.8, require="all"), ValueError, "require must be one of"),
        (dict(metric="recall", threshold=0.8, simulations=10), ValueError, "simulations must be"),
        (dict(metric="recall", threshold=0.8, simulations=1.5), TypeError, "simulations must be"),
        (dict(metric="recall", threshold=0.8, max_documents=0), ValueError, "max_documents must"),
        (dict(metric="recall", threshold=0.8, max_draws=150), ValueError, "max_draws must be"),
        (dict(metric="recall", threshold=0.8, rng="x"), TypeError, "rng must be None"),
        (dict(metric="micro_f1", baseline=[[1, 2, 3]]), ValueError, "baseline must be"),
    ],
)
def test_python_errors(kwargs, error, match) -> None:
    with pytest.raises(error, match=match):
        plan(TABLE, **kwargs)


def test_batch_is_refused() -> None:
    with pytest.raises(ValueError, match=r"counts must be one confusion matrix \(M, M\)"):
        plan([TABLE, TABLE], metric="recall", threshold=0.8)
    with pytest.raises(ValueError, match=r"M >= 2 classes .*got shape \(1, 1\)"):
        plan([[10]], metric="recall", threshold=0.8)


# --- (e) the command line --------------------------------------------------------------


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "f1posterior", "plan", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture()
def table_file(tmp_path: Path) -> str:
    path = tmp_path / "cm.json"
    path.write_text(json.dumps({"matrix": TABLE, "labels": ["cat", "dog"]}))
    return str(path)


def test_cli_text(table_file: str) -> None:
    r = cli(table_file, "--metric", "recall", "--min", "0.8", "--simulations", "200")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[1].startswith("Plan: recall >= 0.8 (every class)")
    assert "Now: INCONCLUSIVE on 100 documents" in r.stdout
    assert "seed 20150927" in r.stdout
    header = next(i for i, x in enumerate(lines) if "P(conclusive)" in x)
    assert lines[header + 1].split()[:2] == ["0", "0.000"]
    chosen = [x for x in lines if x.endswith("<-")]
    assert len(chosen) == 1 and "#" in chosen[0]
    assert lines[-1].startswith("About ") and "more documents" in lines[-1]
    same = cli(table_file, "--metric", "recall", "--min", "0.8", "--simulations", "200")
    assert same.stdout == r.stdout


def test_cli_json(table_file: str) -> None:
    r = cli(table_file, "--metric", "recall", "--min", "0.8", "--simulations", "200",
            "--format", "json", "--seed", "3")  # fmt: skip
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    py = plan(TABLE, metric="recall", threshold=0.8, simulations=200, rng=3, source=table_file)
    assert {k: v for k, v in d.items() if k != "receipt"} == json.loads(json.dumps(py.to_dict()))
    assert d["receipt"]["seed"] == 3 and d["receipt"]["command"] == "plan"
    assert d["additional_documents"] > 0 and d["seed"] == 3
    assert set(d["curve"][0]) == {"documents", "assurance", "mc_error", "undecided"}
    assert d["settings"]["assurance"] == 0.8 and d["settings"]["prior"].startswith("hierarchical")


def test_cli_already_conclusive_and_not_reached(table_file: str) -> None:
    r = cli(table_file, "--metric", "micro_f1", "--min", "0.5", "--format", "json")
    assert r.returncode == 0 and json.loads(r.stdout)["additional_documents"] == 0
    r = cli(table_file, "--metric", "recall", "--min", "0.84", "--max-documents", "100",
            "--simulations", "100")  # fmt: skip
    assert r.returncode == 3 and "Not reached by the cap" in r.stdout


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (["--metric", "recall"], "nothing to plan for"),
        (["--metric", "recall", "--min", "0.8", "--assurance", "1.5"], "--assurance"),
        (["--metric", "recall", "--min", "0.8", "--prob", "0.3"], "prob must be in"),
        (["--metric", "recall", "--min", "2"], "--min"),
        (["--metric", "nope", "--min", "0.8"], "--metric"),
        (["--min", "0.8"], "--metric"),
        (["--metric", "recall", "--min", "0.8", "--simulations", "5"], "simulations must be"),
        (["--metric", "recall", "--min", "0.8", "--max-documents", "0"], "--max-documents"),
    ],
)
def test_cli_bad_arguments_exit_2_one_line(table_file: str, args, match) -> None:
    r = cli(table_file, *args)
    assert r.returncode == 2
    assert r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    assert match in r.stderr


def test_cli_bad_inputs_exit_2_one_line(tmp_path: Path) -> None:
    batch = tmp_path / "b.jsonl"
    batch.write_text(json.dumps(TABLE) + "\n" + json.dumps(TABLE) + "\n")
    r = cli(str(batch), "--metric", "recall", "--min", "0.8")
    assert r.returncode == 2 and "plan takes one confusion matrix" in r.stderr
    r = cli(str(tmp_path / "missing.json"), "--metric", "recall", "--min", "0.8")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1


def test_exact_helper_matches_scipy_stats() -> None:
    k = np.arange(31)
    assert np.allclose(
        _betabinom_pmf(k, np.full(31, 30), 2.5, 3.5), stats.betabinom.pmf(k, 30, 2.5, 3.5)
    )
    assert np.isclose(special.betainc(3.5, 2.5, 0.3), stats.beta.sf(0.7, 2.5, 3.5))
