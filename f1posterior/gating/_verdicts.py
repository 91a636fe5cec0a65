"""Results of the gate: one `Check` per requirement and the `GateResult`, with their text,
Markdown, JSON and JUnit renderings."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .._core.results import value_equality
from .._core.streams import seed_json
from .._core.text import escape_markdown, escape_text

_MD_VERDICT = {
    "pass": "✅ PASS",
    "fail": "❌ FAIL",
    "inconclusive": "❔ INCONCLUSIVE",
    "skipped": "⏭ SKIPPED",
}


#: What a comparison with the baseline checks, by kind of check.
_COMPARED = {"baseline": "new - baseline", "relative": "new / baseline"}

#: The marker of a prior-dominated check in every output format.
PRIOR_DOMINATED = "prior-dominated"


@value_equality
@dataclass(frozen=True, eq=False)
class Check:
    """The verdict of one check (one metric, matrix and class).

    Attributes
    ----------
    kind : {"min", "baseline", "relative"}
        Threshold check, comparison with a baseline (an absolute margin), or a
        relative margin (the ratio new / baseline against ``1 - r``).
    metric : str
        Metric name.
    item : str
        Matrix name and/or ``class <label>``; "" for a single scalar.
    threshold : float
        ``T`` (kind "min"), ``-D`` (kind "baseline") or ``1 - r`` (kind
        "relative"): the metric, the difference new - baseline, or the ratio
        new / baseline must be >= ``threshold``.
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
        overall verdict. ``passed`` is ``verdict == "pass"``. The rows of a
        ``SliceFloor`` share the FAIL side: a slice row FAILs at
        ``1 - prob >= 1 - (1 - required) / J`` over ``J`` judged slices, and
        the joint row only when a slice row does (``reason`` says so).
    score : float
        Observed metric on the counts (or observed difference new - baseline).
    hdi : tuple of float
        HDI of the metric (or of the difference), of probability ``ci_prob``.
    ci_prob : float
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
        Why an inconclusive verdict is inconclusive, why a check is
        skipped, or a slice row's FAIL bar; "" otherwise.
    support : int or None
        Per-class floors: the class's true documents (a label's positive
        documents); None otherwise.
    prior_dominated : bool
        The prior, not the data, dominates the posterior behind this check
        (:attr:`f1posterior.MetricSummary.prior_dominated` of the metric, or of
        either model's metric for a baseline check), so the prior may have
        decided the verdict; every output format says so.

    See Also
    --------
    GateResult : All the checks of a gate.
    f1posterior.Floor : A check as requested (also ``JointFloor``, ``NonInferiority``).

    Examples
    --------
    >>> from f1posterior import Floor, gate
    >>> (check,) = gate([[40, 10], [5, 45]], [Floor("micro_f1", 0.75)], beta="aligned").checks
    >>> check.verdict, check.condition, check.exact, round(check.prob, 4)
    ('pass', 'micro_f1 >= 0.75', True, 0.9903)
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
    ci_prob: float
    exact: bool
    mc_error: float
    draws: int
    within_noise: bool
    draws_to_settle: int | None
    model: str = ""
    reason: str = ""
    support: int | None = None
    prior_dominated: bool = False

    @property
    def passed(self) -> bool:
        """``verdict == "pass"``."""
        return self.verdict == "pass"

    def _condition(self, escape: Any = escape_text, rel: str = ">=") -> str:
        name = self.metric + (f" [{escape(self.item)}]" if self.item else "")
        if self.kind in _COMPARED:
            return f"{name}: {_COMPARED[self.kind]} {rel} {self.threshold:g}"
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
        if q >= self.required:  # a row with its own FAIL bar: ``reason`` says which
            return f"P = {self.prob:.4f} < {req}; P(opposite) = {q:.4f} short of its FAIL bar"
        return f"P = {self.prob:.4f}; neither it nor P(opposite) = {q:.4f} reaches {req}"

    @property
    def text(self) -> str:
        """One-line verdict: PASS/FAIL/INCONCLUSIVE, condition, probability, score, HDI."""
        return self._text()

    def _text(self, hint: str = "") -> str:
        """:attr:`text`, with ``hint`` (the planning command) after the evidence."""
        what = {"baseline": "observed difference", "relative": "observed ratio"}.get(
            self.kind, "observed"
        )
        pct = f"{100 * self.ci_prob:g}%"
        if self.verdict == "skipped":
            return f"SKIPPED  {self.condition}: {self.evidence}; {what} {self.score:.3f}"
        line = (
            f"{self.verdict.upper()}  {self.condition}: {self.evidence}{hint}; {what} "
            f"{self.score:.3f}, {pct} HDI [{self.hdi[0]:.3f}, {self.hdi[1]:.3f}]; "
        )
        if self.exact:
            line += "exact"
        else:
            line += f"MC error {self.mc_error:.4f} ({self.draws:,} draws)"
        if self.model:
            line += f"; {self.model}"
        if self.prior_dominated:
            line += f"; {PRIOR_DOMINATED}"
        if self.reason:
            line += f"; {self.reason}"
        elif self.within_noise:
            line += "; WITHIN MONTE CARLO NOISE: " + (
                f"rerun with draws={self.draws_to_settle:,} "
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
@dataclass(frozen=True, eq=False)
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
    hints : {"python", "command"}
        How the text tells an INCONCLUSIVE check's next step: a
        :func:`f1posterior.plan` call (the library's default) or an
        ``f1posterior plan`` command (the command line's).

    See Also
    --------
    f1posterior.gate : Computes it (``gate_multilabel`` for multi-label tables).
    Check : The verdict of one check.

    Examples
    --------
    >>> from f1posterior import Floor, gate
    >>> res = gate([[40, 10], [5, 45]], [Floor("micro_f1", 0.75)], beta="aligned")
    >>> res.verdict, res.passed, len(res.checks)
    ('pass', True, 1)
    >>> res.to_dict()["checks"][0]["condition"]
    'micro_f1 >= 0.75'
    """

    checks: tuple[Check, ...]
    prior: str
    draws: int
    seed: Any
    source: str | None = None
    baseline_source: str | None = field(default=None)
    config: str | None = None
    hints: str = field(default="python", compare=False)

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

    @property
    def prior_dominated(self) -> tuple[str, ...]:
        """The conditions of the checks whose posterior the prior dominates (in order)."""
        return tuple(c.condition for c in self.checks if c.prior_dominated)

    def prior_warning(self, escape: Any = escape_text) -> str | None:
        """One line naming the prior-dominated checks, or None (stderr on the command line).

        The checks of one metric and threshold are named together, their classes (and
        matrices) in brackets: ``recall [class a, class c] >= 0.6``.
        """
        from ..posterior import prior_warning_line

        groups: dict[tuple[str, str, float], list[str]] = {}
        for c in self.checks:
            if c.prior_dominated:
                groups.setdefault((c.kind, c.metric, c.threshold), []).append(escape(c.item))
        names = []
        for (kind, metric, t), items in groups.items():
            where = f" [{', '.join(items)}]" if any(items) else ""
            compared = f": {_COMPARED[kind]}" if kind in _COMPARED else ""
            names.append(f"{metric}{where}{compared} >= {t:g}")
        return prior_warning_line(names)

    def _header(self) -> str:
        return f"prior {self.prior}; {self._how()}; seed {self.seed}"

    def _how(self) -> str:
        sampled = any(not c.exact for c in self.checks)
        how = f"{self.draws:,} draws" if sampled else "exact (closed form)"
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
        # the verdict first (what a test runner's one-line summary shows), and again last
        lines = [self._footer()]
        if self.source:
            lines.append(f"Input: {escape_text(self.source)}")
        if self.baseline_source:
            lines.append(f"Baseline: {escape_text(self.baseline_source)}")
        if self.config:
            lines.append(f"Config: {escape_text(self.config)}")
        lines.append(f"Gate: {self._header()}")
        lines += [c._text(self._hint(c, " (", ")")) for c in self.checks]
        lines += [w for w in [self.prior_warning()] if w]
        lines.append(self._footer())
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dictionary: ``passed``, ``checks`` (list), ``prior``, ``draws``, ..."""
        return {
            "verdict": self.verdict,
            "passed": self.passed,
            "within_noise": self.within_noise,
            "prior_dominated": list(self.prior_dominated),
            "checks": [c.to_dict() for c in self.checks],
            "prior": self.prior,
            "draws": self.draws,
            "seed": seed_json(self.seed),
            "source": self.source,
            "baseline_source": self.baseline_source,
            "config": self.config,
        }

    def _hint(self, c: Check, before: str = "", after: str = "") -> str:
        """For an inconclusive check: the ``plan`` call (or command) that would settle it."""
        if c.verdict != "inconclusive" or c.kind == "relative":  # plan takes absolute margins
            return ""
        if self.hints == "command":
            import re

            def plain(path: str | None, default: str) -> str:  # safe in a shell and Markdown
                return path if path and re.fullmatch(r"[\w./-]+", path) else default

            cmd = f"f1posterior plan {plain(self.source, 'FILE')} --metric {c.metric}"
            if c.kind == "baseline":
                base = plain(self.baseline_source, "BASEFILE")
                cmd += f" --baseline {base} --max-drop {abs(c.threshold):g}"
            else:
                cmd += f" --min {c.threshold:g}"
            return f"{before}run `{cmd}` to see how many more documents would settle it{after}"
        if c.kind == "baseline":
            args = f"baseline=baseline_counts, max_drop={abs(c.threshold):g}"
        else:
            args = f"threshold={c.threshold:g}"
        call = f"f1posterior.plan(counts, metric={c.metric!r}, {args})"
        return f"{before}call `{call}` to see how many more documents would settle it{after}"

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
                ("ci_prob", f"{c.ci_prob:g}"),
                ("exact", str(c.exact).lower()),
                ("draws", str(c.draws)),
                ("seed", escape_text(str(self.seed))),
                ("prior_dominated", str(c.prior_dominated).lower()),
            ):
                ET.SubElement(cp, "property", name=key, value=value)
            if c.prior_dominated:
                from ..posterior import PRIOR_DOMINATED_WHY

                out = f"{PRIOR_DOMINATED}: {PRIOR_DOMINATED_WHY}; the verdict may be the prior's"
                ET.SubElement(case, "system-out").text = out
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
            if c.prior_dominated:
                note += f"; **{PRIOR_DOMINATED}**"
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
        warning = self.prior_warning(escape_markdown)
        if warning:
            lines += ["", f"**{PRIOR_DOMINATED}**: {warning.removeprefix('warning: ')}"]
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
            if c.verdict == "inconclusive" and self._hint(c)
        ]
        if hints:
            lines += ["", "Inconclusive checks:", "", *hints]
        return "\n".join(lines)


def _md_path(path: str) -> str:
    """A file name in Markdown: a code span when that is safe, else escaped text."""
    if "`" not in path and escape_text(path) == path:
        return f"`{path}`"
    return escape_markdown(path)
