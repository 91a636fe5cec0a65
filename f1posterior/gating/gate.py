"""Quality gates: pass a model only when its metrics are credibly good enough.

A gate is a list of checks, each a posterior probability compared with a
required probability ``prob`` (default 0.95):

``min``
    P(metric >= T | data) >= prob. For a per-class metric (``f1``,
    ``precision``, ``recall``) every class is checked: a per-class floor.
``baseline``
    P(metric(new) - metric(baseline) >= -D | data) >= prob, ``D`` the
    allowed drop (default 0). The two confusion matrices are treated as
    independent samples, so the two posteriors are independent (the
    ``model`` field says so; a paired model needs the predictions of both
    models on the same documents and slots in as another way of drawing the
    difference, see :func:`_difference_draws`).

Each check is PASS when P(condition) >= prob, FAIL when P(opposite) =
1 - P(condition) >= prob, and INCONCLUSIVE otherwise (``prob`` in (0.5, 1)).
Probabilities are exact where a closed form exists (aligned prior; see
:mod:`f1posterior.posterior.exact`) and Monte Carlo estimates otherwise. A fixed default
seed makes every verdict repeatable. A sampled probability within
``NOISE_SIGMAS`` Monte Carlo standard errors of ``prob`` or ``1 - prob`` is
never decided: the gate draws again (adaptive draws, doubling the total each
round from fresh streams derived from the seed, all rounds pooled) until it
is clear or ``max_draws`` is reached, and then it is INCONCLUSIVE with the
reason "within Monte Carlo noise at N draws".

:func:`gate` returns a :class:`GateResult` (text, JSON and Markdown
renderings); :func:`assert_gate` raises ``AssertionError`` with the same
verdict text, for test suites. The command line ``f1posterior gate`` is a
thin layer over :func:`gate`.

Multi-label classifiers (``gate(tables, multilabel=True, ...)``) are gated
the same way on their per-label 2 x 2 tables ``(*batch, L, 2, 2)`` with the
metrics of :func:`f1posterior.evaluate_multilabel`: a per-label metric
(``f1``, ``fbeta``, ``precision``, ``recall``, ``jaccard``) is a floor for
every label, exact under the aligned prior (except ``fbeta`` with
``f_beta != 1``). ``hamming_loss`` is a loss, not a score, and cannot be given
a floor.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._core.priors import PriorArg, resolve_prior
from .._core.results import value_equality
from .._core.text import escape_markdown, escape_text
from .._core.validation import (
    check_counts,
    check_draws,
    check_positive,
    check_prob,
    check_rng,
    child_seed,
    describe,
    labelled_counts,
)
from ..metrics.multiclass import METRICS, PER_CLASS_METRICS
from ..posterior.evaluation import Evaluation, evaluate
from ..posterior.multilabel import MULTILABEL_METRICS, PER_LABEL_METRICS, check_tables
from ..posterior.summary import MetricSummary
from ..posterior.summary import hdi as sample_hdi

__all__ = [
    "DEFAULT_MAX_DRAWS",
    "DEFAULT_SEED",
    "GATE_MULTILABEL_METRICS",
    "MIN_DRAWS",
    "NOISE_SIGMAS",
    "SETTLE_SIGMAS",
    "Check",
    "GateResult",
    "gate",
    "assert_gate",
]

#: Default seed of a gate (the same as the command line's): verdicts never change run to run.
DEFAULT_SEED = 20150927
#: A sampled probability within this many Monte Carlo standard errors of the requirement
#: is flagged as within noise.
NOISE_SIGMAS = 3.0
#: The draws suggested to settle a noisy verdict put it this many standard errors away.
SETTLE_SIGMAS = 4.0
#: Fewer draws than this are raised to it: there is never a verdict from a handful of draws.
MIN_DRAWS = 1_000
#: Default ceiling of the adaptive draws (``max_draws``, ``--max-draws``).
DEFAULT_MAX_DRAWS = 1_000_000
#: The largest ``max_draws`` accepted.
MAX_DRAWS_LIMIT = 100_000_000
#: Spawn-key word of the adaptive rounds' streams (``root.spawn_key + (ADAPT_KEY, round)``).
ADAPT_KEY = 0x61647074
#: Metrics of a multi-label gate (``multilabel=True``): scores, higher is better.
GATE_MULTILABEL_METRICS = tuple(m for m in MULTILABEL_METRICS if m != "hamming_loss")


_MD_VERDICT = {
    "pass": "✅ PASS",
    "fail": "❌ FAIL",
    "inconclusive": "❔ INCONCLUSIVE",
    "skipped": "⏭ SKIPPED",
}


def _verdict(prob: float, required: float) -> str:
    """PASS when P(condition) >= required, FAIL when P(opposite) = 1 - P >= required."""
    if prob >= required:
        return "pass"
    if 1.0 - prob >= required:
        return "fail"
    return "inconclusive"


def _fmt_draws(n: int) -> str:
    return f"{n:,}"


@value_equality
@dataclass(frozen=True)
class Check:
    """The verdict of one check (one metric, matrix and class).

    Attributes
    ----------
    kind : {"min", "baseline"}
        Threshold check, or comparison with a baseline.
    metric : str
        Metric name.
    item : str
        Matrix name and/or ``class <label>``; "" for a single scalar.
    threshold : float
        ``T`` (kind "min") or ``-D`` (kind "baseline"): the metric, or the
        difference new - baseline, must be >= ``threshold``.
    prob : float
        Posterior probability of the condition.
    required : float
        The probability required to pass.
    verdict : {"pass", "fail", "inconclusive", "skipped"}
        "pass" when ``prob >= required``; "fail" when the probability of the
        opposite, ``1 - prob``, is ``>= required``; "inconclusive" otherwise
        (and when a sampled probability cannot be told from ``required`` or
        ``1 - required`` within Monte Carlo noise; ``reason`` says so).
        "skipped": a per-class floor of a class with fewer documents than
        ``min_support`` (``reason`` says so), not judged and ignored by the
        overall verdict. ``passed`` is ``verdict == "pass"``.
    score : float
        Observed metric on the counts (or observed difference new - baseline).
    hdi : tuple of float
        HDI of the metric (or of the difference), of probability ``hdi_prob``.
    hdi_prob : float
    exact : bool
        True when ``prob`` is computed in closed form (no Monte Carlo error).
    mc_error : float
        Monte Carlo standard error of ``prob`` (0 when exact).
    draws : int
        Posterior draws behind ``prob`` (0 when exact).
    within_noise : bool
        A sampled ``prob`` still within ``NOISE_SIGMAS`` Monte Carlo standard
        errors of ``required`` or ``1 - required`` after the adaptive draws
        (the verdict is then "inconclusive").
    draws_to_settle : int or None
        When within noise, an estimate of the draws that would settle the
        verdict if the probability stayed where it is (None otherwise).
    model : str
        For baseline checks, how the two posteriors are related
        ("independent posteriors"); "" otherwise.
    reason : str
        Why an inconclusive verdict is inconclusive, or why a check is
        skipped; "" otherwise.
    support : int or None
        Per-class floors: the class's true documents (a label's positive
        documents); None otherwise.
    """

    kind: str
    metric: str
    item: str
    threshold: float
    prob: float
    required: float
    verdict: str
    score: float
    hdi: tuple[float, float]
    hdi_prob: float
    exact: bool
    mc_error: float
    draws: int
    within_noise: bool
    draws_to_settle: int | None
    model: str = ""
    reason: str = ""
    support: int | None = None

    @property
    def passed(self) -> bool:
        """``verdict == "pass"``."""
        return self.verdict == "pass"

    def _condition(self, escape: Any = escape_text, rel: str = ">=") -> str:
        name = self.metric + (f" [{escape(self.item)}]" if self.item else "")
        if self.kind == "baseline":
            return f"{name}: new - baseline {rel} {self.threshold:g}"
        return f"{name} {rel} {self.threshold:g}"

    @property
    def condition(self) -> str:
        """The condition checked, e.g. ``micro_f1 >= 0.8`` (control characters escaped)."""
        return self._condition()

    @property
    def opposite(self) -> str:
        """The opposite condition, whose probability decides a FAIL, e.g. ``micro_f1 < 0.8``."""
        return self._condition(rel="<")

    @property
    def evidence(self) -> str:
        """The probability statement behind the verdict."""
        req = f"{self.required:g}"
        q = 1.0 - self.prob
        if self.verdict == "skipped":
            return f"skipped ({self.reason}); not counted in the verdict"
        if self.verdict == "pass":
            return f"P = {self.prob:.4f} >= {req} required"
        if self.verdict == "fail":
            return f"P = {self.prob:.4f}; P(opposite) = {q:.4f} >= {req}"
        return f"P = {self.prob:.4f}; neither it nor P(opposite) = {q:.4f} reaches {req}"

    @property
    def text(self) -> str:
        """One-line verdict: PASS/FAIL/INCONCLUSIVE, condition, probability, score, HDI."""
        return self._text()

    def _text(self, hint: str = "") -> str:
        """:attr:`text`, with ``hint`` (the planning command) after the evidence."""
        what = "observed difference" if self.kind == "baseline" else "observed"
        pct = f"{100 * self.hdi_prob:g}%"
        if self.verdict == "skipped":
            return f"SKIPPED  {self.condition}: {self.evidence}; {what} {self.score:.3f}"
        line = (
            f"{self.verdict.upper()}  {self.condition}: {self.evidence}{hint}; {what} "
            f"{self.score:.3f}, {pct} HDI [{self.hdi[0]:.3f}, {self.hdi[1]:.3f}]; "
        )
        if self.exact:
            line += "exact"
        else:
            line += f"MC error {self.mc_error:.4f} ({_fmt_draws(self.draws)} draws)"
        if self.model:
            line += f"; {self.model}"
        if self.reason:
            line += f"; {self.reason}"
        elif self.within_noise:
            line += "; WITHIN MONTE CARLO NOISE: " + (
                f"rerun with draws={_fmt_draws(self.draws_to_settle)} "
                f"(--draws {self.draws_to_settle}) to settle it"
                if self.draws_to_settle is not None
                else "the probability equals the requirement; no number of draws settles it"
            )
        return line

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dictionary of the fields, plus ``condition`` and ``text``."""
        out = {k: getattr(self, k) for k in self.__dataclass_fields__}
        out["passed"] = self.passed
        out["hdi"] = list(self.hdi)
        out["condition"] = self.condition
        out["text"] = self.text
        return out


