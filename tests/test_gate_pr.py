"""The gate in pull requests: annotations, --json, the relative margin, saved baselines.

The command line runs in process (:func:`f1posterior.cli.main`); the Action's shell steps
are in tests/test_action.py.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from f1posterior import Floor, GateConfigError, NonInferiority, gate
from f1posterior.cli import main
from f1posterior.cli._annotations import escape_data, escape_property, gate_annotations
from f1posterior.gating import load_config

MATRIX = {"matrix": [[50, 3, 2], [4, 40, 6], [1, 5, 39]], "labels": ["a", "b", "c"]}
NEW = [[52, 2, 1], [3, 42, 5], [1, 4, 40]]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        status = main(["gate", *argv])
    except SystemExit as exc:  # argparse's usage errors
        status = int(exc.code or 0)
    out = capsys.readouterr()
    return status, out.out, out.err


# --- the runner's reading of workflow commands (an independent model) -----------------


def runner_lines(text: str) -> list[str]:
    """Lines as the runner reads them: a line ends at LF, CR or CRLF."""
    return re.split(r"\r\n|\r|\n", text.rstrip("\r\n"))


def runner_command(line: str) -> tuple[str, dict[str, str], str] | None:
    """(command, properties, message) if the runner takes ``line`` as a ``::`` command.

    Modelled on the runner's parser: leading whitespace trimmed, ``::``, the command
    and its properties up to the next ``::``, properties split at ``,`` then at the
    first ``=``; values unescaped (%25, %0D, %0A, %3A, %2C), the message too (%25,
    %0D, %0A).
    """
    line = line.lstrip()
    if not line.startswith("::"):
        return None
    end = line.find("::", 2)
    if end < 0:
        return None
    head, message = line[2:end], line[end + 2 :]
    name, _, props = head.partition(" ")
    properties = {}
    for pair in filter(None, props.split(",")):
        key, _, value = pair.partition("=")
        for a, b in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")):
            value = value.replace(a, b)
        properties[key] = value
    for a, b in (("%0D", "\r"), ("%0A", "\n"), ("%25", "%")):
        message = message.replace(a, b)
    return name, properties, message


HOSTILE = [
    "a\n::add-mask::secret",
    "b\r::stop-commands::tok",
    "c,title=forged:: %0A::error::x",
]


def test_escapes_follow_githubs_rules() -> None:
    assert escape_data("100% \r\n:,") == "100%25 %0D%0A:,"
    assert escape_property("100% \r\n:,") == "100%25 %0D%0A%3A%2C"
    # the runner's unescaping gives back the original, whatever it holds
    for text in [*HOSTILE, "%25 literal", "x::y"]:
        parsed = runner_command(f"::error title={escape_property(text)}::{escape_data(text)}")
        assert parsed == ("error", {"title": text}, text)


def test_one_annotation_per_fail_and_inconclusive_titled_by_the_check() -> None:
    # per-class f1 floors at 0.9: class 0 passes... see the verdicts: the annotations follow
    res = gate(MATRIX["matrix"], [Floor("f1", 0.85), Floor("micro_f1", 0.6)], draws=20_000, rng=1)
    lines = gate_annotations(res)
    expected = [c for c in res.checks if c.verdict in ("fail", "inconclusive")]
    assert len(lines) == len(expected) >= 2 and {c.verdict for c in res.checks} >= {"pass"}
    for line, c in zip(lines, expected, strict=True):
        name, props, message = runner_command(line)  # type: ignore[misc]
        assert name == {"fail": "error", "inconclusive": "warning"}[c.verdict]
        assert props == {"title": f"f1posterior: {c.condition}"}
        assert message == c.text


def test_a_hostile_label_cannot_inject_a_workflow_command(tmp_path, capsys) -> None:
    f = tmp_path / "m.json"
    f.write_text(json.dumps({"matrix": MATRIX["matrix"], "labels": HOSTILE}))
    status, out, err = run(
        capsys, str(f), "--metric", "f1", "--min", "0.95", "--annotations", "github",
        "--format", "json", "--draws", "4000",
    )  # fmt: skip
    assert status == 1
    checks = json.loads(out)["checks"]  # stdout stays pure JSON: the annotations go to stderr
    commands = [runner_command(line) for line in runner_lines(err)]
    commands = [c for c in commands if c is not None]
    assert [c[0] for c in commands] == ["error"] * 3  # one per check, nothing injected
    for (_, props, message), check in zip(commands, checks, strict=True):
        assert props == {"title": f"f1posterior: {check['condition']}"}  # no forged property
        assert message == check["text"]
    # negative control: the labels written into commands unescaped are read as injected
    # commands and a forged property (the model of the runner can see an injection)
    raw = "\n".join(f"::error title=f1posterior: f1 [class {x}]::{x}" for x in HOSTILE)
    forged = [c for c in map(runner_command, runner_lines(raw)) if c is not None]
    assert {"add-mask", "stop-commands"} <= {c[0] for c in forged}
    assert any(c[1].get("title") == "forged" for c in forged)


def legacy_commands(text: str) -> list[str]:
    """The runner's legacy form: ``##[name`` anywhere in a line (for any registered name)."""
    return re.findall(r"##\[([\w-]+)", text)


