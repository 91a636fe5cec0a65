"""Messages: the verdict first, Python calls in the library and commands on the command line,
"did you mean" for metric names, the predictions-CSV column hint, command-line flag names,
the help's defaults and the tutorial's exit codes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import f1posterior
from f1posterior import Floor, NonInferiority, assert_gate, evaluate, gate
from f1posterior.cli import main
from f1posterior.io._readers import read_input

ROOT = Path(__file__).resolve().parents[1]
CM = [[40, 10], [5, 45]]  # micro_f1 0.85: P(>= 0.85) is near 1/2, so a floor there is unsure


# ------------------------------------------------------------------ verdict first


def test_assert_gate_message_starts_with_the_verdict():
    with pytest.raises(AssertionError) as info:
        assert_gate(CM, [Floor("micro_f1", 0.85)], beta="aligned", draws=2000)
    first = str(info.value).splitlines()[0]
    assert first == "GATE INCONCLUSIVE: 0 of 1 checks passed (1 inconclusive)"
    with pytest.raises(AssertionError) as info:
        assert_gate(CM, [Floor("micro_f1", 0.99)], draws=2000)
    assert str(info.value).startswith("GATE FAILED: 0 of 1 checks passed")


def test_str_of_a_gate_result_starts_and_ends_with_the_verdict():
    res = gate(CM, [Floor("micro_f1", 0.5)], draws=2000)
    lines = str(res).splitlines()
    assert lines[0] == lines[-1] == "GATE PASSED: 1 of 1 checks passed"
    assert lines[1].startswith("Gate: prior ")


# ------------------------------------------------------------------ next steps


def test_library_text_gives_a_python_call_not_a_command():
    res = gate(CM, [Floor("micro_f1", 0.85)], beta="aligned", draws=2000)
    assert res.verdict == "inconclusive"
    for text in (str(res), res.to_markdown()):
        assert "f1posterior.plan(counts, metric='micro_f1', threshold=0.85)" in text
        assert "f1posterior plan" not in text and "FILE" not in text
    base = gate(CM, [NonInferiority("micro_f1", 0.01)], baseline=CM, draws=2000)
    assert "baseline=baseline_counts, max_drop=0.01)" in str(base)


def test_command_line_text_gives_the_command(tmp_path, capsys):
    f = tmp_path / "m.json"
    f.write_text(json.dumps(CM))
    argv = ["gate", str(f), "--metric", "micro_f1", "--min", "0.85", "--draws", "2000"]
    assert main([*argv, "--prior", "aligned"]) == 3
    out = capsys.readouterr().out
    assert f"`f1posterior plan {f} --metric micro_f1 --min 0.85`" in out
    assert "f1posterior.plan(" not in out


# ------------------------------------------------------------------ did you mean


@pytest.mark.parametrize(
    "call",
    [
        lambda: evaluate(CM, metrics="macro-f1"),
        lambda: evaluate(CM, metrics=["micro_f1", "macro_f1s"]),
        lambda: gate(CM, [Floor("macro_f2", 0.5)]),
        lambda: f1posterior.evaluate_multilabel([[[5, 1], [2, 6]]], metrics="macro_f11"),
    ],
)
def test_unknown_metric_names_get_a_suggestion(call):
    with pytest.raises(ValueError, match=r"\(did you mean 'macro_f1'"):
        call()


def test_no_suggestion_for_a_name_like_nothing():
    with pytest.raises(ValueError) as info:
        evaluate(CM, metrics="zzzzzz")
    assert "did you mean" not in str(info.value)


@pytest.mark.parametrize("command", ["summarize", "gate", "plan", "aggregate", "compare"])
def test_command_line_metric_choices_get_a_suggestion(tmp_path, capsys, command):
    f = tmp_path / "m.json"
    f.write_text(json.dumps(CM))
    with pytest.raises(SystemExit) as info:
        main([command, str(f), "--metric", "macro_f1x"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1
    assert "invalid choice: 'macro_f1x' (did you mean 'macro_f1'" in err


def test_a_gate_config_metric_gets_a_suggestion(tmp_path, capsys):
    (tmp_path / "m.json").write_text(json.dumps(CM))
    cfg = tmp_path / "gate.toml"
    cfg.write_text('[[check]]\nmetric = "macro_f2"\nmin = 0.5\n')
    assert main(["gate", str(tmp_path / "m.json"), "--config", str(cfg)]) == 2
    err = capsys.readouterr().err
    assert "check[1].metric" in err and "got 'macro_f2' (did you mean 'macro_f1'" in err


# ------------------------------------------------------------------ inputs and flags


def test_a_predictions_csv_with_other_column_names_gets_the_column_hint(tmp_path, capsys):
    f = tmp_path / "p.csv"
    f.write_text("true,pred\n0,1\n1,1\n0,0\n")
    with pytest.raises(ValueError, match=r"--true-col NAME --pred-col NAME.*true_col="):
        read_input(f)
    assert main(["summarize", str(f)]) == 2
    err = capsys.readouterr().err
    assert "columns 'true', 'pred'" in err and "--true-col" in err and len(err.splitlines()) == 1
    # the hint is right: with the columns named, the file reads
    argv = ["summarize", str(f), "--true-col", "true", "--pred-col", "pred", "--draws", "1000"]
    assert main([*argv, "--format", "json"]) == 0
    capsys.readouterr()


def test_a_matrix_csv_error_gets_no_predictions_hint(tmp_path):
    f = tmp_path / "m.csv"
    f.write_text("1,2,3\n4,5,6\n")
    with pytest.raises(ValueError) as info:
        read_input(f)
    assert "--true-col" not in str(info.value)


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (
            ["--metric", "macro_f1", "--min", "80"],
            "--min for --metric macro_f1 must be a number in [0, 1]; a fraction, not a percentage; got 80",
        ),
        (
            ["--metric", "mcc", "--min", "-3"],
            "--min for --metric mcc must be a number in [-1, 1]; got -3",
        ),
        (
            ["--metric", "macro_f1", "--min", "0.5", "--prob", "0.3"],
            "argument --prob: expected a number in (0.5, 1); got '0.3'",
        ),
    ],
)
def test_command_line_errors_name_the_flag(tmp_path, capsys, flags, expected):
    f = tmp_path / "m.json"
    f.write_text(json.dumps(CM))
    try:
        code = main(["gate", str(f), *flags])
    except SystemExit as exc:  # argparse's own checks
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err
    assert expected in err and "minimums[" not in err and "prob must" not in err


def test_gate_help_shows_the_real_prior_default(capsys):
    with pytest.raises(SystemExit):
        main(["gate", "--help"])
    out = re.sub(r"\s+", " ", capsys.readouterr().out)
    assert "(default hierarchical)" in out and "(default None)" not in out


def test_tutorial_lists_every_exit_status_of_the_gate():
    text = (ROOT / "docs" / "tutorial.md").read_text()
    section = text.split("## 4. Gating in CI", 1)[1].split("\n## ", 1)[0]
    para = re.sub(r"\s+", " ", section)
    for code, word in ((0, "PASS"), (1, "FAIL"), (3, "INCONCLUSIVE"), (2, "bad input")):
        assert f"{code} ({word})" in para or f"{code} on {word}" in para, code


# ------------------------------------------------------------------ no RuntimeWarning


def test_unbounded_metrics_under_a_vanishing_prior_warn_nothing():
    """Odds-ratio draws that sum past the float range give an infinite mean, flagged, silently."""
    import warnings

    import numpy as np

    from f1posterior.metrics._registry import METRICS

    counts = np.array([[10, 0, 0, 0], [0, 0, 0, 0], [3, 0, 5, 0], [0, 0, 0, 0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        res = evaluate(counts, metrics=tuple(METRICS), alpha=1e-6, beta=1e-6, draws=5000, rng=9)
    dor = res["diagnostic_odds_ratio"]
    assert np.all(np.isinf(dor.mean)) and np.all(dor.prior_dominated)
    for name, s in res.items():  # every other summary stays finite where its draws are
        mean = np.asarray(s.mean)
        assert np.all(np.isfinite(mean) | np.asarray(s.prior_dominated)), name


def test_the_test_configuration_turns_runtime_warnings_into_errors():
    text = (ROOT / "pyproject.toml").read_text()
    section = text.split("[tool.pytest.ini_options]", 1)[1].split("\n[", 1)[0]
    assert re.search(r'^filterwarnings = \[.*"error::RuntimeWarning".*\]$', section, re.M)


@pytest.mark.parametrize("command", ["summarize", "compare"])
def test_too_few_draws_name_the_flag(tmp_path, capsys, command):
    f = tmp_path / "m.json"
    f.write_text(json.dumps(CM))
    files = [str(f)] if command == "summarize" else [str(f), str(f)]
    with pytest.raises(SystemExit) as exc:
        main([command, *files, "--draws", "1"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "argument --draws: expected an integer >= 2; got '1'" in err


def test_the_gate_still_raises_too_few_draws(tmp_path, capsys):
    f = tmp_path / "m.json"
    f.write_text(json.dumps(CM))
    code = main(["gate", str(f), "--metric", "micro_f1", "--min", "0.1", "--draws", "1"])
    assert code == 0  # raised to the gate's minimum, not refused (negative control)
    assert "--draws" not in capsys.readouterr().err