@value_equality
@dataclass(frozen=True)
class GateResult:
    """All checks of a gate.

    Attributes
    ----------
    checks : tuple of Check
        One per metric, matrix and class, in request order.
    prior : str
        Statement of the prior.
    draws : int
        Posterior draws per matrix of the first round; a check drawn again
        (adaptive draws) gives its own pooled total in ``Check.draws``.
    seed : int or None
        Root seed (entropy), printed so that a run can be repeated.
    source, baseline_source : str or None
        Where the counts came from, when known.
    config : str or None
        The configuration file the checks came from (command line ``--config``
        or ``pyproject.toml``), when there is one.
    """

    checks: tuple[Check, ...]
    prior: str
    draws: int
    seed: Any
    source: str | None = None
    baseline_source: str | None = field(default=None)
    config: str | None = None

    @property
    def verdict(self) -> str:
        """Overall: "fail" if any check fails, else "inconclusive" if any is, else "pass".

        Skipped checks (``min_support``) are ignored; a gate whose every check
        is skipped judged nothing and is "inconclusive".
        """
        verdicts = {c.verdict for c in self.checks if c.verdict != "skipped"}
        if not verdicts:
            return "inconclusive"
        if "fail" in verdicts:
            return "fail"
        return "inconclusive" if "inconclusive" in verdicts else "pass"

    @property
    def passed(self) -> bool:
        """True when every check passed (``verdict == "pass"``)."""
        return self.verdict == "pass"

    @property
    def within_noise(self) -> bool:
        """True when any verdict is within Monte Carlo noise."""
        return any(c.within_noise for c in self.checks)

    def _header(self) -> str:
        return f"prior {self.prior}; {self._how()}; seed {self.seed}"

    def _how(self) -> str:
        sampled = any(not c.exact for c in self.checks)
        how = f"{_fmt_draws(self.draws)} draws" if sampled else "exact (closed form)"
        if any(c.draws > self.draws for c in self.checks):
            how += " (more where marked: adaptive draws)"
        if sampled and any(c.exact for c in self.checks):
            how = f"exact where marked, {how} otherwise"
        return how

    def _footer(self) -> str:
        skipped = sum(c.verdict == "skipped" for c in self.checks)
        n = len(self.checks) - skipped
        passed = sum(c.verdict == "pass" for c in self.checks)
        failed = sum(c.verdict == "fail" for c in self.checks)
        unsure = n - passed - failed
        word = {"pass": "PASSED", "fail": "FAILED", "inconclusive": "INCONCLUSIVE"}[self.verdict]
        out = f"GATE {word}: {passed} of {n} checks passed"
        counts = [f"{k} {w}" for k, w in ((failed, "failed"), (unsure, "inconclusive")) if k]
        if unsure:
            out += " (" + ", ".join(counts) + ")"
        if skipped:
            out += f"; {skipped} skipped (fewer documents than min_support; not counted)"
        if self.within_noise:
            out += " (some verdicts are within Monte Carlo noise; see above)"
        return out

    def __str__(self) -> str:
        lines = []
        if self.source:
            lines.append(f"Input: {escape_text(self.source)}")
        if self.baseline_source:
            lines.append(f"Baseline: {escape_text(self.baseline_source)}")
        if self.config:
            lines.append(f"Config: {escape_text(self.config)}")
        lines.append(f"Gate: {self._header()}")
        lines += [c._text(self._hint(c, " (", ")")) for c in self.checks]
        lines.append(self._footer())
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dictionary: ``passed``, ``checks`` (list), ``prior``, ``draws``, ..."""
        return {
            "verdict": self.verdict,
            "passed": self.passed,
            "within_noise": self.within_noise,
            "checks": [c.to_dict() for c in self.checks],
            "prior": self.prior,
            "draws": self.draws,
            "seed": self.seed,
            "source": self.source,
            "baseline_source": self.baseline_source,
            "config": self.config,
        }

    def _hint(self, c: Check, before: str = "", after: str = "") -> str:
        """For an inconclusive check: the ``f1posterior plan`` command that would settle it."""
        if c.verdict != "inconclusive":
            return ""
        from .classes import plan_hint

        return before + plan_hint(c, self.source, self.baseline_source) + after

    def to_junit_xml(self) -> str:
        """JUnit XML: one ``testcase`` per check.

        A FAIL holds a ``failure``, an INCONCLUSIVE verdict a ``skipped`` with
        its reason; the probability, its requirement, the HDI, the draws and
        the seed are ``properties`` of each test case. Strings are escaped
        (:func:`f1posterior._core.text.escape_text`): XML 1.0 cannot hold control
        characters.
        """
        import xml.etree.ElementTree as ET

        n_fail = sum(c.verdict == "fail" for c in self.checks)
        n_skip = sum(c.verdict in ("inconclusive", "skipped") for c in self.checks)
        suite = ET.Element(
            "testsuite",
            name="f1posterior gate",
            tests=str(len(self.checks)),
            failures=str(n_fail),
            skipped=str(n_skip),
            errors="0",
        )
        props = ET.SubElement(suite, "properties")
        for key, value in (
            ("prior", self.prior),
            ("seed", self.seed),
            ("source", self.source),
            ("baseline_source", self.baseline_source),
            ("config", self.config),
        ):
            if value is not None:
                ET.SubElement(props, "property", name=key, value=escape_text(str(value)))
        for c in self.checks:
            case = ET.SubElement(suite, "testcase", classname="f1posterior.gate", name=c.condition)
            cp = ET.SubElement(case, "properties")
            for key, value in (
                ("verdict", c.verdict),
                ("probability", f"{c.prob:.6g}"),
                ("required", f"{c.required:g}"),
                ("hdi", f"[{c.hdi[0]:.6g}, {c.hdi[1]:.6g}]"),
                ("hdi_prob", f"{c.hdi_prob:g}"),
                ("exact", str(c.exact).lower()),
                ("draws", str(c.draws)),
                ("seed", escape_text(str(self.seed))),
            ):
                ET.SubElement(cp, "property", name=key, value=value)
            if c.verdict == "fail":
                ET.SubElement(case, "failure", message=c.evidence, type="GateFailure").text = c.text
            elif c.verdict == "inconclusive":
                ET.SubElement(case, "skipped", message=c.reason or f"inconclusive: {c.evidence}")
            elif c.verdict == "skipped":
                ET.SubElement(case, "skipped", message=f"skipped: {c.reason}")
        body = ET.tostring(suite, encoding="unicode")
        return '<?xml version="1.0" encoding="utf-8"?>\n' + body + "\n"

    def to_markdown(self) -> str:
        """A Markdown table of the verdicts, for a CI job summary."""
        title = {"pass": "passed", "fail": "FAILED", "inconclusive": "INCONCLUSIVE"}[self.verdict]
        lines = [
            f"### f1posterior gate {title}",
            "",
            "| verdict | check | P | required | observed | HDI | note |",
            "|---|---|---|---|---|---|---|",
        ]
        for c in self.checks:
            note = "exact" if c.exact else f"MC error {c.mc_error:.4f}"
            if c.model:
                note += f"; {c.model}"
            if c.reason:
                note += f"; {escape_markdown(c.reason)}"
            elif c.within_noise:
                note += (
                    f"; **within Monte Carlo noise**: rerun with --draws {c.draws_to_settle}"
                    if c.draws_to_settle is not None
                    else "; **within Monte Carlo noise**"
                )
            cells = [
                _MD_VERDICT[c.verdict],
                c._condition(escape_markdown),
                f"{c.prob:.4f}",
                f"{c.required:g}",
                f"{c.score:.3f}",
                f"[{c.hdi[0]:.3f}, {c.hdi[1]:.3f}]",
                note,
            ]
            lines.append("| " + " | ".join(cells) + " |")
        lines += ["", f"{self._footer()}. Prior: {self.prior}; {self._how()}; seed {self.seed}."]
        where = [
            f"{what}: {_md_path(path)}"
            for what, path in (
                ("Input", self.source),
                ("baseline", self.baseline_source),
                ("config", self.config),
            )
            if path
        ]
        if where:
            lines += ["", ", ".join(where)]
        hints = [
            f"- {c._condition(escape_markdown)}: {self._hint(c)}"
            for c in self.checks
            if c.verdict == "inconclusive"
        ]
        if hints:
            lines += ["", "Inconclusive checks:", "", *hints]
        return "\n".join(lines)


def _md_path(path: str) -> str:
    """A file name in Markdown: a code span when that is safe, else escaped text."""
    if "`" not in path and escape_text(path) == path:
        return f"`{path}`"
    return escape_markdown(path)


# --- validation ----------------------------------------------------------------------


def _check_metric_name(name: Any, arg: str, known: Sequence[str] = tuple(METRICS)) -> str:
    if name == "hamming_loss" and known is GATE_MULTILABEL_METRICS:
        raise ValueError(
            f"{arg}: hamming_loss is a loss (lower is better) and a gate checks floors of "
            f"scores; gate one of {', '.join(known)}"
        )
    if not isinstance(name, str) or name not in known:
        raise ValueError(
            f"{arg} must name known metrics ({', '.join(known)}); got {describe(name)}"
        )
    return name


def _check_threshold(value: Any, name: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number in [{low:g}, {high:g}]; got {describe(value)}")
    v = float(value)
    if not low <= v <= high:
        raise ValueError(f"{name} must be a number in [{low:g}, {high:g}]; got {value!r}")
    return v


def _check_minimums(
    minimums: Any, known: Sequence[str] = tuple(METRICS)
) -> list[tuple[str, float]]:
    if minimums is None:
        return []
    items = list(minimums.items()) if isinstance(minimums, Mapping) else minimums
    try:
        pairs = [(m, t) for m, t in items]
    except (TypeError, ValueError):
        raise TypeError(
            "minimums must be a mapping or a sequence of (metric, threshold) pairs; got "
            f"{describe(minimums)}"
        ) from None
    return [
        (
            _check_metric_name(m, "minimums", known),
            _check_threshold(t, f"minimums[{m!r}]", 0.0, 1.0),
        )
        for m, t in pairs
    ]


def _check_gate_args(
    counts: Any,
    minimums: Any,
    baseline: Any,
    compare: Any,
    max_drop: Any,
    prob: Any,
    names: Any,
    multilabel: bool = False,
) -> tuple[np.ndarray, list[tuple[str, float]], np.ndarray | None, list[str], float, float]:
    if not isinstance(multilabel, bool):
        raise TypeError(f"multilabel must be True or False; got {describe(multilabel)}")
    known: Sequence[str] = GATE_MULTILABEL_METRICS if multilabel else tuple(METRICS)
    core = 3 if multilabel else 2  # trailing axes of one input: (L, 2, 2) or (M, M)
    if multilabel:
        c = check_tables(counts, "counts")
        base = None if baseline is None else check_tables(baseline, "baseline")
    else:
        c = check_counts(counts)
        base = None if baseline is None else check_counts(baseline, "baseline")
    mins = _check_minimums(minimums, known)
    if multilabel and base is not None and base.shape[-3] != c.shape[-3]:
        raise ValueError(
            f"baseline must have the {c.shape[-3]} labels of counts: tables of shape "
            f"(..., {c.shape[-3]}, 2, 2); got shape {base.shape}"
        )
    if base is not None and base.shape[-1] != c.shape[-1]:
        raise ValueError(
            f"baseline must have the classes of counts: {c.shape[-1]} x {c.shape[-1]}; got "
            f"shape {base.shape}"
        )
    if base is not None:
        try:
            np.broadcast_shapes(base.shape, c.shape)
        except ValueError:
            raise ValueError(
                f"baseline must be one matrix or a batch like counts {c.shape}; got shape "
                f"{base.shape}"
            ) from None
    if compare is None:
        comp = ["micro_f1"] if base is not None else []
    else:
        if isinstance(compare, str):
            compare = [compare]
        comp = [_check_metric_name(m, "compare", known) for m in compare]
        if comp and base is None:
            raise ValueError(f"compare needs a baseline; got compare={comp} and baseline=None")
    if len(set(comp)) != len(comp):
        raise ValueError(f"compare must not repeat a metric; got {comp}")
    if not mins and not comp:
        raise ValueError("a gate needs at least one check: give minimums and/or a baseline")
    drop = _check_threshold(max_drop, "max_drop", 0.0, 1.0)
    p = check_prob(prob, "prob")
    if not p > 0.5:
        raise ValueError(
            f"prob must be in (0.5, 1): a check passes when P(condition) >= prob and fails "
            f"when P(opposite) >= prob, which only exclude each other above 0.5; got {prob!r}"
        )
    if names is not None:
        batch = np.broadcast_shapes(c.shape, base.shape if base is not None else c.shape)[:-core]
        if len(batch) != 1 or len(names) != batch[0]:
            raise ValueError(
                f"names must name each matrix of a 1-D batch; got {len(names)} names for batch "
                f"shape {batch}"
            )
    return c, mins, base, comp, drop, p


# --- probabilities --------------------------------------------------------------------


def _noise(prob: float, required: float, n: int) -> tuple[float, bool, int | None]:
    """MC standard error of a sampled probability, noise flag, and draws to settle it."""
    pc = min(max(prob, 1.0 / n), 1.0 - 1.0 / n)
    var = pc * (1.0 - pc)
    se = math.sqrt(var / n)
    gap = abs(prob - required)
    if gap > NOISE_SIGMAS * se:
        return se, False, None
    if gap == 0.0:
        return se, True, None
    need = SETTLE_SIGMAS**2 * var / gap**2
    digits = 10 ** max(0, int(math.floor(math.log10(need))) - 1)  # 2 significant digits
    return se, True, int(math.ceil(need / digits) * digits)


def _difference_draws(
    new: Evaluation, base: Evaluation, metric: str
) -> tuple[np.ndarray, np.ndarray, str]:
    """Posterior draws of metric(new) - metric(baseline), the observed difference, the model.

    Independent posteriors: the two tables are different samples, so the
    difference of independent draws is a draw of the difference. A paired
    model (both models' predictions on the same documents) would return
    draws from the joint posterior here instead, with its own ``model`` name.
    """
    assert new.metric_draws is not None and base.metric_draws is not None
    diff = new.metric_draws[metric] - base.metric_draws[metric]
    score = np.asarray(new[metric].score) - np.asarray(base[metric].score)
    return diff, score, "independent posteriors"


def _paired_difference(
    paired: Any,
    metric: str,
    counts: np.ndarray,
    base: np.ndarray,
    alpha: Any,
    beta: Any,
    draws: int,
    root: np.random.SeedSequence,
) -> tuple[np.ndarray, np.ndarray, str]:
    """Paired-model draws of metric(new) - metric(baseline) on the same documents."""
    from ..analysis.comparison import compare_predictions

    if isinstance(paired, (str, bytes)) or len(paired) != 3:
        raise ValueError(
            f"paired must be (y_true, pred_new, pred_baseline); got {describe(paired)}"
        )
    if metric in PER_CLASS_METRICS:
        raise ValueError(
            f"paired baseline comparisons take single-number metrics; got per-class {metric!r}"
        )
    if counts.ndim != 2:
        raise ValueError(f"paired predictions give one matrix; got counts of shape {counts.shape}")
    y, new, old = paired
    res = compare_predictions(
        y,
        new,
        old,
        metric=metric,
        alpha=alpha,  # each model's marginal prior, resolved as the core resolves it
        beta=beta,
        draws=draws,
        rng=child_seed(root, 2),
    )
    for s, table, what in ((res.a, counts, "counts"), (res.b, base, "baseline")):
        if not np.isclose(s.score, float(METRICS[metric](table))):
            raise ValueError(
                f"paired predictions do not match {what}: {metric} is {s.score:.4f} from the "
                f"predictions but {float(METRICS[metric](table)):.4f} from the matrix"
            )
    return res.draws, np.asarray(res.difference.score), "paired model (same documents)"


def _items(
    shape: tuple[int, ...],
    n_batch: int,
    per_class: bool,
    labels: Any,
    names: Any,
    unit: str = "class",
) -> list[tuple[tuple[int, ...], str]]:
    out = []
    for idx in np.ndindex(*shape):
        parts = []
        bidx = idx[:n_batch]
        if bidx:
            parts.append(str(names[bidx[0]]) if names is not None else ",".join(map(str, bidx)))
        if per_class:
            k = idx[-1]
            parts.append(f"{unit} {labels[k] if labels is not None else k}")
        out.append((idx, " ".join(parts)))
    return out


def gate(
    counts: ArrayLike | None = None,
    *,
    minimums: Mapping[str, float] | Sequence[tuple[str, float]] | None = None,
    baseline: ArrayLike | None = None,
    compare: str | Sequence[str] | None = None,
    max_drop: float = 0.0,
    prob: float = 0.95,
    draws: int = 50_000,
    alpha: PriorArg = "adaptive",
    beta: PriorArg = "adaptive",
    rng: Any = DEFAULT_SEED,
    hdi_prob: float = 0.95,
    labels: Sequence[Any] | None = None,
    names: Sequence[str] | None = None,
    source: str | None = None,
    baseline_source: str | None = None,
    paired: Sequence[Any] | None = None,
    multilabel: bool = False,
    f_beta: float = 1.0,
    max_draws: int = DEFAULT_MAX_DRAWS,
    min_support: int | None = None,
    joint: bool = False,
    y_true: Any = None,
    y_pred: Any = None,
    baseline_pred: Any = None,
    ids: Any = None,
    baseline_ids: Any = None,
) -> GateResult:
    """Three-state checks: PASS, FAIL or INCONCLUSIVE, for floors and for a baseline.

    Parameters
    ----------
    counts : array_like, shape (*batch, M, M), optional
        Confusion matrices of the model under test (rows = true class). Give
        either ``counts`` or the predictions ``y_true`` and ``y_pred``.
    minimums : mapping or sequence of (metric, T) pairs, optional
        Each check passes when P(metric >= T | data) >= ``prob``. A per-class
        metric (``f1``, ``precision``, ``recall``) is checked for every class.
    baseline : array_like, shape (M, M) or like ``counts``, optional
        Confusion matrix of the baseline (e.g. production) model, an
        independent sample.
    compare : str or sequence of str, optional
        Metrics compared with the baseline (default ``micro_f1`` when a
        baseline is given): each passes when P(new - baseline >= -max_drop) >= prob.
    max_drop : float, default 0
        Allowed drop ``D`` in [0, 1].
    prob : float, default 0.95
        Required posterior probability, in (0, 1).
    draws : int, default 50_000
        Posterior draws per matrix for probabilities without a closed form
        (values below :data:`MIN_DRAWS` are raised to it).
    max_draws : int, default 1_000_000
        Adaptive draws: while a sampled probability lies within
        :data:`NOISE_SIGMAS` Monte Carlo standard errors of ``prob`` or of
        ``1 - prob``, the gate draws again (doubling the total each round,
        from fresh streams derived from the seed, all rounds pooled) up to
        ``max_draws`` in all; a check still within noise then is
        INCONCLUSIVE, with the reason "within Monte Carlo noise at N draws".
    alpha, beta : prior
        As in :func:`f1posterior.evaluate`; with ``beta="aligned"`` the
        ``min`` checks of micro-F1, accuracy and per-class F1, precision and
        recall are exact.
    rng : None, int, SeedSequence or Generator, default DEFAULT_SEED
        A fixed default, so that a verdict never flips between runs.
    hdi_prob : float, default 0.95
        Probability of the HDIs shown.
    labels : sequence, optional
        Class labels for per-class checks.
    names : sequence of str, optional
        Names of the matrices of a 1-D batch.
    source, baseline_source : str, optional
        Where the counts came from (shown in reports).
    paired : (y_true, pred_new, pred_baseline), optional
        Both models' predictions on the same documents, of which ``counts``
        and ``baseline`` are the confusion matrices. The baseline checks then
        use the paired model of :func:`f1posterior.compare_predictions`
        (single-number metrics only; ``alpha`` a number, each model's
        marginal prior), which is far more decisive than independent samples.
    multilabel : bool, default False
        ``counts`` (and ``baseline``) are per-label 2 x 2 tables of shape
        ``(*batch, L, 2, 2)``, ``[[tn, fp], [fn, tp]]`` per label, evaluated
        with :func:`f1posterior.evaluate_multilabel`; metric names from
        :data:`GATE_MULTILABEL_METRICS`, per-label metrics (``f1``,
        ``fbeta``, ``precision``, ``recall``, ``jaccard``) are floors for every
        label, ``labels`` names the labels. With ``beta="aligned"`` the
        per-label floors are exact (``fbeta`` only when ``f_beta`` is 1).
        Baseline checks use independent posteriors (``paired`` is not
        available); a per-label comparison holds ``L x draws`` draws per table.
    f_beta : float, default 1.0
        The ``beta`` of the multi-label F-beta metrics (``*_fbeta``,
        ``fbeta``); only with ``multilabel=True``.
    min_support : int, optional
        Per-class floors skip classes with fewer than ``min_support`` true
        documents (per-label floors: labels with fewer positive documents):
        their checks have verdict "skipped" with the reason, and the overall
        verdict ignores them. By default every class is judged, and a class
        (label) without true (positive) documents usually cannot pass.
        Needs a per-class floor.
    joint : bool, default False
        Turn the per-class floors of each metric into one check,
        P(every class >= T | data), from the joint posterior draws (always
        sampled; adaptive draws as for any sampled check); with
        ``min_support``, over the classes with enough documents. Needs a
        per-class floor. See :mod:`f1posterior.gating.classes`.
    y_true, y_pred : sequence, optional
        The model's predictions instead of ``counts``: true and predicted
        label per document (``multilabel=True``: ``(D, L)`` indicator
        matrices). ``counts`` is then their confusion matrix and ``labels``
        its label order (``labels=`` fixes it).
    baseline_pred : sequence, optional
        The baseline model's predictions of the same documents (instead of
        ``baseline``): the comparison is paired (see ``paired``).
    ids, baseline_ids : sequence, optional
        Document ids of ``y_true``/``y_pred`` and of ``baseline_pred``: the
        baseline predictions are paired with the model's by id, in any order
        (the ids must match one to one). Without them the predictions are
        paired position by position. See :mod:`f1posterior.gating.predictions`.

    Returns
    -------
    GateResult
        ``passed``, ``checks``, and text (``str``), ``to_dict`` and ``to_markdown``.

    Examples
    --------
    >>> res = gate([[40, 10], [5, 45]], minimums={"micro_f1": 0.75}, beta="aligned")
    >>> res.passed
    True
    >>> print(res.checks[0].text)  # doctest: +ELLIPSIS
    PASS  micro_f1 >= 0.75: P = 0.9903 >= 0.95 required; observed 0.850, 95% HDI ...; exact

    Multi-label: per-label tables, a floor for every label.

    >>> tables = [[[50, 3], [7, 40]], [[80, 2], [4, 14]]]
    >>> res = gate(tables, multilabel=True, minimums={"f1": 0.6}, beta="aligned",
    ...            labels=["sports", "politics"])
    >>> for check in res.checks:
    ...     print(check.text)  # doctest: +ELLIPSIS
    PASS  f1 [label sports] >= 0.6: P = 1.0000 >= 0.95 required; observed 0.889, ...; exact
    PASS  f1 [label politics] >= 0.6: P = 0.9899 >= 0.95 required; observed 0.824, ...; exact
    """
    from .classes import check_joint, check_min_support
    from .predictions import resolve_predictions

    counts, baseline, paired, labels = resolve_predictions(
        counts, baseline=baseline, paired=paired, labels=labels, multilabel=multilabel,
        y_true=y_true, y_pred=y_pred, baseline_pred=baseline_pred, ids=ids,
        baseline_ids=baseline_ids,
    )  # fmt: skip
    counts, labels = labelled_counts(counts, labels)  # a DataFrame or ConfusionMatrix: its labels
    baseline = labelled_counts(baseline, labels, "baseline")[0]  # in the classes' order
    support_floor, is_joint = check_min_support(min_support), check_joint(joint)
    n = max(check_draws(draws), MIN_DRAWS)
    most = check_draws(max_draws, "max_draws")
    if most > MAX_DRAWS_LIMIT:
        raise ValueError(f"max_draws must be at most {MAX_DRAWS_LIMIT:,}; got {most:,}")
    if n > most:
        raise ValueError(f"draws ({n:,}) must not exceed max_draws ({most:,})")
    # the caller's SeedSequence is never consumed: every stream is a child_seed of it
    root = check_rng(rng)
    kw: dict[str, Any] = dict(
        minimums=minimums, baseline=baseline, compare=compare, max_drop=max_drop, prob=prob,
        alpha=alpha, beta=beta, hdi_prob=hdi_prob, labels=labels, names=names, source=source,
        baseline_source=baseline_source, paired=paired, multilabel=multilabel, f_beta=f_beta,
        min_support=support_floor, joint=is_joint,
    )  # fmt: skip
    first = _gate_once(counts, draws=n, root=root, **kw)
    checks = list(first.checks)
    hits = [c.prob * c.draws for c in checks]  # draws meeting the condition, pooled
    total, r = n, 0
    while total < most and any(_noisy(c) for c in checks):
        r += 1
        more = min(total, most - total)
        sub = child_seed(root, ADAPT_KEY, r)
        extra = _gate_once(counts, draws=more, root=sub, **kw)
        total += more
        for i, (c, e) in enumerate(zip(checks, extra.checks, strict=True)):
            if not c.exact:
                hits[i] += round(e.prob * e.draws)
                checks[i] = _resample(c, hits[i], total)
    checks = [_settle(c) for c in checks]
    return GateResult(
        checks=tuple(checks),
        prior=first.prior,
        draws=n,
        seed=first.seed,
        source=first.source,
        baseline_source=first.baseline_source,
    )


def _mc_se(hits: float, n: int) -> float:
    """Binomial standard error of a proportion, with (k + 1/2) / (n + 1) near 0 and 1."""
    pc = (hits + 0.5) / (n + 1)
    return math.sqrt(pc * (1.0 - pc) / n)


def _noisy(c: Check) -> bool:
    """A sampled probability within NOISE_SIGMAS standard errors of prob or 1 - prob."""
    if c.exact or c.verdict == "skipped":
        return False
    se = _mc_se(c.prob * c.draws, c.draws)
    return min(abs(c.prob - c.required), abs(c.prob - (1.0 - c.required))) <= NOISE_SIGMAS * se


def _resample(c: Check, hits: float, n: int) -> Check:
    """``c`` with the pooled probability ``hits / n`` of ``n`` draws."""
    pr = hits / n
    se = _noise(pr, c.required, n)[0]
    verdict = c.verdict if c.verdict == "skipped" else _verdict(pr, c.required)
    return dataclasses.replace(c, prob=pr, draws=n, mc_error=se, verdict=verdict)


def _settle(c: Check) -> Check:
    """The final verdict: INCONCLUSIVE, with the reason, when still within Monte Carlo noise."""
    if not _noisy(c):
        return dataclasses.replace(c, within_noise=False, draws_to_settle=None)
    low = 1.0 - c.required
    near = c.required if abs(c.prob - c.required) <= abs(c.prob - low) else low
    return dataclasses.replace(
        c,
        verdict="inconclusive",
        within_noise=True,
        draws_to_settle=_noise(c.prob, near, c.draws)[2],
        reason=f"within Monte Carlo noise at {_fmt_draws(c.draws)} draws",
    )


def _gate_once(
    counts: Any,
    *,
    minimums: Any,
    baseline: Any,
    compare: Any,
    max_drop: Any,
    prob: Any,
    draws: int,
    alpha: Any,
    beta: Any,
    root: np.random.SeedSequence,
    hdi_prob: Any,
    labels: Any,
    names: Any,
    source: Any,
    baseline_source: Any,
    paired: Any,
    multilabel: Any,
    f_beta: Any,
    min_support: int | None,
    joint: bool,
) -> GateResult:
    """One round of :func:`gate`: ``draws`` draws from the streams of ``root``."""
    from .classes import check_per_class_option, joint_checks, support_of

    c, mins, base, comp, drop, p = _check_gate_args(
        counts, minimums, baseline, compare, max_drop, prob, names, multilabel
    )
    per: Collection[str] = PER_LABEL_METRICS if multilabel else PER_CLASS_METRICS
    unit = "label" if multilabel else "class"
    for option, value in (("min_support", min_support), ("joint", joint)):
        if value:
            check_per_class_option(option, mins, per, unit)
    cls = (support_of(c, multilabel), min_support, joint, unit)
    hp = check_prob(hdi_prob, "hdi_prob")
    fb = check_positive(f_beta, "f_beta")
    if multilabel:
        if paired is not None:
            raise ValueError(
                "paired predictions are for single-label confusion matrices; a multi-label "
                "baseline is compared as an independent sample (leave paired=None)"
            )
        return _gate_multilabel(
            c,
            mins,
            base,
            comp,
            drop,
            p,
            draws,
            alpha,
            beta,
            root,
            hp,
            labels,
            names,
            fb,
            source,
            baseline_source,
            cls,
        )
    if fb != 1.0:
        raise ValueError(
            f"f_beta applies to the F-beta metrics of a multi-label gate (multilabel=True); "
            f"got f_beta={f_beta!r} with multilabel=False"
        )
    kw: dict[str, Any] = dict(draws=draws, alpha=alpha, beta=beta, hdi_prob=hp, labels=labels)
    from ..posterior import exact

    a, b = resolve_prior(alpha, beta, c)
    m = c.shape[-1]
    closed = exact.is_aligned(a, b) and exact.scipy_available()
    min_names = list(dict.fromkeys(n for n, _ in mins))
    no_draws = [
        n
        for n in min_names
        if closed and exact.has_exact(n, m) and n not in comp and not (joint and n in per)
    ]
    with_draws = [n for n in dict.fromkeys([*min_names, *comp]) if n not in no_draws]
    ev: dict[str, Evaluation] = {}
    if no_draws:
        e = evaluate(c, metrics=no_draws, rng=root, **kw)
        ev.update(dict.fromkeys(no_draws, e))
    if with_draws:
        e = evaluate(c, metrics=with_draws, rng=root, keep_draws=True, **kw)
        ev.update(dict.fromkeys(with_draws, e))
    n_batch = len(c.shape) - 2
    lab = None if labels is None else [str(x) for x in labels]
    checks: list[Check] = []
    for name, t in mins:
        s = ev[name][name]
        per_class = name in PER_CLASS_METRICS
        if joint and per_class:
            md = ev[name].metric_draws
            assert md is not None
            checks += joint_checks(
                _make_check, name, t, md[name], np.asarray(s.score), cls[0], min_support,
                names, unit, p, hp, draws,
            )  # fmt: skip
            continue
        if s.exact:
            post = exact.posterior_from_concentration(a + c, name)
            pr = np.asarray(post.sf(t))
        else:
            md = ev[name].metric_draws
            assert md is not None
            pr = np.mean(md[name] >= t, axis=-1)
        items = _items(pr.shape, n_batch, per_class, lab, names)
        checks += _floor_checks(name, t, pr, s, items, p, hp, draws, cls if per_class else None)
    if base is not None:
        base_ev = evaluate(base, metrics=comp, rng=child_seed(root, 0), keep_draws=True, **kw)
        for name in comp:
            if paired is not None:
                diff, score, model = _paired_difference(
                    paired, name, c, base, alpha, beta, draws, root
                )
            else:
                diff, score, model = _difference_draws(ev[name], base_ev, name)
            pr = np.mean(diff >= -drop, axis=-1)
            per_class = name in PER_CLASS_METRICS
            items = _items(pr.shape, diff.ndim - 1 - per_class, per_class, lab, names)
            checks += _baseline_checks(name, drop, pr, diff, score, items, p, hp, draws, model)
    e0 = next(iter(ev.values()))
    return GateResult(
        checks=tuple(checks),
        prior=e0.prior,
        draws=e0.draws,
        seed=root.entropy,
        source=source,
        baseline_source=baseline_source,
    )


def _gate_multilabel(
    c: np.ndarray,
    mins: list[tuple[str, float]],
    base: np.ndarray | None,
    comp: list[str],
    drop: float,
    p: float,
    draws: int,
    alpha: Any,
    beta: Any,
    root: np.random.SeedSequence,
    hp: float,
    labels: Any,
    names: Any,
    f_beta: float,
    source: str | None,
    baseline_source: str | None,
    cls: tuple[np.ndarray, int | None, bool, str],
) -> GateResult:
    """:func:`gate` of per-label tables ``(*batch, L, 2, 2)`` (arguments validated).

    Floors: one :func:`evaluate_multilabel` run per distinct threshold ``T``
    with ``ref=T``, so that sampled probabilities come from the summaries
    (``P(metric >= T) = 1 - p_below``) and memory stays bounded whatever
    ``L``; exact per-label floors use the closed form's survival function.
    Baseline checks need the metric draws of both tables.
    """
    from ..posterior.multilabel import evaluate_multilabel, label_posterior

    kw: dict[str, Any] = dict(
        draws=draws, alpha=alpha, beta=beta, hdi_prob=hp, labels=labels, f_beta=f_beta
    )
    from .classes import joint_checks

    joint = [n for n in dict.fromkeys(n for n, _ in mins) if cls[2] and n in PER_LABEL_METRICS]
    joint_ev = None
    if joint:
        joint_ev = evaluate_multilabel(c, metrics=joint, rng=root, keep_draws=True, **kw)
    by_threshold: dict[float, list[str]] = {}
    for name, t in mins:
        if name in joint:
            continue
        listed = by_threshold.setdefault(t, [])
        if name not in listed:
            listed.append(name)
    at = {
        t: evaluate_multilabel(c, metrics=ns, ref=t, rng=root, **kw)
        for t, ns in by_threshold.items()
    }
    a, _ = resolve_prior(alpha, beta, c)
    n_batch = c.ndim - 3
    lab = None if labels is None else [str(x) for x in labels]
    checks: list[Check] = []
    for name, t in mins:
        if joint_ev is not None and name in joint:
            assert joint_ev.metric_draws is not None
            checks += joint_checks(
                _make_check, name, t, joint_ev.metric_draws[name],
                np.asarray(joint_ev[name].score), cls[0], cls[1], names, "label", p, hp, draws,
            )  # fmt: skip
            continue
        s = at[t][name]
        if s.exact:
            pr = np.asarray(label_posterior(a + c, name).sf(t))
        else:  # count of draws >= t, recovered exactly from p_below = count(< t) / draws
            below = np.rint(np.asarray(s.p_below) * draws)
            pr = (draws - below) / draws
        per_label = name in PER_LABEL_METRICS
        items = _items(pr.shape, n_batch, per_label, lab, names, "label")
        checks += _floor_checks(name, t, pr, s, items, p, hp, draws, cls if per_label else None)
    results = list(at.values()) + ([joint_ev] if joint_ev is not None else [])
    if base is not None:
        new_ev = evaluate_multilabel(c, metrics=comp, rng=root, keep_draws=True, **kw)
        base_ev = evaluate_multilabel(
            base, metrics=comp, rng=child_seed(root, 0), keep_draws=True, **kw
        )
        results.append(new_ev)
        for name in comp:
            diff, score, model = _difference_draws(new_ev, base_ev, name)
            pr = np.mean(diff >= -drop, axis=-1)
            per_label = name in PER_LABEL_METRICS
            items = _items(pr.shape, diff.ndim - 1 - per_label, per_label, lab, names, "label")
            checks += _baseline_checks(name, drop, pr, diff, score, items, p, hp, draws, model)
    return GateResult(
        checks=tuple(checks),
        prior=results[0].prior,
        draws=results[0].draws,
        seed=root.entropy,
        source=source,
        baseline_source=baseline_source,
    )


def _make_check(
    kind: str,
    metric: str,
    item: str,
    threshold: float,
    pr: float,
    required: float,
    score: Any,
    interval: Any,
    hdi_prob: float,
    is_exact: bool,
    draws: int,
    model: str,
) -> Check:
    if is_exact:
        se, noisy, settle, n = 0.0, False, None, 0
    else:
        se, noisy, settle = _noise(pr, required, draws)
        n = draws
    return Check(
        kind=kind,
        metric=metric,
        item=item,
        threshold=threshold,
        prob=pr,
        required=required,
        verdict=_verdict(pr, required),
        score=float(score),
        hdi=(float(interval[0]), float(interval[1])),
        hdi_prob=hdi_prob,
        exact=is_exact,
        mc_error=se,
        draws=n,
        within_noise=noisy,
        draws_to_settle=settle,
        model=model,
    )


def _baseline_checks(
    name: str,
    drop: float,
    pr: np.ndarray,
    diff: np.ndarray,
    score: Any,
    items: Any,
    p: float,
    hp: float,
    draws: int,
    model: str,
) -> list[Check]:
    """One "baseline" check per item: P(new - base >= -drop) in ``pr``, draws ``diff``."""
    interval = sample_hdi(diff, hp)
    score = np.broadcast_to(score, pr.shape)
    return [
        _make_check(
            "baseline",
            name,
            item,
            0.0 - drop,
            float(pr[idx]),
            p,
            score[idx],
            interval[idx],
            hp,
            False,
            draws,
            model,
        )
        for idx, item in items
    ]


def _floor_checks(
    name: str,
    t: float,
    pr: np.ndarray,
    s: MetricSummary,
    items: Any,
    p: float,
    hp: float,
    draws: int,
    cls: tuple[np.ndarray, int | None, bool, str] | None = None,
) -> list[Check]:
    """One "min" check per (matrix, class or label) item: P(metric >= t) in ``pr``.

    ``cls`` (per-class floors): the support per class, ``min_support``,
    ``joint`` and the unit ("class" or "label"); each check carries its
    class's support and is skipped below ``min_support``.
    """
    checks = [
        _make_check(
            "min",
            name,
            item,
            t,
            float(pr[idx]),
            p,
            np.asarray(s.score)[idx],
            np.asarray(s.hdi)[idx],
            hp,
            s.exact,
            draws,
            "",
        )
        for idx, item in items
    ]
    if cls is None:
        return checks
    from .classes import with_support

    support = np.broadcast_to(cls[0], pr.shape)
    return [
        with_support(c, int(support[idx]), cls[1], cls[3])
        for c, (idx, _) in zip(checks, items, strict=True)
    ]


def assert_gate(
    counts: ArrayLike | None = None, *, inconclusive: str = "fail", **kwargs: Any
) -> GateResult:
    """:func:`gate`, raising ``AssertionError`` with the verdict text unless it passes.

    For test suites: ``assert_gate(cm, minimums={"macro_f1": 0.8})`` inside a
    pytest test fails the test with the same report as ``f1posterior gate``.
    It raises on a FAIL, and on an INCONCLUSIVE verdict unless
    ``inconclusive="pass"``. Takes the keyword arguments of :func:`gate`;
    returns its result otherwise. Its own frame is hidden from pytest
    tracebacks (``__tracebackhide__``). Like :func:`gate` it takes either
    ``counts`` or predictions (``y_true=``, ``y_pred=``, ``baseline_pred=``,
    ``ids=``, ``baseline_ids=``).

    Examples
    --------
    >>> _ = assert_gate([[40, 10], [5, 45]], minimums={"micro_f1": 0.75}, beta="aligned")
    >>> assert_gate([[40, 10], [5, 45]], minimums={"micro_f1": 0.85}, beta="aligned")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    AssertionError: Gate: prior alpha=adaptive (see ...), beta=aligned ...; seed ...
    INCONCLUSIVE  micro_f1 >= 0.85: P = 0.4483; neither it nor P(opposite) = 0.5517 ...
    GATE INCONCLUSIVE: 0 of 1 checks passed (1 inconclusive)
    """
    __tracebackhide__ = True
    if inconclusive not in ("pass", "fail"):
        raise ValueError(f'inconclusive must be "pass" or "fail"; got {describe(inconclusive)}')
    result = gate(counts, **kwargs)
    if result.verdict == "fail" or (result.verdict == "inconclusive" and inconclusive == "fail"):
        raise AssertionError(str(result))
    return result
