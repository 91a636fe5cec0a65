"""Every output says when the prior decides: gate text, JSON, Markdown, JUnit and stderr;
the HTML (and Markdown) report; the summarize warning, naming the classes.

The flag is ``MetricSummary.prior_dominated`` (the prior moves the posterior mean by more
than half a posterior SD from a vanishing prior's). Its truth here is independent of the
package's code: under ``alpha = 1, beta = "aligned"`` micro-F1 is Beta(trace(A), rest of A)
with A = 1 + C, so its posterior mean and SD are closed forms; on the 10-class, 540-document
table with micro-F1 0.952 the shift is about 8.7 SDs. Negative control in every format: a
large table (5,400 documents) under the default prior, where nothing is flagged.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from f1posterior import Floor, JointFloor, NonInferiority, evaluate, gate, gate_multilabel
from f1posterior.report._html import render_report


def _ten(correct: int, per_class: int = 54) -> np.ndarray:
    c = np.diag(np.full(10, per_class))
    for e in range(10 * per_class - correct):
        j = e % 10
        c[j, j] -= 1
        c[j, (j + 1 + e // 10) % 10] += 1
    return c


SMALL = _ten(514)  # 540 documents, micro-F1 0.952
LARGE = _ten(5140, per_class=540)  # ten times the documents, same rates
ALIGNED = dict(alpha=1.0, beta="aligned")
LABELS = [f"c{j}" for j in range(10)]


def test_the_flag_agrees_with_the_closed_form_shift():
    a = SMALL + 1.0
    d, rest = np.trace(a), a.sum() - np.trace(a)
    mean = d / (d + rest)
    sd = np.sqrt(mean * (1 - mean) / (d + rest + 1))
    shift = abs(mean - np.trace(SMALL) / SMALL.sum()) / sd
    assert 8 < shift < 9.5
    s = evaluate(SMALL, metrics="micro_f1", **ALIGNED)["micro_f1"]
    assert s.prior_dominated and s.prior_shift == pytest.approx(shift, rel=1e-9)
    # negative control: the default prior on the large table, under half an SD
    big = evaluate(LARGE, metrics="micro_f1", draws=20_000, rng=1)["micro_f1"]
    assert not big.prior_dominated and big.prior_shift < 0.5


# --- the gate, in Python ---------------------------------------------------------------
def _gates():
    floors = [Floor("micro_f1", 0.8), Floor("recall", 0.6)]
    flagged = gate(SMALL, floors, labels=LABELS, **ALIGNED)
    clean = gate(LARGE, floors, labels=LABELS, draws=5_000)
    return flagged, clean


def test_gate_checks_text_and_json():
    flagged, clean = _gates()
    assert all(c.prior_dominated for c in flagged.checks)
    assert not any(c.prior_dominated for c in clean.checks)
    text = str(flagged)
    micro = next(ln for ln in text.splitlines() if ln.startswith("INCONCLUSIVE  micro_f1"))
    assert micro.endswith("; exact; prior-dominated")
    warning = [ln for ln in text.splitlines() if ln.startswith("warning: the prior dominates")]
    assert len(warning) == 1
    assert "micro_f1 >= 0.8; recall [class c0, class c1," in warning[0]
    assert "class c9] >= 0.6: it moves the posterior mean" in warning[0]
    assert "prior-dominated" not in str(clean) and "prior dominates" not in str(clean)
    d = flagged.to_dict()
    assert d["prior_dominated"][0] == "micro_f1 >= 0.8" and len(d["prior_dominated"]) == 11
    assert all(c["prior_dominated"] is True for c in d["checks"])
    assert "prior-dominated" in d["checks"][0]["text"]
    e = json.loads(json.dumps(clean.to_dict()))
    assert e["prior_dominated"] == [] and not any(c["prior_dominated"] for c in e["checks"])


def test_gate_markdown_and_junit():
    flagged, clean = _gates()
    md = flagged.to_markdown()
    row = next(ln for ln in md.splitlines() if "micro_f1 >= 0.8" in ln and ln.startswith("|"))
    assert row.endswith("exact; **prior-dominated** |")
    assert "**prior-dominated**: the prior dominates micro_f1 >= 0.8; recall [class c0," in md
    assert "prior-dominated" not in clean.to_markdown()
    suite = ET.fromstring(flagged.to_junit_xml().split("\n", 1)[1])
    for case in suite.iter("testcase"):
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        assert props["prior_dominated"] == "true"
        assert case.find("system-out").text.startswith("prior-dominated: the prior moves")
    suite = ET.fromstring(clean.to_junit_xml().split("\n", 1)[1])
    for case in suite.iter("testcase"):
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        assert props["prior_dominated"] == "false" and case.find("system-out") is None


def test_gate_baseline_and_joint_checks_are_flagged_by_either_table():
    # the baseline check is flagged when either model's posterior is prior-dominated
    kw = dict(draws=4_000)
    both = gate(
        SMALL, [NonInferiority("micro_f1", 0.05)], baseline=SMALL, alpha="paper", beta="paper", **kw
    )
    assert both.checks[0].prior_dominated
    small_base = gate(
        LARGE, [NonInferiority("micro_f1", 0.05)], baseline=SMALL, alpha="paper", beta="paper", **kw
    )
    assert small_base.checks[0].prior_dominated  # only the baseline's table is small
    clean = gate(LARGE, [NonInferiority("micro_f1", 0.05)], baseline=LARGE, **kw)
    assert not clean.checks[0].prior_dominated
    joint = gate(SMALL, [JointFloor("recall", 0.6)], draws=4_000, **ALIGNED)
    assert len(joint.checks) == 1 and joint.checks[0].prior_dominated
    joint = gate(LARGE, [JointFloor("recall", 0.6)], draws=4_000)
    assert not joint.checks[0].prior_dominated


# --- the command line ------------------------------------------------------------------
def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "f1posterior", *args], capture_output=True, text=True, timeout=300
    )


@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
def test_gate_cli_warns_on_stderr_in_every_format(tmp_path, fmt):
    small, large = tmp_path / "small.json", tmp_path / "large.json"
    small.write_text(json.dumps(SMALL.tolist()))
    large.write_text(json.dumps(LARGE.tolist()))
    args = ["--metric", "micro_f1", "--min", "0.8", "--format", fmt]
    r = _cli("gate", str(small), "--prior", "aligned", *args)
    assert r.returncode == 3
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("f1posterior gate: warning: the prior dominates micro_f1 >= 0.8:")
    assert "prior-dominated" in r.stdout  # and in the report itself
    r = _cli("gate", str(large), "--draws", "5000", *args)  # negative control
    assert r.returncode == 0 and r.stderr == "" and "prior-dominated" not in r.stdout


def test_summarize_warning_names_the_classes(tmp_path):
    path = tmp_path / "small.json"
    path.write_text(json.dumps({"matrix": SMALL.tolist(), "labels": LABELS}))
    r = _cli("summarize", str(path), "--metric", "micro_f1", "--metric", "recall",
             "--prior", "paper", "--draws", "2000")  # fmt: skip
    assert r.returncode == 0
    (line,) = r.stderr.strip().splitlines()
    assert line.startswith("f1posterior: warning: the prior dominates micro_f1; recall [c0, c1,")
    # without labels, the classes are named by index
    path.write_text(json.dumps(SMALL.tolist()))
    r = _cli("summarize", str(path), "--metric", "f1", "--prior", "paper", "--draws", "2000")
    assert "the prior dominates f1 [class 0, class 1, " in r.stderr
    # a streamed batch (JSON lines, --output, the default prior): per class and per matrix;
    # no document informs the tiny table's class 2 (flagged under any prior); the big table
    # has nothing flagged
    batch = tmp_path / "batch.jsonl"
    batch.write_text(
        '{"matrix": [[3, 1, 0], [0, 4, 0], [0, 0, 0]], "name": "tiny"}\n'
        '{"matrix": [[500, 10, 5], [8, 480, 12], [3, 9, 490]], "name": "big"}\n'
    )
    out = tmp_path / "rows.csv"
    r = _cli("summarize", str(batch), "--metric", "recall", "--draws", "2000",
             "--output", str(out), "--chunk-size", "1")  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert re.search(
        r"the prior dominates recall \[(class \d, )*class 2\] \(1 of 2 matrices\)", r.stderr
    )
    # negative control: the large table alone under the default prior says nothing
    path.write_text(json.dumps(LARGE.tolist()))
    r = _cli("summarize", str(path), "--metric", "f1", "--draws", "2000")
    assert r.returncode == 0 and "prior dominates" not in r.stderr


# --- the HTML report -------------------------------------------------------------------
def test_html_report_marks_rows_and_names_the_classes():
    kw = dict(metrics=("micro_f1", "recall"), draws=2_000, rng=0, labels=LABELS)
    page = render_report(evaluate(SMALL, alpha="paper", beta="paper", **kw), plot=False)
    assert "<td>micro_f1 (prior-dominated)</td>" in page
    assert "<td>recall [class c3] (prior-dominated)</td>" in page
    assert "Warning: the prior dominates micro_f1; recall [c0, c1, c2," in page
    clean = render_report(evaluate(LARGE, **kw), plot=False)  # negative control
    assert "prior-dominated" not in clean and "prior dominates" not in clean


def test_multilabel_gate_flags_the_label_the_prior_decides():
    # label b: 5 documents, all right (F1 1.0, the posterior mean well below it); label a:
    # 1,000 documents (the negative control, in the same gate); alpha = beta = 1
    tables = [[[500, 30], [70, 400]], [[3, 0], [0, 2]]]
    kw = dict(labels=["a", "b"], draws=4_000, alpha="paper", beta="paper")
    res = gate_multilabel(tables, [Floor("f1", 0.5)], **kw)
    assert [c.prior_dominated for c in res.checks] == [False, True]
    assert "warning: the prior dominates f1 [label b] >= 0.5:" in str(res)
    res = gate_multilabel(
        tables, [Floor("f1", 0.5), NonInferiority("f1", 0.05)], baseline=tables, **kw
    )
    assert [c.prior_dominated for c in res.checks if c.kind == "baseline"] == [False, True]