@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
def test_the_legacy_command_form_is_defused_in_the_report(tmp_path, capsys, fmt) -> None:
    labels = ["x ##[add-mask]y", "##[stop-commands]t", "##[error]forged"]
    f = tmp_path / "m.json"
    f.write_text(json.dumps({"matrix": MATRIX["matrix"], "labels": labels}))
    argv = [str(f), "--metric", "f1", "--min", "0.95", "--format", fmt, "--draws", "4000"]
    status, out, err = run(capsys, *argv, "--json", str(tmp_path / "r.json"))
    # negative control: without --annotations the report holds the labels as they are (the
    # Markdown table escapes # and [ of its own)
    expected = set() if fmt == "markdown" else {"add-mask", "stop-commands", "error"}
    assert status == 1 and set(legacy_commands(out)) == expected
    status, out, err = run(capsys, *argv, "--annotations", "github")
    assert status == 1 and legacy_commands(out + err) == []
    assert len([x for x in runner_lines(err) if runner_command(x)]) == 3
    if fmt == "json":  # the same strings: #\u0023[ is JSON's escape of ##[
        assert [c["item"] for c in json.loads(out)["checks"]] == [f"class {x}" for x in labels]
    elif fmt == "text":
        assert "class x #\\u0023[add-mask]y" in out
    # the files are not read by the runner: they keep the labels as they are
    assert (
        json.loads((tmp_path / "r.json").read_text())["checks"][0]["item"] == "class " + labels[0]
    )


