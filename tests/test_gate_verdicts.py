"""Three-state verdicts (PASS / FAIL / INCONCLUSIVE) and their exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import forged_npy

from f1posterior import Floor, NonInferiority
from f1posterior.gating._gate import MIN_DRAWS, gate

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
        (c,) = gate(NEW, [Floor("micro_f1", t)], **kw).checks
        p = c.prob
        rule = "pass" if p >= 0.95 else "fail" if 1 - p >= 0.95 else "inconclusive"
        assert c.verdict == rule == want, (t, p)
        assert c.passed == (want == "pass") and c.text.startswith(want.upper() + "  ")


def test_overall_verdict_fail_beats_inconclusive_beats_pass() -> None:
    kw = dict(alpha=1.0, beta="aligned")
    res = gate(NEW, [Floor("micro_f1", 0.75), Floor("micro_f1", 0.85)], **kw)
    assert [c.verdict for c in res.checks] == ["pass", "inconclusive"]
    assert res.verdict == "inconclusive" and not res.passed
    res = gate(NEW, [Floor("micro_f1", 0.85), Floor("micro_f1", 0.92)], **kw)
    assert res.verdict == "fail"
    d = res.to_dict()
    assert d["verdict"] == "fail" and [c["verdict"] for c in d["checks"]] == [
        "inconclusive",
        "fail",
    ]
    assert gate(NEW, [Floor("micro_f1", 0.7)], **kw).verdict == "pass"


def test_baseline_is_non_inferiority_with_margin() -> None:
    worse = [[30, 20], [15, 35]]
    res = gate(NEW, [NonInferiority("micro_f1", 0.0)], baseline=NEW, draws=20_000)
    (c,) = res.checks
    assert c.verdict == "inconclusive" and abs(c.prob - 0.5) < 0.02
    (c,) = gate(NEW, [NonInferiority("micro_f1", 0.2)], baseline=NEW, draws=20_000).checks
    assert c.verdict == "pass" and c.threshold == -0.2
    (c,) = gate(worse, [NonInferiority("micro_f1", 0.0)], baseline=NEW, draws=20_000).checks
    assert c.verdict == "fail" and 1 - c.prob >= 0.95


@pytest.mark.parametrize("prob", [0.5, 0.3, 1e-300])
def test_prob_at_or_below_one_half_is_refused(prob: float) -> None:
    with pytest.raises(ValueError, match=r"prob must be in \(0.5, 1\)"):
        gate(NEW, [Floor("micro_f1", 0.5)], prob=prob)


def test_self_gate_max_drop_0_is_inconclusive_exit_3(matrix: str) -> None:
    r = cli("gate", matrix, "--baseline", matrix, "--max-drop", "0", "--draws", "20000")
    assert r.returncode == 3, r.stdout + r.stderr
    assert r.stdout.splitlines()[-3].startswith("INCONCLUSIVE  micro_f1: new - baseline >= 0")
    assert r.stdout.splitlines()[-2].startswith("Receipt: f1posterior ")
    assert r.stdout.splitlines()[-1].startswith("GATE INCONCLUSIVE")
    for policy, code in (("pass", 0), ("fail", 1)):
        r2 = cli("gate", matrix, "--baseline", matrix, "--draws", "20000", "--inconclusive", policy)
        assert r2.returncode == code and r2.stdout == r.stdout


def test_exit_codes_and_verdict_words_in_every_format(matrix: str) -> None:
    base = [matrix, "--prior", "aligned", "--metric", "micro_f1", "--min"]
    for t, code, word in (("0.75", 0, "PASS"), ("0.85", 3, "INCONCLUSIVE"), ("0.92", 1, "FAIL")):
        r = cli("gate", *base, t)
        assert r.returncode == code and r.stdout.splitlines()[3].startswith(word + "  ")
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


# --- adaptive draws (item 2) ---------------------------------------------------------


def test_one_draw_never_passes_a_floor_above_the_observed_score(matrix: str) -> None:
    # observed micro_f1 0.85; one posterior draw used to give P = 1.0000 with MC error 0
    for seed in ("1", "2", "3"):
        r = cli("gate", matrix, "--metric", "macro_f1", "--min", "0.86", "--draws", "1",
                "--seed", seed)  # fmt: skip
        assert r.returncode in (1, 3), r.stdout + r.stderr
        assert not r.stdout.splitlines()[2].startswith("PASS")
    res = gate(NEW, [Floor("macro_f1", 0.86)], draws=1)
    assert res.draws >= MIN_DRAWS and res.checks[0].draws >= MIN_DRAWS and not res.passed


def test_boundary_resolves_or_is_inconclusive_with_reason() -> None:
    x = gate(NEW, [Floor("macro_f1", 0.5)], draws=2_000).checks[0]
    assert x.verdict == "pass" and x.draws == 2_000  # far from both boundaries: one round
    # the threshold at which P(macro_f1 >= T) is about 0.95: drawn again, doubling
    big = gate(NEW, [Floor("macro_f1", 0.5)], draws=200_000, max_draws=200_000)
    t = float(np.quantile(_macro_draws(200_000), 0.05))
    (c,) = gate(NEW, [Floor("macro_f1", t)], draws=2_000, max_draws=64_000).checks
    assert c.draws > 2_000 and (c.draws // 2_000) & (c.draws // 2_000 - 1) == 0  # 2^k rounds
    if c.within_noise:
        assert c.verdict == "inconclusive" and c.draws == 64_000
        assert c.reason == "within Monte Carlo noise at 64,000 draws"
    else:
        se = np.sqrt(c.prob * (1 - c.prob) / c.draws)
        assert abs(c.prob - 0.95) > 2 * se and c.reason == ""
    assert big.checks[0].verdict == "pass"


def _macro_draws(n: int) -> np.ndarray:
    from f1posterior import evaluate

    e = evaluate(NEW, metrics=["macro_f1"], draws=n, rng=99, keep_draws=True)
    assert e.metric_draws is not None
    return np.asarray(e.metric_draws["macro_f1"])


def test_adaptive_draws_are_reproducible_and_leave_the_callers_seed_alone() -> None:
    t = float(np.quantile(_macro_draws(200_000), 0.05))
    kw = dict(checks=[Floor("macro_f1", t)], draws=2_000, max_draws=32_000)
    a, b = gate(NEW, **kw), gate(NEW, **kw)
    assert a.checks[0].draws > 2_000  # it did adapt
    assert a == b and a.checks[0].prob == b.checks[0].prob and a.verdict == b.verdict
    seq = np.random.SeedSequence(12345)
    c = gate(NEW, rng=seq, **kw)
    assert seq.n_children_spawned == 0
    assert gate(NEW, rng=seq, **kw) == c == gate(NEW, rng=12345, **kw)


def test_exact_probabilities_never_draw_more() -> None:
    from scipy import stats

    a = np.asarray(NEW, float) + 1.0  # alpha = 1, aligned beta: micro_f1 ~ Beta(trace, rest)
    t = float(stats.beta(np.trace(a), a.sum() - np.trace(a)).isf(0.95))
    (c,) = gate(NEW, [Floor("micro_f1", t)], alpha=1.0, beta="aligned").checks
    assert c.exact and c.draws == 0 and c.reason == "" and not c.within_noise


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(draws=5_000, max_draws=2_000), r"draws \(5,000\) must not exceed max_draws"),
        (dict(max_draws=10**13), r"max_draws must be at most 100,000,000"),
        (dict(draws=0), r"draws must be an integer >= 1"),
    ],
)
def test_draw_limits(kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        gate(NEW, [Floor("micro_f1", 0.5)], **kwargs)


def test_cli_max_draws_and_reason(matrix: str) -> None:
    # P(new - base >= 0) is 1/2 exactly for a model against itself; --prob 0.52 puts both
    # boundaries (0.52 and 0.48) within the noise of a few thousand draws
    r = cli("gate", matrix, "--baseline", matrix, "--prob", "0.52", "--draws", "1000",
            "--max-draws", "4000")  # fmt: skip
    line = r.stdout.splitlines()[-3]  # then the receipt, then the verdict
    assert r.returncode == 3 and line.startswith("INCONCLUSIVE")
    assert "(4,000 draws)" in line  # drawn again up to --max-draws
    assert line.endswith("; within Monte Carlo noise at 4,000 draws")
    h = " ".join(cli("gate", "--help").stdout.split())
    assert "values below 1,000 are raised to 1,000" in h and "--max-draws N" in h


# --- every failure: one line on stderr, exit 2 (item 3) ------------------------------


@pytest.mark.parametrize(
    ("case", "extra", "message"),
    [
        ("deep.json", [], r"nested too deeply \(RecursionError"),
        ("empty.npy", [], r"ended unexpectedly .*\(EOFError"),
        ("forged.npy", [], r"(MemoryError|ValueError|cannot|shape)"),
        ("m.json", ["--prob", "1e-300"], r"--prob: expected a number in \(0.5, 1\); got '1e-300'"),
        ("m.json", ["--draws", "1e13"], r"--draws: expected an integer >= 1; got '1e13'"),
        ("m.json", ["--draws", "10000000000000"], r"must not exceed max_draws"),
        ("m.json", ["--max-draws", "10000000000000"], r"max_draws must be at most"),
    ],
)
def test_hostile_inputs_exit_2_one_line(
    tmp_path: Path, matrix: str, case: str, extra: list[str], message: str
) -> None:
    path = tmp_path / case
    if case == "deep.json":
        path.write_text("[" * 100_000)
    elif case == "empty.npy":
        path.write_bytes(b"")
    elif case == "forged.npy":
        path.write_bytes(forged_npy((100000000, 100000000), bytes(64)))
    else:
        path = Path(matrix)
    r = cli("gate", str(path), "--metric", "micro_f1", "--min", "0.5", *extra)
    assert r.returncode == 2, r.stderr
    assert r.stdout == "" and "Traceback" not in r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("f1posterior gate: error: "), r.stderr
    assert __import__("re").search(message, lines[0]), lines[0]


@pytest.mark.parametrize(
    ("exc", "code", "message"),
    [
        (ZeroDivisionError("float division by zero"), 2, "error: division by zero"),
        (RuntimeError("boom\nsecond line"), 2, "error: RuntimeError: boom second line"),
        (MemoryError(), 2, "error: not enough memory"),
        (KeyboardInterrupt(), 130, "interrupted"),
        (BrokenPipeError(), 141, None),
    ],
)
def test_main_turns_every_exception_into_one_line(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    matrix: str,
    exc: BaseException,
    code: int,
    message: str | None,
) -> None:
    from f1posterior.cli import _gate as gate_cli
    from f1posterior.cli import main

    def boom(args: object) -> int:
        raise exc

    monkeypatch.setattr(gate_cli, "run", boom)
    assert main(["gate", matrix, "--metric", "micro_f1", "--min", "0.5"]) == code
    err = capsys.readouterr().err
    if message is None:  # a closed stdout: quiet
        assert err == ""
    else:
        assert err.count("\n") == 1 and err.startswith("f1posterior gate: ") and message in err


# --- inputs that corrupt verdicts (item 4) -------------------------------------------


@pytest.mark.parametrize(
    ("name", "content", "extra", "message"),
    [
        ("dup.json", json.dumps({"matrix": [[45, 5], [3, 47]], "labels": ["a", "a"]}),
         ["--labels", "a,b"], r"the file's labels repeat 'a'"),
        ("dup.json", json.dumps({"matrix": [[45, 5], [3, 47]], "labels": ["a", "a"]}), [],
         r"the file's labels repeat 'a'"),
        ("dup.csv", ",a,a\na,45,5\na,3,47\n", ["--labels", "a,b"], r"labels repeat 'a'"),
        ("ok.json", json.dumps({"matrix": [[45, 5], [3, 47]]}), ["--labels", "a,a"],
         r"--labels: class label 'a' is given twice"),
        ("p.csv", "y_true,y_pred\na,a\nb,b\n", ["--labels", "a,b,a"], r"'a' is given twice"),
    ],
)  # fmt: skip
def test_duplicate_labels_are_input_errors(
    tmp_path: Path, name: str, content: str, extra: list[str], message: str
) -> None:
    path = tmp_path / name
    path.write_text(content)
    r = cli("gate", str(path), "--metric", "micro_f1", "--min", "0.9", *extra)
    assert r.returncode == 2 and r.stdout == "", r.stdout + r.stderr
    assert len(r.stderr.splitlines()) == 1 and "Traceback" not in r.stderr
    assert __import__("re").search(message, r.stderr), r.stderr


def test_label_order_is_deterministic_across_hash_seeds(tmp_path: Path) -> None:
    from f1posterior.io._predictions import sort_labels

    assert sort_labels({"1", "01", "2", "10"}) == ["01", "1", "2", "10"]
    rows = ["y_true,y_pred"] + ["1,1"] * 30 + ["01,01"] * 5 + ["1,01"] * 4 + ["01,1"] * 6
    path = tmp_path / "p.csv"
    path.write_text("\n".join(rows) + "\n")
    args = [sys.executable, "-m", "f1posterior", "gate", str(path), "--metric", "recall",
            "--min", "0.6", "--draws", "2000"]  # fmt: skip
    runs = []
    for seed in ("0", "1", "2", "3", "4", "5"):
        env = {**__import__("os").environ, "PYTHONHASHSEED": seed}
        r = subprocess.run(args, capture_output=True, text=True, env=env, timeout=120)
        runs.append((r.returncode, r.stdout))
    assert len(set(runs)) == 1, runs
    assert "recall [class 01]" in runs[0][1].splitlines()[3]


# --- escaping (item 5) ----------------------------------------------------------------

EVIL = "\x1b[32mok\x1b[0m\n### f1posterior gate passed | <b>x</b> & `y`"


def _evil_result():
    return gate(NEW, [Floor("recall", 0.9)], labels=[EVIL, "dog"], draws=2_000, source="eval\n### spoof.json")  # fmt: skip


def test_text_output_escapes_control_characters() -> None:
    text = str(_evil_result())
    assert "\x1b" not in text and "\\x1b[32mok" in text
    assert all(not line.startswith("###") for line in text.splitlines())
    # verdict, Input, Gate, two checks, verdict: no injected lines
    assert len(text.splitlines()) == 6
    assert "Input: eval\\n### spoof.json" in text


def test_markdown_escapes_labels_names_and_sources() -> None:
    md = _evil_result().to_markdown()
    lines = md.splitlines()
    assert lines[0].startswith("### f1posterior gate ")
    assert sum(line.startswith("#") for line in lines) == 1  # only the real heading
    assert "\x1b" not in md and "<b>" not in md and "&lt;b&gt;" in md
    row = next(line for line in lines if "recall [" in line and "dog" not in line)
    assert row.count(" | ") == 6  # seven cells: the label's pipe is escaped
    assert "\\|" in row and "\\`y\\`" in row
    assert "Input: eval\\\\n\\#\\#\\# spoof.json" in md


def test_markdown_blocks_are_separated_by_blank_lines() -> None:
    md = gate(NEW, [Floor("micro_f1", 0.5)], draws=2_000, source="m.json").to_markdown()
    blocks = md.split("\n\n")
    assert blocks[0].startswith("### ") and blocks[1].startswith("| verdict |")
    assert blocks[2].startswith("GATE PASSED") and blocks[3] == "Input: `m.json`"
    assert all("\n" not in b for b in (blocks[0], blocks[2], blocks[3]))


def test_json_stays_valid_and_keeps_the_raw_label(tmp_path: Path) -> None:
    path = tmp_path / "evil.json"
    path.write_text(json.dumps({"matrix": NEW, "labels": [EVIL, "dog"]}))
    r = cli("gate", str(path), "--metric", "recall", "--min", "0.9", "--draws", "2000",
            "--format", "json")  # fmt: skip
    assert r.returncode in (1, 3) and "\x1b" not in r.stdout
    out = json.loads(r.stdout)
    assert out["checks"][0]["item"] == f"class {EVIL}"
    assert "\n" not in out["checks"][0]["text"] and "\x1b" not in out["checks"][0]["text"]
    t = cli("gate", str(path), "--metric", "recall", "--min", "0.9", "--draws", "2000")
    assert "\x1b" not in t.stdout and not any(x.startswith("###") for x in t.stdout.splitlines())
    m = cli("gate", str(path), "--metric", "recall", "--min", "0.9", "--draws", "2000",
            "--format", "markdown")  # fmt: skip
    assert sum(x.startswith("#") for x in m.stdout.splitlines()) == 1


def test_error_messages_escape_control_characters(tmp_path: Path) -> None:
    path = tmp_path / "e.json"
    path.write_text(json.dumps({"matrix": NEW, "labels": ["\x1b[31ma", "\x1b[31ma"]}))
    r = cli("gate", str(path), "--metric", "micro_f1", "--min", "0.5")
    assert r.returncode == 2 and "\x1b" not in r.stderr and len(r.stderr.splitlines()) == 1


# --- JUnit XML and assert_gate(inconclusive=...) (item 6) ----------------------------


def test_junit_xml_one_testcase_per_check(tmp_path: Path, matrix: str) -> None:
    import xml.etree.ElementTree as ET

    out = tmp_path / "junit.xml"
    r = cli("gate", matrix, "--prior", "aligned", "--metric", "micro_f1", "--min", "0.75",
            "--metric", "micro_f1", "--min", "0.85", "--metric", "recall", "--min", "0.92",
            "--junit-xml", str(out))  # fmt: skip
    assert r.returncode == 1, r.stderr
    suite = ET.parse(out).getroot()
    assert suite.tag == "testsuite" and suite.get("tests") == "4"
    # PASS, INCONCLUSIVE (P = 0.37), FAIL (cat's recall 0.80), INCONCLUSIVE (dog's 0.90)
    assert (suite.get("failures"), suite.get("skipped"), suite.get("errors")) == ("1", "2", "0")
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == [
        "micro_f1 >= 0.75", "micro_f1 >= 0.85", "recall [class cat] >= 0.92",
        "recall [class dog] >= 0.92"]  # fmt: skip
    assert cases[0].find("failure") is None and cases[0].find("skipped") is None
    assert cases[1].find("skipped") is not None and cases[1].find("failure") is None
    assert cases[2].find("failure") is not None and cases[3].find("skipped") is not None
    props = {p.get("name"): p.get("value") for p in cases[1].iter("property")}
    assert set(props) >= {"probability", "hdi", "draws", "seed", "verdict"}
    assert props["seed"] == "20150927" and props["verdict"] == "inconclusive"
    assert float(props["probability"]) == pytest.approx(0.3748, abs=1e-4)
    assert not any(p.name.startswith(".junit.xml.") for p in tmp_path.iterdir())  # no temp left


def test_junit_xml_skipped_reason_and_escaping(tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    res = gate(NEW, [Floor("macro_f1", 0.5), NonInferiority("micro_f1")], baseline=NEW, labels=[EVIL, "dog"], draws=1_000, max_draws=1_000, prob=0.52)  # fmt: skip
    text = res.to_junit_xml()
    assert "\x1b" not in text
    suite = ET.fromstring(text.split("\n", 1)[1])
    skipped = [c.find("skipped") for c in suite.findall("testcase")]
    reasons = [s.get("message") for s in skipped if s is not None]
    assert reasons and all("within Monte Carlo noise at 1,000 draws" in m or
                           m.startswith("inconclusive: P =") for m in reasons)  # fmt: skip


def test_junit_xml_unwritable_is_exit_2(tmp_path: Path, matrix: str) -> None:
    r = cli("gate", matrix, "--metric", "micro_f1", "--min", "0.5",
            "--junit-xml", str(tmp_path / "no" / "such" / "dir" / "j.xml"))  # fmt: skip
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1
    assert "--junit-xml" in r.stderr and r.stdout == ""


def test_assert_gate_inconclusive_policy() -> None:
    from f1posterior.gating._gate import assert_gate

    kw = dict(checks=[Floor("micro_f1", 0.85)], alpha=1.0, beta="aligned")  # INCONCLUSIVE
    with pytest.raises(AssertionError, match="INCONCLUSIVE  micro_f1 >= 0.85"):
        assert_gate(NEW, **kw)
    assert assert_gate(NEW, inconclusive="pass", **kw).verdict == "inconclusive"
    with pytest.raises(AssertionError, match="FAIL  micro_f1 >= 0.92"):  # a FAIL always raises
        assert_gate(NEW, [Floor("micro_f1", 0.92)], inconclusive="pass", alpha=1.0, beta="aligned")  # fmt: skip
    with pytest.raises(ValueError, match='inconclusive must be "pass" or "fail"'):
        assert_gate(NEW, inconclusive="maybe", **kw)


def test_assert_gate_frame_is_hidden_from_pytest() -> None:
    import inspect

    from f1posterior.gating._gate import assert_gate

    assert "__tracebackhide__ = True" in inspect.getsource(assert_gate)


def test_result_draws_are_the_first_rounds_and_the_footer_keeps_the_prior_whole() -> None:
    res = gate(NEW, [Floor("micro_f1", 0.5), NonInferiority("micro_f1")], baseline=NEW, prob=0.52, draws=1_000, max_draws=4_000)  # fmt: skip
    floor, base = res.checks
    # only a check within noise is drawn again (its own draws do not depend on the
    # other checks); the result reports the first round's
    assert res.draws == 1_000 and floor.draws == 1_000 and base.draws == 4_000
    assert "1,000 draws (more where marked: adaptive draws)" in str(res).splitlines()[1]
    footer = res.to_markdown().split("\n\n")[2]
    assert f"Prior: {res.prior}; 1,000 draws (more where marked" in footer
    assert footer.endswith("; seed 20150927.")
