"""The gate's verdicts against exact probabilities, noise detection, and assert_gate."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, stats

from f1posterior import Floor, JointFloor, NonInferiority
from f1posterior._core.priors import adaptive_alpha
from f1posterior._core.streams import DEFAULT_SEED
from f1posterior.gating._gate import assert_gate, gate
from f1posterior.gating._noise import noise

NEW = np.array([[40, 10], [5, 45]])
BASE = np.array([[38, 12], [6, 44]])
# beta a hair off alignment: the same posterior to 1e-9, but no closed form is used
NEAR_ALIGNED = dict(alpha=1.0, beta=np.array([2.0, 2.0]) * (1 + 1e-9))
# The closed forms below hold for any alpha under an aligned beta: each test runs under the
# paper's alpha = 1 and under the default's "adaptive" alpha (an array that depends on the
# table, computed here with adaptive_alpha, independently of the resolver).
ALPHAS = [1.0, "adaptive"]


def _conc(counts: np.ndarray, alpha: float | str) -> np.ndarray:
    """A = alpha + C, the one Dirichlet of the aligned prior."""
    c = np.asarray(counts, dtype=float)
    return (adaptive_alpha(c) if alpha == "adaptive" else np.full(c.shape, alpha)) + c


def _micro(counts: np.ndarray, alpha: float | str):
    """micro-F1 ~ Beta(trace A, sum A - trace A) (aggregation property)."""
    a = _conc(counts, alpha)
    return stats.beta(np.trace(a), a.sum() - np.trace(a))


def _near_aligned(counts: np.ndarray, alpha: float | str) -> dict:
    a = _conc(counts, alpha) - counts
    return dict(alpha=a, beta=a.sum(axis=-1) * (1 + 1e-9))


def test_default_seed_is_the_gates_and_the_clis() -> None:
    import inspect

    from f1posterior.cli import build_parser
    from f1posterior.cli._gate_config import CONFIG_DEFAULTS

    assert inspect.signature(gate).parameters["rng"].default == DEFAULT_SEED == 20150927
    assert CONFIG_DEFAULTS["seed"] == DEFAULT_SEED
    for argv in (["summarize", "x.csv"], ["plan", "x.csv", "--metric", "macro_f1"]):
        assert build_parser().parse_known_args(argv)[0].seed == DEFAULT_SEED, argv


@pytest.mark.parametrize(
    ("alpha", "verdicts"), [(1.0, [False, False, True]), ("adaptive", [False, False, True])]
)
def test_exact_min_check_equals_scipy(alpha: float | str, verdicts: list[bool]) -> None:
    res = gate(
        NEW,
        [Floor("micro_f1", 0.8), Floor("recall", 0.7)],
        alpha=alpha,
        beta="aligned",
        labels=["a", "b"],
    )
    c = res.checks
    a = _conc(NEW, alpha)
    if alpha == 1.0:
        assert (np.trace(a), a.sum() - np.trace(a), a[0, 0], a[0, 1]) == (87, 17, 41, 11)
    assert [x.item for x in c] == ["", "class a", "class b"]
    assert c[0].exact and c[0].mc_error == 0
    assert c[0].prob == pytest.approx(_micro(NEW, alpha).sf(0.8), rel=1e-12)
    assert c[1].prob == pytest.approx(stats.beta(a[0, 0], a[0, 1]).sf(0.7), rel=1e-12)
    assert c[2].prob == pytest.approx(stats.beta(a[1, 1], a[1, 0]).sf(0.7), rel=1e-12)
    assert [x.passed for x in c] == verdicts
    assert verdicts == [  # the verdicts follow from the scipy probabilities
        _micro(NEW, alpha).sf(0.8) >= 0.95,
        stats.beta(a[0, 0], a[0, 1]).sf(0.7) >= 0.95,
        stats.beta(a[1, 1], a[1, 0]).sf(0.7) >= 0.95,
    ]
    assert not res.passed


@pytest.mark.parametrize("alpha", ALPHAS)
def test_sampled_min_check_agrees_with_exact(alpha: float | str) -> None:
    exact = gate(NEW, [Floor("micro_f1", 0.8)], alpha=alpha, beta="aligned").checks[0]
    near = NEAR_ALIGNED if alpha == 1.0 else _near_aligned(NEW, alpha)
    sampled = gate(NEW, [Floor("micro_f1", 0.8)], draws=40_000, **near).checks[0]
    assert not sampled.exact and sampled.draws == 40_000
    se = np.sqrt(exact.prob * (1 - exact.prob) / 40_000)
    assert sampled.mc_error == pytest.approx(se, rel=0.05)
    assert abs(sampled.prob - exact.prob) < 5 * se
    assert sampled.hdi == pytest.approx(exact.hdi, abs=0.01)


@pytest.mark.parametrize("alpha", ALPHAS)
def test_baseline_probability_against_quadrature(alpha: float | str) -> None:
    d = 0.02
    res = gate(
        NEW,
        [NonInferiority("micro_f1", d)],
        baseline=BASE,
        alpha=alpha,
        beta="aligned",
        draws=40_000,
    )
    (c,) = res.checks
    # micro-F1 of NEW and BASE (alpha = 1: Beta(87, 17) and Beta(84, 20)); an adaptive
    # alpha is each table's own
    x, y = _micro(NEW, alpha), _micro(BASE, alpha)
    truth = integrate.quad(lambda v: y.pdf(v) * x.sf(v - d), 0, 1, epsabs=1e-12)[0]
    assert abs(c.prob - truth) < 5 * np.sqrt(truth * (1 - truth) / 40_000)
    assert c.kind == "baseline" and c.model == "independent posteriors"
    assert c.threshold == -d and c.score == pytest.approx(0.85 - 0.82)
    assert "independent posteriors" in c.text


def test_baseline_draws_are_independent_of_new_draws() -> None:
    """Comparing a matrix with itself: P(diff >= 0) must be about 1/2, not 1 (shared draws)."""
    (c,) = gate(NEW, [NonInferiority("micro_f1")], baseline=NEW, draws=20_000).checks
    assert abs(c.prob - 0.5) < 5 * np.sqrt(0.25 / 20_000)


def test_per_class_baseline_and_batch_items() -> None:
    batch = np.stack([NEW, BASE])
    res = gate(
        batch,
        [Floor("f1", 0.5), NonInferiority("f1")],
        baseline=BASE,
        names=["m1", "m2"],
        labels=["a", "b"],
        draws=2_000,
    )
    items = [c.item for c in res.checks]
    assert items[:4] == ["m1 class a", "m1 class b", "m2 class a", "m2 class b"]
    assert items[4:] == items[:4]


def test_noise_flag_and_draws_to_settle() -> None:
    se, noisy, settle = noise(0.951, 0.95, 10_000)
    assert noisy and se == pytest.approx(np.sqrt(0.951 * 0.049 / 10_000))
    assert settle == 750_000  # 4^2 * 0.951 * 0.049 / 0.001^2 = 745,584, two significant digits
    assert noise(0.99, 0.95, 10_000)[1:] == (False, None)
    assert noise(0.95, 0.95, 10_000)[1:] == (True, None)


@pytest.mark.parametrize("alpha", ALPHAS)
def test_boundary_verdict_is_flagged_within_noise(alpha: float | str) -> None:
    # threshold whose exact probability is 0.95: a sampled verdict cannot be sure
    t = float(_micro(NEW, alpha).isf(0.95))  # alpha = 1: Beta(87, 17)
    near = NEAR_ALIGNED if alpha == 1.0 else _near_aligned(NEW, alpha)
    (c,) = gate(NEW, [Floor("micro_f1", t)], draws=5_000, max_draws=5_000, **near).checks
    assert c.within_noise and (c.draws_to_settle is None or c.draws_to_settle > 5_000)
    assert c.verdict == "inconclusive" and c.reason == "within Monte Carlo noise at 5,000 draws"
    assert c.text.endswith("; within Monte Carlo noise at 5,000 draws")
    # adaptive draws: resolved clear of the noise, or inconclusive at max_draws with the reason
    (a,) = gate(NEW, [Floor("micro_f1", t)], draws=5_000, **near).checks
    assert a.draws > 5_000
    if a.within_noise:
        assert a.draws == 1_000_000 and a.verdict == "inconclusive"
        assert a.reason == "within Monte Carlo noise at 1,000,000 draws"
    (e,) = gate(NEW, [Floor("micro_f1", t)], alpha=alpha, beta="aligned").checks
    assert e.exact and not e.within_noise and e.prob == pytest.approx(0.95, abs=1e-10)


def test_deterministic_verdicts() -> None:
    kw = dict(checks=[Floor("macro_f1", 0.8)], draws=3_000)
    assert gate(NEW, **kw) == gate(NEW, **kw)
    assert gate(NEW, rng=1, **kw).checks[0].prob != gate(NEW, rng=2, **kw).checks[0].prob


def test_renderings() -> None:
    res = gate(
        NEW, [Floor("micro_f1", 0.75), NonInferiority("micro_f1", 0.1)], baseline=BASE, draws=2_000
    )
    d = res.to_dict()
    assert d["passed"] == res.passed and len(d["checks"]) == 2
    assert d["checks"][0]["text"] == res.checks[0].text
    md = res.to_markdown()
    assert md.count("\n| ") == 3 and "micro_f1 >= 0.75" in md
    assert str(res).splitlines()[-1].startswith("GATE PASSED")


def test_assert_gate_pass_and_fail() -> None:
    ok = assert_gate(NEW, [Floor("micro_f1", 0.7)], beta="aligned")
    assert ok.passed
    kw = dict(checks=[Floor("micro_f1", 0.85)], beta="aligned")
    with pytest.raises(AssertionError) as info:
        assert_gate(NEW, **kw)
    assert str(info.value) == str(gate(NEW, **kw))
    # P = 0.45 at the observed score: neither side reaches 0.95 (three-state rule), and
    # assert_gate raises on INCONCLUSIVE as well as on FAIL
    assert "INCONCLUSIVE  micro_f1 >= 0.85" in str(info.value)
    with pytest.raises(AssertionError, match="FAIL  micro_f1 >= 0.95"):
        assert_gate(NEW, [Floor("micro_f1", 0.95)], beta="aligned")


@pytest.mark.parametrize(
    "kwargs,exc,match",
    [
        (dict(checks=[Floor("f2", 0.5)]), ValueError, r"checks\[0\].metric must name a known .*'f2'"),
        (dict(checks=[Floor("micro_f1", 0.5)], multilabel=1), TypeError, "unexpected keyword"),
        (dict(checks=5), TypeError, "checks must be a list of Floor, JointFloor, SliceFloor and"),
        (dict(checks=[("micro_f1", 0.5)]), TypeError, r"checks\[0\] must be a Floor, JointF"),
        (dict(), ValueError, "a gate needs at least one check"),
        (dict(checks=[NonInferiority("micro_f1")]), ValueError, r"needs a baseline .*got none"),
        (dict(checks=[Floor("micro_f1", 0.5)], baseline=BASE), ValueError, "no NonInferiority"),
        (dict(checks=[NonInferiority("micro_f1")], baseline=np.eye(3)), ValueError,
         r"baseline must have the classes .*\(3, 3\)"),
        (dict(checks=[Floor("micro_f1", 0.5)], prob=1.0), ValueError, "prob must be in the open"),
        (dict(checks=[Floor("micro_f1", 0.5)], prob=0.5), ValueError, r"prob must be in \(0.5"),
        (dict(checks=[Floor("micro_f1", 0.5)], names=["a"]), ValueError, "names must name each"),
        (dict(checks=[Floor("recall", 0.5)], ci_prob=1.5), ValueError, "ci_prob"),
    ],
)  # fmt: skip
def test_gate_errors(kwargs: dict, exc: type, match: str) -> None:
    with pytest.raises(exc, match=match):
        gate(NEW, **kwargs)


def test_floors_follow_each_metrics_range():
    """mcc floors may be negative and likelihood-ratio floors above 1; fpr is refused."""
    counts = np.array([[40, 10], [5, 45]])  # LR+ of class 1 = 0.9 / 0.2 = 4.5, mcc = 0.70
    res = gate(counts, [Floor("mcc", -0.5), Floor("positive_likelihood_ratio", 2.0)], draws=4000)
    assert [c.verdict for c in res.checks] == ["pass", "pass", "pass"]  # LR+ per class
    with pytest.raises(ValueError, match=r"Floor\('mcc'\).threshold must be a number in \[-1, 1\]"):
        Floor("mcc", -1.5)
    with pytest.raises(ValueError, match="fpr is lower-is-better"):
        gate(counts, [Floor("fpr", 0.1)])


@pytest.mark.parametrize(
    "make,exc,match",
    [
        (lambda: Floor("micro_f1", 1.5), ValueError, r"Floor\('micro_f1'\).threshold must be .*1.5"),
        (lambda: Floor("micro_f1", "x"), TypeError, r"must be a number in \[0, 1\]; got 'x'"),
        (lambda: Floor(3, 0.5), TypeError, "Floor.metric must be a metric name"),
        (lambda: Floor("recall", 0.5, min_support=0), ValueError, "min_support must be None or"),
        (lambda: Floor("recall", 0.5, min_support=True), TypeError, "min_support must be None"),
        (lambda: JointFloor("recall", 1.5), ValueError, r"JointFloor\('recall'\).threshold"),
        (lambda: NonInferiority("micro_f1", -0.1), ValueError, r"max_drop must be .*-0.1"),
        (lambda: NonInferiority("micro_f1", 2), ValueError, r"max_drop must be .*\[0, 1\]"),
    ],
)  # fmt: skip
def test_check_objects_validate_their_fields(make, exc: type, match: str) -> None:
    with pytest.raises(exc, match=match):
        make()


def test_checks_are_frozen_values() -> None:
    import dataclasses

    a, b = Floor("recall", 0.6, min_support=5), Floor("recall", 0.6, min_support=5)
    assert a == b and hash(a) == hash(b) and a.threshold == 0.6
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.threshold = 0.7  # type: ignore[misc]
    assert NonInferiority("micro_f1").max_drop == 0.0


@pytest.mark.parametrize(
    "check,match",
    [
        (JointFloor("micro_f1", 0.5), r"JointFloor applies to per-class metrics .*'micro_f1'"),
        (Floor("micro_f1", 0.5, min_support=3), r"min_support applies to per-class metrics"),
        (Floor("fpr", 0.5), "fpr is lower-is-better"),
    ],
)
def test_per_class_options_need_a_per_class_metric(check, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        gate(NEW, [check])


def test_one_function_decides_a_verdict_and_nothing_rewrites_it() -> None:
    """``Check`` objects are built in ``draws.judge`` only; no code replaces a verdict."""
    import ast
    from pathlib import Path

    import f1posterior

    root = Path(f1posterior.__file__).parent
    makers, rewrites = [], []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                if not isinstance(node, ast.Call):
                    continue
                name = getattr(node.func, "id", getattr(node.func, "attr", None))
                where = (path.relative_to(root).as_posix(), fn.name)
                if name == "Check":
                    makers.append(where)
                if name == "replace" and any(k.arg == "verdict" for k in node.keywords):
                    rewrites.append(where)
    assert makers == [("gating/_draws.py", "judge")]
    assert rewrites == []