def test_no_annotations_unless_asked_even_on_a_runner(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    f = tmp_path / "m.json"
    f.write_text(json.dumps(MATRIX))
    status, _, err = run(capsys, str(f), "--metric", "micro_f1", "--min", "0.95")
    assert status == 1 and "::error" not in err
    status, _, err = run(
        capsys, str(f), "--metric", "micro_f1", "--min", "0.95", "--annotations", "github"
    )
    assert status == 1 and err.startswith("::error title=f1posterior%3A micro_f1 >= 0.95::FAIL")


def test_json_file_equals_the_json_format(tmp_path, capsys) -> None:
    f = tmp_path / "m.json"
    f.write_text(json.dumps(MATRIX))
    argv = [str(f), "--metric", "micro_f1", "--min", "0.8", "--draws", "4000"]
    status, out, _ = run(capsys, *argv, "--format", "json")
    status2, _, _ = run(capsys, *argv, "--json", str(tmp_path / "r.json"))
    assert status == status2 == 0
    assert json.loads((tmp_path / "r.json").read_text()) == json.loads(out)


@pytest.mark.parametrize("flag", ["--json", "--save-baseline"])
def test_an_output_that_is_not_a_regular_file_is_refused_before_the_gate_runs(
    tmp_path, capsys, flag
) -> None:
    f = tmp_path / "m.json"
    f.write_text(json.dumps(MATRIX))
    link = tmp_path / "out.json"
    link.symlink_to("/dev/null")
    status, out, err = run(capsys, str(f), "--metric", "micro_f1", "--min", "0.8", flag, str(link))
    assert status == 2 and out == ""  # no verdict printed before the refusal
    assert err.count("\n") == 1 and f"{flag} {link}: a device" in err
    assert link.is_symlink() and str(link.readlink()) == "/dev/null"


# --- the relative margin ---------------------------------------------------------------


def test_relative_check_validates_its_fields() -> None:
    with pytest.raises(TypeError, match=r"relative must be True or False; got"):
        NonInferiority("micro_f1", 0.1, relative="yes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"\[0, 1\) with relative=True"):
        NonInferiority("micro_f1", 1.0, relative=True)
    assert NonInferiority("micro_f1", 0.1) != NonInferiority("micro_f1", 0.1, relative=True)


def test_relative_against_a_near_certain_baseline_is_a_floor_at_1_minus_r_times_it() -> None:
    """With a baseline of 10**8 documents its posterior is (almost) a point mass at its score
    b, so P(new >= (1 - r) * base) must equal the exact floor P(new >= (1 - r) * b)."""
    base = (np.array([[80, 20], [15, 85]]) * 10**6).tolist()
    b = 165 / 200  # micro_f1 = accuracy of the baseline
    new = [[40, 10], [8, 42]]
    r = 0.05
    rel = gate(new, [NonInferiority("micro_f1", r, relative=True)], baseline=base,
               draws=200_000, rng=3, beta="aligned").checks[0]  # fmt: skip
    floor = gate(new, [Floor("micro_f1", (1 - r) * b)], beta="aligned").checks[0]
    assert floor.exact and not rel.exact
    assert abs(rel.prob - floor.prob) < 4 * rel.mc_error + 2e-3  # baseline sd ~ 4e-5
    assert rel.kind == "relative" and rel.threshold == pytest.approx(0.95)
    assert rel.score == pytest.approx((82 / 100) / b)  # the observed ratio
    assert rel.condition == "micro_f1: new / baseline >= 0.95"
    # negative control: the absolute margin r (not r * b) is another check
    absolute = gate(new, [NonInferiority("micro_f1", r)], baseline=base, draws=200_000,
                    rng=3, beta="aligned").checks[0]  # fmt: skip
    assert abs(absolute.prob - floor.prob) > 10 * rel.mc_error


def _simulated_pass_rate(p_new: float, p_base: float, r: float, reps: int, seed: int) -> float:
    """PASS rate of the relative check on test sets drawn from known accuracies (2 classes),
    the ``reps`` pairs gated as one batch."""
    rng = np.random.default_rng(seed)
    n = 200  # documents per class and model

    def tables(p: float) -> np.ndarray:
        k = rng.binomial(n, p, size=(reps, 2))
        return np.stack([np.stack([k[:, 0], n - k[:, 0]], -1),
                         np.stack([n - k[:, 1], k[:, 1]], -1)], axis=1)  # fmt: skip

    new, base = tables(p_new), tables(p_base)
    res = gate(new, [NonInferiority("micro_f1", r, relative=True)], baseline=base,
               draws=2_000, max_draws=8_000, rng=seed)  # fmt: skip
    assert len(res.checks) == reps
    return sum(c.verdict == "pass" for c in res.checks) / reps


def test_relative_margin_false_pass_rate_is_bounded_by_1_minus_prob() -> None:
    """A candidate no better than (1 - r) x baseline passes at most 1 - prob of the time.

    The worst case is the boundary itself, new = 0.95 x 0.88 = 0.836 exactly. The full
    study is benchmarks/relative_margin_error_rates.py (docs/ci-gate.md).
    """
    reps = 400
    tol = 3 * np.sqrt(0.05 * 0.95 / reps)  # binomial: 3 standard errors of a 5% rate
    assert _simulated_pass_rate(0.95 * 0.88, 0.88, 0.05, reps, seed=12) <= 0.05 + tol
    # negative control: the same candidate is non-inferior within a 15% relative margin
    # (0.80 >= 0.85 * 0.88 = 0.748) and then passes often: the count can move
    assert _simulated_pass_rate(0.80, 0.88, 0.15, reps, seed=11) >= 0.5


def test_relative_margin_refuses_paired_predictions() -> None:
    y = ["a", "b"] * 20
    with pytest.raises(ValueError, match="relative margin compares independent posteriors"):
        gate(None, [NonInferiority("micro_f1", 0.1, relative=True)], y_true=y, y_pred=y,
             baseline_pred=y, draws=2_000)  # fmt: skip


def test_relative_margin_and_id_col_exclude_each_other(tmp_path, capsys) -> None:
    for name in ("new.csv", "old.csv"):
        (tmp_path / name).write_text("id,y_true,y_pred\n1,a,a\n2,b,b\n3,a,b\n")
    status, _, err = run(capsys, str(tmp_path / "new.csv"), "--baseline", str(tmp_path / "old.csv"),
                         "--id-col", "id", "--metric", "micro_f1", "--max-relative-drop", "0.1")  # fmt: skip
    assert status == 2 and "with --id-col give --max-drop D" in err


def test_relative_margin_on_the_command_line_and_in_the_config(tmp_path, capsys) -> None:
    (tmp_path / "new.json").write_text(json.dumps(NEW))
    (tmp_path / "old.json").write_text(json.dumps(MATRIX["matrix"]))
    common = ["--baseline", str(tmp_path / "old.json"), "--metric", "micro_f1", "--seed", "5"]
    status, out, _ = run(capsys, str(tmp_path / "new.json"), *common,
                         "--max-relative-drop", "0.05", "--format", "json")  # fmt: skip
    (check,) = json.loads(out)["checks"]
    assert (check["kind"], check["threshold"]) == ("relative", 0.95)
    assert check["condition"] == "micro_f1: new / baseline >= 0.95" and status == 0
    # the config key gives the same check
    (tmp_path / "gate.toml").write_text(
        'file = "new.json"\nbaseline = "old.json"\nseed = 5\n'
        '[[check]]\nmetric = "micro_f1"\nbaseline = true\nmax_relative_drop = 0.05\n'
    )
    status, out2, _ = run(capsys, "--config", str(tmp_path / "gate.toml"), "--format", "json")
    assert json.loads(out2)["checks"][0]["prob"] == check["prob"] and status == 0
    # a bare --metric on the command line keeps the file's margin of that metric
    _, out4, _ = run(capsys, "--config", str(tmp_path / "gate.toml"), "--metric", "micro_f1",
                     "--format", "json")  # fmt: skip
    assert json.loads(out4)["checks"][0]["prob"] == check["prob"]
    # --max-drop on the command line replaces it with an absolute margin
    _, out3, _ = run(capsys, "--config", str(tmp_path / "gate.toml"), "--max-drop", "0.05",
                     "--format", "json")  # fmt: skip
    assert json.loads(out3)["checks"][0]["kind"] == "baseline"
    status, _, err = run(capsys, str(tmp_path / "new.json"), *common, "--max-drop", "0.1",
                         "--max-relative-drop", "0.05")  # fmt: skip
    assert status == 2 and "not both" in err and len(err.strip().splitlines()) == 1
    status, _, err = run(capsys, str(tmp_path / "new.json"), *common, "--max-relative-drop", "1")
    assert status == 2 and "[0, 1)" in err


@pytest.mark.parametrize(
    "check, message",
    [
        ("max_relative_drop = 1.5", r"max_relative_drop: must be a number in \[0, 1\); got 1.5"),
        ("max_relative_drop = 1.0", r"must be a number in \[0, 1\); got 1.0"),
        ("max_relative_drop = 0.1\nmax_drop = 0.1", "not both"),
        ('max_relative_drop = "5%"', "must be a number"),
    ],
)
def test_config_max_relative_drop_errors(tmp_path, check, message) -> None:
    p = tmp_path / "gate.toml"
    p.write_text(f'[[check]]\nmetric = "micro_f1"\nbaseline = "b.json"\n{check}\n')
    with pytest.raises(GateConfigError, match=message):
        load_config(p)
    p.write_text('[[check]]\nmetric = "micro_f1"\nmin = 0.5\nmax_relative_drop = 0.1\n')
    with pytest.raises(GateConfigError, match="applies to a baseline check"):
        load_config(p)


# --- saved baselines -------------------------------------------------------------------


def _without_source(doc: dict) -> dict:
    """The document but where the baseline came from (its name, and its file's SHA-256)."""
    return {k: v for k, v in doc.items() if k not in ("baseline_source", "receipt")}


@pytest.mark.parametrize(
    "name, content, extra",
    [
        ("old.json", json.dumps(MATRIX), []),
        ("old.csv", ",a,b,c\na,50,3,2\nb,4,40,6\nc,1,5,39\n", []),
        (
            "old.jsonl",
            "\n".join(
                json.dumps({"matrix": m, "name": n})
                for m, n in ((MATRIX["matrix"], "x"), (NEW, "y"))
            )
            + "\n",
            [],
        ),  # fmt: skip
        (
            "old.json",
            json.dumps({"tables": [[[50, 3], [4, 43]], [[60, 1], [9, 30]]], "labels": ["p", "q"]}),
            ["--multilabel"],
        ),  # fmt: skip
    ],
)
def test_saved_baseline_round_trip(tmp_path, capsys, name, content, extra) -> None:
    """Save on one run, gate against it on another: the same verdicts and numbers as against
    the original file, with the same seed."""
    old = tmp_path / name
    old.write_text(content)
    saved = tmp_path / "saved.json"
    metric = ["--metric", "micro_f1", "--min", "0.5"]
    status, _, _ = run(capsys, str(old), *metric, *extra, "--save-baseline", str(saved))
    assert status == 0 and saved.exists()
    doc = json.loads(saved.read_text())
    assert (doc["format"], doc["format_version"], doc["tool"]) == ("f1posterior-baseline", 1,
                                                                   "f1posterior")  # fmt: skip
    new = tmp_path / ("new.json" if "--multilabel" not in extra else "new_ml.json")
    if "--multilabel" in extra:
        new.write_text(json.dumps({"tables": [[[48, 5], [4, 43]], [[58, 3], [8, 31]]],
                                   "labels": ["p", "q"]}))  # fmt: skip
        against = ["--metric", "micro_f1", "--metric", "macro_f1", "--max-relative-drop", "0.05"]
    else:
        new.write_text(json.dumps({"matrix": NEW, "labels": ["a", "b", "c"]}))
        against = ["--metric", "micro_f1", "--metric", "f1", "--max-drop", "0.02"]
    if name.endswith(".jsonl"):
        new = tmp_path / "new.jsonl"
        new.write_text("\n".join(json.dumps({"matrix": m, "name": n}) for m, n in
                                 ((NEW, "x"), (NEW, "y"))) + "\n")  # fmt: skip
    results = []
    for base in (old, saved):
        status, out, _ = run(capsys, str(new), "--baseline", str(base), *against, *extra,
                             "--seed", "7", "--draws", "4000", "--format", "json")  # fmt: skip
        results.append((status, _without_source(json.loads(out))))
    assert results[0] == results[1]
    assert len(results[0][1]["checks"]) >= 2


def test_saved_baseline_of_a_predictions_csv_keeps_its_counts(tmp_path, capsys) -> None:
    rows = ["y_true,y_pred"] + [
        f"{t},{p}" for t, p in [("a", "a")] * 30 + [("a", "b")] * 5 + [("b", "b")] * 25
    ]
    (tmp_path / "pred.csv").write_text("\n".join(rows) + "\n")
    saved = tmp_path / "saved.json"
    status, _, _ = run(capsys, str(tmp_path / "pred.csv"), "--metric", "recall", "--min", "0.1",
                       "--save-baseline", str(saved))  # fmt: skip
    doc = json.loads(saved.read_text())
    assert status == 0 and doc["counts"] == [[30, 5], [0, 25]] and doc["labels"] == ["a", "b"]


def _saved(**changes: object) -> str:
    doc: dict[str, object] = {
        "format": "f1posterior-baseline", "format_version": 1, "tool": "f1posterior",
        "tool_version": "1.0.0", "kind": "confusion", "counts": [[5, 1], [2, 7]],
        "labels": None, "names": None, "source": "x", "prior": "adaptive",
    }  # fmt: skip
    doc.update(changes)
    return json.dumps({k: v for k, v in doc.items() if v != "DROP"})


@pytest.mark.parametrize(
    "text, message",
    [
        (_saved(format_version=2, tool_version="2.0.0"), "newer f1posterior .*upgrade"),
        (_saved(format_version=0), "format_version must be 1; got 0: save the baseline again"),
        (_saved(format_version=True), "format_version must be 1"),
        (_saved(format="other"), "not a saved baseline"),
        (_saved(extra=1), "unknown key 'extra'"),
        (_saved(counts="DROP"), "missing key 'counts'"),
        (_saved(kind="multilabel"), "saved from a multi-label gate; add --multilabel"),
        (_saved(kind="batch"), "kind must be one of confusion, multilabel"),
        (_saved(counts=[["5", 1], [2, 7]]), r"counts\[0\]\[0\] must be a number"),
        (_saved(counts=[[True, 1], [2, 7]]), r"counts\[0\]\[0\] must be a number"),
        (_saved(counts=[[5.5, 1], [2, 7]]), "whole"),
        (_saved(counts=[[-5, 1], [2, 7]]), "non-negative"),
        (_saved(counts=[[2**60, 1], [2, 7]]), "2\\*\\*53"),
        (_saved(counts=[[5, 1, 3], [2, 7]]), "ragged|square|shape"),
        (_saved(counts=[[[[[[1]]]]]]), "nested 2 or 3 deep"),
        (_saved(labels=["a"]), "labels must name each of the 2 classes once"),
        (_saved(labels=["a", "a"]), "with repeats"),
        (_saved(labels=[1, 2]), "labels must be a list of strings"),
        (_saved().replace("[[5, 1]", "[[NaN, 1]"), "NaN is not a number in standard JSON"),
        (_saved()[:-1] + ', "kind": "confusion"}', "the key 'kind' appears twice"),
        ('{"format": ' * 5000, "nested too deeply|broken JSON"),
    ],
)
def test_hostile_or_old_saved_baselines_are_refused_in_one_line(
    tmp_path, capsys, text, message
) -> None:
    (tmp_path / "new.json").write_text(json.dumps([[5, 1], [2, 7]]))
    (tmp_path / "saved.json").write_text(text)
    status, out, err = run(capsys, str(tmp_path / "new.json"), "--metric", "micro_f1",
                           "--baseline", str(tmp_path / "saved.json"))  # fmt: skip
    assert status == 2 and out == "", err
    assert len(err.strip().splitlines()) == 1 and "saved.json" in err, err
    assert re.search(message, err), err


def test_a_saved_baseline_larger_than_the_limit_is_refused(tmp_path, capsys, monkeypatch) -> None:
    from f1posterior.io import _baseline

    (tmp_path / "new.json").write_text(json.dumps([[5, 1], [2, 7]]))
    (tmp_path / "saved.json").write_text(_saved())
    monkeypatch.setattr(_baseline, "MAX_BASELINE_BYTES", 100)
    status, _, err = run(capsys, str(tmp_path / "new.json"), "--metric", "micro_f1",
                         "--baseline", str(tmp_path / "saved.json"))  # fmt: skip
    # too large to be read as a saved baseline: the matrix reader refuses the object
    assert status == 2 and "saved.json" in err
    monkeypatch.setattr(_baseline, "MAX_BASELINE_BYTES", 64 << 20)
    with pytest.raises(ValueError, match="larger than 100 bytes"):
        monkeypatch.setattr(_baseline, "MAX_BASELINE_BYTES", 100)
        _baseline.read_saved_baseline(tmp_path / "saved.json")


def test_save_baseline_refuses_standard_input(tmp_path, capsys) -> None:
    status, _, err = run(capsys, "-", "--metric", "micro_f1", "--min", "0.5",
                         "--save-baseline", str(tmp_path / "s.json"))  # fmt: skip
    assert status == 2 and "--save-baseline" in err and not (tmp_path / "s.json").exists()


def test_saved_labels_must_match_the_labels_flag(tmp_path, capsys) -> None:
    (tmp_path / "new.json").write_text(json.dumps(MATRIX))
    (tmp_path / "saved.json").write_text(_saved(counts=MATRIX["matrix"], labels=["a", "b", "c"]))
    argv = [str(tmp_path / "new.json"), "--metric", "micro_f1", "--baseline",
            str(tmp_path / "saved.json"), "--draws", "2000"]  # fmt: skip
    status, _, err = run(capsys, *argv, "--labels", "c,b,a")
    assert status == 2 and "differ from --labels" in err
    status, _, err = run(capsys, *argv, "--labels", "a,b,c")
    assert status in (0, 1, 3), err


def test_a_saved_baseline_is_also_read_as_file_with_a_byte_order_mark(tmp_path, capsys) -> None:
    (tmp_path / "old.json").write_text(json.dumps(MATRIX))
    saved = tmp_path / "saved.json"
    argv = ["--metric", "f1", "--min", "0.8", "--seed", "2", "--draws", "4000", "--format", "json"]
    status, out, _ = run(capsys, str(tmp_path / "old.json"), *argv, "--save-baseline", str(saved))
    saved.write_bytes(b"\xef\xbb\xbf" + saved.read_bytes())  # as some editors save it
    status2, out2, _ = run(capsys, str(saved), *argv)
    strip = [{k: v for k, v in json.loads(o).items() if k not in ("source", "receipt")}
             for o in (out, out2)]  # fmt: skip
    assert status == status2 and strip[0] == strip[1]
    assert [c["item"] for c in strip[0]["checks"]] == ["class a", "class b", "class c"]
