"""Three-state verdicts (PASS / FAIL / INCONCLUSIVE) and their exit codes (issue 13)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from f1posterior.gate import gate

NEW = [[40, 10], [5, 45]]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "f1posterior", *args], capture_output=True, text=True, timeout=120
    )


@pytest.fixture()
def matrix(tmp_path: Path) -> str:
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"matrix": NEW, "labels": ["cat", "dog"]}))
    return str(path)


def test_floor_three_states_follow_the_rule() -> None:
    kw = dict(alpha=1.0, beta="aligned")  # exact probabilities
    for t, want in ((0.75, "pass"), (0.85, "inconclusive"), (0.92, "fail")):
        (c,) = gate(NEW, minimums={"micro_f1": t}, **kw).checks
        p = c.prob
        rule = "pass" if p >= 0.95 else "fail" if 1 - p >= 0.95 else "inconclusive"
        assert c.verdict == rule == want, (t, p)
        assert c.passed == (want == "pass") and c.text.startswith(want.upper() + "  ")


def test_overall_verdict_fail_beats_inconclusive_beats_pass() -> None:
    kw = dict(alpha=1.0, beta="aligned")
    res = gate(NEW, minimums=[("micro_f1", 0.75), ("micro_f1", 0.85)], **kw)
    assert [c.verdict for c in res.checks] == ["pass", "inconclusive"]
    assert res.verdict == "inconclusive" and not res.passed
    res = gate(NEW, minimums=[("micro_f1", 0.85), ("micro_f1", 0.92)], **kw)
    assert res.verdict == "fail"
    d = res.to_dict()
    assert d["verdict"] == "fail" and [c["verdict"] for c in d["checks"]] == [
        "inconclusive",
        "fail",
    ]
    assert gate(NEW, minimums={"micro_f1": 0.7}, **kw).verdict == "pass"


def test_baseline_is_non_inferiority_with_margin() -> None:
    worse = [[30, 20], [15, 35]]
    res = gate(NEW, baseline=NEW, max_drop=0.0, draws=20_000)
    (c,) = res.checks
    assert c.verdict == "inconclusive" and abs(c.prob - 0.5) < 0.02
    (c,) = gate(NEW, baseline=NEW, max_drop=0.2, draws=20_000).checks
    assert c.verdict == "pass" and c.threshold == -0.2
    (c,) = gate(worse, baseline=NEW, max_drop=0.0, draws=20_000).checks
    assert c.verdict == "fail" and 1 - c.prob >= 0.95


@pytest.mark.parametrize("prob", [0.5, 0.3, 1e-300])
def test_prob_at_or_below_one_half_is_refused(prob: float) -> None:
    with pytest.raises(ValueError, match=r"prob must be in \(0.5, 1\)"):
        gate(NEW, minimums={"micro_f1": 0.5}, prob=prob)


def test_self_gate_max_drop_0_is_inconclusive_exit_3(matrix: str) -> None:
    r = cli("gate", matrix, "--baseline", matrix, "--max-drop", "0", "--draws", "20000")
    assert r.returncode == 3, r.stdout + r.stderr
    assert r.stdout.splitlines()[-2].startswith("INCONCLUSIVE  micro_f1: new - baseline >= 0")
    assert r.stdout.splitlines()[-1].startswith("GATE INCONCLUSIVE")
    for policy, code in (("pass", 0), ("fail", 1)):
        r2 = cli("gate", matrix, "--baseline", matrix, "--draws", "20000", "--inconclusive", policy)
        assert r2.returncode == code and r2.stdout == r.stdout


def test_exit_codes_and_verdict_words_in_every_format(matrix: str) -> None:
    base = [matrix, "--prior", "aligned", "--metric", "micro_f1", "--min"]
    for t, code, word in (("0.75", 0, "PASS"), ("0.85", 3, "INCONCLUSIVE"), ("0.92", 1, "FAIL")):
        r = cli("gate", *base, t)
        assert r.returncode == code and r.stdout.splitlines()[2].startswith(word + "  ")
        j = cli("gate", *base, t, "--format", "json")
        assert j.returncode == code and json.loads(j.stdout)["verdict"] == word.lower()
        m = cli("gate", *base, t, "--format", "markdown")
        assert m.returncode == code and f" {word} | micro_f1 >= {t} |" in m.stdout
    # --inconclusive never changes a FAIL
    assert cli("gate", *base, "0.92", "--inconclusive", "pass").returncode == 1


def test_help_states_the_rule() -> None:
    r = cli("gate", "--help")
    text = " ".join(r.stdout.split())
    assert "not credibly below" not in text
    assert "FAILS when P(metric < T | data) >= P" in text
    assert "P(new - base < -D | data) >= P" in text
    assert "3 inconclusive" in text
