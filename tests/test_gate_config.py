"""gate --config TOML and [tool.f1posterior.gate] in pyproject.toml."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from f1posterior import Floor, JointFloor, NonInferiority
from f1posterior.cli import main
from f1posterior.gating._config import (
    CheckGroup,
    GateConfigError,
    check_groups,
    find_pyproject_config,
    load_config,
    parse_config,
)

CM = [[50, 5, 0], [3, 40, 2], [2, 2, 0]]
BASE = [[48, 7, 0], [5, 38, 2], [2, 2, 0]]
CONFIG = """
prob = 0.9
prior = "aligned"
draws = 4000
seed = 7
file = "data/m.json"
baseline = "data/b.json"

[[check]]
metric = "micro_f1"
min = 0.7

[[check]]
metric = "recall"
min = 0.6
min_support = 5

[[check]]
metric = "micro_f1"
baseline = true
max_drop = 0.05
"""


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    """A folder with data/m.json, data/b.json and conf/gate.toml (paths relative to conf/..)."""
    data = tmp_path / "data"
    data.mkdir()
    labels = ["a", "b", "c"]
    (data / "m.json").write_text(json.dumps({"matrix": CM, "labels": labels}))
    (data / "b.json").write_text(json.dumps({"matrix": BASE, "labels": labels}))
    (tmp_path / "gate.toml").write_text(CONFIG)
    return tmp_path


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:
    code = main(["gate", *args, "--format", "json"])
    out, err = capsys.readouterr()
    return code, json.loads(out)


def one_line_error(capsys: pytest.CaptureFixture[str], code: int) -> str:
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("f1posterior gate: error: "), err
    return lines[0]


def test_config_runs_its_checks_from_another_directory(
    project: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path_factory.mktemp("elsewhere"))  # paths resolve against the file
    code, d = run_json(capsys, "--config", str(project / "gate.toml"))
    assert code == 0
    assert d["config"] == str(project / "gate.toml")
    assert d["source"].endswith("m.json") and d["baseline_source"].endswith("b.json")
    assert d["seed"] == 7 and d["draws"] == 4000
    assert d["prior"].startswith("alpha=1 (uniform), beta=aligned")
    conditions = [(c["condition"], c["verdict"], c["required"]) for c in d["checks"]]
    assert conditions == [
        ("micro_f1 >= 0.7", "pass", 0.9),
        ("recall [class a] >= 0.6", "pass", 0.9),
        ("recall [class b] >= 0.6", "pass", 0.9),
        ("recall [class c] >= 0.6", "skipped", 0.9),
        ("micro_f1: new - baseline >= -0.05", "pass", 0.9),
    ]


def test_text_and_markdown_name_the_config(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = str(project / "gate.toml")
    assert main(["gate", "--config", cfg]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[3] == f"Config: {cfg}" and lines[4].startswith("Gate: prior alpha=1")
    assert main(["gate", "--config", cfg, "--format", "markdown"]) == 0
    assert f", config: `{cfg}`" in capsys.readouterr().out


def test_flags_override_the_file(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = str(project / "gate.toml")
    code, d = run_json(capsys, "--config", cfg, "--prob", "0.99", "--seed", "3", "--max-drop", "0")
    assert d["seed"] == 3 and {c["required"] for c in d["checks"]} == {0.99}
    assert d["checks"][-1]["threshold"] == 0.0  # --max-drop beats the check's max_drop
    assert code in (1, 3)  # the same model and baseline at margin 0: not a pass
    # --metric replaces the file's checks: a floor stays a floor (the file's baseline is
    # for the file's baseline checks and a bare --metric)
    code, d = run_json(capsys, "--config", cfg, "--metric", "accuracy", "--min", "0.5")
    assert [c["condition"] for c in d["checks"]] == ["accuracy >= 0.5"]
    code, d = run_json(capsys, "--config", cfg, "--metric", "accuracy")
    assert [c["condition"] for c in d["checks"]] == ["accuracy: new - baseline >= 0"]
    # --min-support overrides the check's
    code, d = run_json(capsys, "--config", cfg, "--min-support", "3")
    assert [c["verdict"] for c in d["checks"]][3] == "fail"  # class c (4 documents) judged


def test_config_inconclusive_policy_and_joint(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "strict.toml").write_text(
        'file = "data/m.json"\nprior = "aligned"\ninconclusive = "pass"\n'
        '[[check]]\nmetric = "micro_f1"\nmin = 0.865\n'
        '[[check]]\nmetric = "recall"\nmin = 0.6\njoint = true\nmin_support = 5\n'
    )
    code, d = run_json(capsys, "--config", str(project / "strict.toml"))
    assert d["verdict"] == "inconclusive" and code == 0  # inconclusive = "pass" maps 3 to 0
    assert [c["item"] for c in d["checks"]] == ["", "every class with >= 5 true documents (2 of 3)"]
    code, _ = run_json(capsys, "--config", str(project / "strict.toml"), "--inconclusive", "fail")
    assert code == 1  # the flag beats the file


def test_pyproject_table_is_used_without_config(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    body = CONFIG.replace("[[check]]", "[[tool.f1posterior.gate.check]]")
    head, _, rest = body.partition("[[tool")
    (project / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.f1posterior.gate]\n' + head + "[[tool" + rest
    )
    monkeypatch.chdir(project)
    code, d = run_json(capsys)
    assert code == 0 and d["config"] == "pyproject.toml [tool.f1posterior.gate]"
    assert len(d["checks"]) == 5 and d["seed"] == 7
    cfg = find_pyproject_config(".")
    assert cfg is not None and cfg.checks[1].min_support == 5


def test_pyproject_without_the_table_is_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n[tool.ruff]\nline-length = 9\n'
    )
    (tmp_path / "m.json").write_text(json.dumps(CM))
    monkeypatch.chdir(tmp_path)
    assert find_pyproject_config(".") is None
    code, d = run_json(capsys, "m.json", "--metric", "micro_f1", "--min", "0.5")
    assert code == 0 and d["config"] is None


def test_python_load_config_and_groups(project: Path) -> None:
    cfg = load_config(project / "gate.toml")
    assert cfg.settings["prob"] == 0.9 and cfg.settings["prior"] == "aligned"
    assert cfg.settings["file"] == str(project / "data" / "m.json")
    groups = check_groups(cfg)
    base = str(project / "data" / "b.json")
    assert groups == [
        CheckGroup(
            (
                Floor("micro_f1", 0.7),
                Floor("recall", 0.6, min_support=5),
                NonInferiority("micro_f1", 0.05),
            ),
            baseline=base,
        )
    ]
    # checks share a call unless they compare with different baselines
    (project / "two.toml").write_text(
        "[[check]]\nmetric = 'micro_f1'\nbaseline = 'x.json'\n[[check]]\nmetric = 'f1'\nmin = 0.5\n"
        "[[check]]\nmetric = 'f1'\nbaseline = 'y.json'\n"
    )
    two = check_groups(load_config(project / "two.toml"))
    assert [(g.baseline, g.checks) for g in two] == [
        (str(project / "x.json"), (NonInferiority("micro_f1"), Floor("f1", 0.5))),
        (str(project / "y.json"), (NonInferiority("f1"),)),
    ]
    over = check_groups(cfg, baseline="other.json", max_drop=0.0, min_support=2, joint=True)
    assert over[0].checks[1] == JointFloor("recall", 0.6, min_support=2)
    assert over[0].checks[0] == Floor("micro_f1", 0.7)  # not per-class: no joint, no support
    assert over[-1].baseline == "other.json" and over[-1].checks[-1] == NonInferiority("micro_f1")


BAD_CONFIGS = [
    ("probb = 0.9\n", r"gate.toml: probb: unknown key \(allowed: baseline, check, ci_prob, draws"),
    ("prob = 0.4\n", r"gate.toml: prob: must be a number in \(0.5, 1\); got 0.4"),
    ('prob = "high"\n', r"gate.toml: prob: must be a number in \(0.5, 1\); got 'high'"),
    ("draws = 5e4\n", r"gate.toml: draws: must be an integer >= 1 and <= 100,000,000; got 50000.0"),
    ("draws = 0\n", r"gate.toml: draws: must be an integer >= 1 .*; got 0"),
    ("seed = -1\n", r"gate.toml: seed: must be an integer >= 0; got -1"),
    (
        'prior = "flat"\n',
        r"gate.toml: prior: must be one of hierarchical, adaptive, paper, .*; got 'flat'",
    ),
    (
        'inconclusive = "maybe"\n',
        r"gate.toml: inconclusive: must be one of pass, fail; got 'maybe'",
    ),
    ('multilabel = "yes"\n', r"gate.toml: multilabel: must be true or false; got 'yes'"),
    ("file = 3\n", r"gate.toml: file: must be a file path \(a non-empty string\); got 3"),
    ("[check]\nmetric = 'f1'\n", r"gate.toml: check: must be an array of tables \(\[\[check\]\]\)"),
    ("[[check]]\nmin = 0.5\n", r"gate.toml: check\[1\].metric: missing"),
    (
        "[[check]]\nmetric = 'f2'\nmin = 0.5\n",
        r"gate.toml: check\[1\].metric: must be one of .*; got 'f2'",
    ),
    (
        "[[check]]\nmetric = 'f1'\n",
        r"gate.toml: check\[1\]: give either min .* or baseline .*; got neither",
    ),
    (
        "[[check]]\nmetric = 'f1'\nmin = 0.5\nbaseline = 'b.json'\n",
        r"gate.toml: check\[1\]: give either min .*; got both",
    ),
    (
        "[[check]]\nmetric = 'f1'\nmin = 1.5\n",
        r"gate.toml: check\[1\].min: must be a number in \[0, 1\]; got 1.5",
    ),
    (
        "[[check]]\nmetric = 'f1'\nmin = 0.5\nmax_drop = 0.1\n",
        r"gate.toml: check\[1\].max_drop: applies to a baseline check",
    ),
    (
        "[[check]]\nmetric = 'f1'\nbaseline = 'b.json'\njoint = true\n",
        r"gate.toml: check\[1\].joint: applies to a floor \(min\)",
    ),
    (
        "[[check]]\nmetric = 'f1'\nbaseline = false\n",
        r"gate.toml: check\[1\].baseline: must be a file path, or true .*; got false",
    ),
    (
        "[[check]]\nmetric = 'f1'\nmin = 0.5\nmin_support = 0\n",
        r"gate.toml: check\[1\].min_support: must be an integer >= 1; got 0",
    ),
    (
        "[[check]]\nmetric = 'f1'\nmin = 0.5\njoint = 1\n",
        r"gate.toml: check\[1\].joint: must be true or false; got 1",
    ),
    (
        "[[check]]\nmetric = 'f1'\nmin = 0.5\nmaximum = 1\n",
        r"gate.toml: check\[1\].maximum: unknown key \(allowed: metric, min, baseline",
    ),
    ("prob = \n", r"gate.toml: not valid TOML \("),
]
GROUP_ERRORS = [
    ("[[check]]\nmetric = 'micro_f1'\nmin = 0.5\nmin_support = 3\n",
     r"gate.toml: check\[1\].min_support: applies to per-class floors \(.*recall.*\); got metric 'micro_f1'"),
    ("[[check]]\nmetric = 'micro_f1'\nbaseline = true\n",
     r"gate.toml: check\[1\].baseline: true means the top-level baseline, but there is no baseline key"),
    ("[[check]]\nmetric = 'fbeta'\nmin = 0.5\n",
     r"gate.toml: check\[1\].metric: 'fbeta' is not a gate metric without multilabel"),
    ("prob = 0.9\n", r"gate.toml: check: no \[\[check\]\] tables, and no --metric on the command line"),
]  # fmt: skip


@pytest.mark.parametrize(("body", "message"), BAD_CONFIGS)
def test_bad_config_python(tmp_path: Path, body: str, message: str) -> None:
    (tmp_path / "gate.toml").write_text(body)
    with pytest.raises(
        GateConfigError, match=message.replace("gate.toml", re.escape(str(tmp_path / "gate.toml")))
    ):
        load_config(tmp_path / "gate.toml")


@pytest.mark.parametrize(("body", "message"), BAD_CONFIGS + GROUP_ERRORS)
def test_bad_config_cli_exit_2_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    body: str, message: str,
) -> None:  # fmt: skip
    (tmp_path / "gate.toml").write_text(body)
    (tmp_path / "m.json").write_text(json.dumps(CM))
    monkeypatch.chdir(tmp_path)
    code = main(["gate", "m.json", "--config", "gate.toml"])
    line = one_line_error(capsys, code)
    assert re.search(message, line), line


def test_parse_config_of_a_table(tmp_path: Path) -> None:
    cfg = parse_config({"prob": 0.99, "check": [{"metric": "f1", "min": 0.5}]}, "mine", tmp_path)
    assert cfg.settings == {"prob": 0.99} and cfg.path == "mine"
    with pytest.raises(GateConfigError, match=r"^mine: check\[1\]\.min: must be a number"):
        parse_config({"check": [{"metric": "f1", "min": True}]}, "mine", tmp_path)


@pytest.mark.parametrize(("body", "message"), GROUP_ERRORS)
def test_bad_check_groups_python(tmp_path: Path, body: str, message: str) -> None:
    (tmp_path / "gate.toml").write_text(body)
    cfg = load_config(tmp_path / "gate.toml")
    with pytest.raises(GateConfigError, match=message.replace("gate.toml", re.escape(cfg.path))):
        check_groups(cfg)


def test_missing_config_and_missing_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    line = one_line_error(capsys, main(["gate", "m.json", "--config", "nope.toml"]))
    assert line.endswith("error: nope.toml: no such file")
    (tmp_path / "gate.toml").write_text("[[check]]\nmetric = 'micro_f1'\nmin = 0.5\n")
    line = one_line_error(capsys, main(["gate", "--config", "gate.toml"]))
    assert (
        "no FILE: give the input file, or file = ... in a --config; gate.toml has no file key"
        in line
    )
    line = one_line_error(capsys, main(["gate", "--config", str(tmp_path)]))
    assert line.endswith(f"{tmp_path}: not a regular file")


def test_cli_flags_without_per_class_floor_in_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "gate.toml").write_text("[[check]]\nmetric = 'micro_f1'\nmin = 0.5\n")
    (tmp_path / "m.json").write_text(json.dumps(CM))
    monkeypatch.chdir(tmp_path)
    line = one_line_error(capsys, main(["gate", "m.json", "--config", "gate.toml", "--joint"]))
    assert (
        "gate.toml: check: --joint applies to per-class floors (diagnostic_odds_ratio, f1, jaccard, log_diagnostic_odds_ratio, npv, positive_likelihood_ratio, precision, recall, specificity); there are none"
        in line
    )


def test_bad_pyproject_is_an_error_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.f1posterior.gate]\nprob = 2\n")
    (tmp_path / "m.json").write_text(json.dumps(CM))
    monkeypatch.chdir(tmp_path)
    line = one_line_error(capsys, main(["gate", "m.json", "--metric", "micro_f1", "--min", "0.5"]))
    assert line.endswith(
        "pyproject.toml [tool.f1posterior.gate]: prob: must be a number in (0.5, 1); got 2"
    )


def test_docs_config_examples_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The gate.toml and pyproject.toml examples of docs/ci-gate.md are valid and run."""
    doc = Path(__file__).resolve().parent.parent / "docs" / "ci-gate.md"
    gate_toml, pyproject = re.findall(r"```toml\n(.*?)```", doc.read_text(), re.S)
    (tmp_path / "eval").mkdir()
    (tmp_path / "eval" / "confusion.csv").write_text(",cat,dog\ncat,400,10\ndog,5,450\n")
    (tmp_path / "eval" / "production.csv").write_text(",cat,dog\ncat,380,30\ndog,25,430\n")
    (tmp_path / "gate.toml").write_text(gate_toml)
    monkeypatch.chdir(tmp_path)
    code, d = run_json(capsys, "--config", "gate.toml")
    assert [c["condition"] for c in d["checks"]] == [
        "micro_f1 >= 0.8",
        "recall [every class] >= 0.6",
        "micro_f1: new - baseline >= -0.01",
    ]
    assert code == 0 and d["verdict"] == "pass"
    (tmp_path / "pyproject.toml").write_text(pyproject)
    code, d = run_json(capsys)
    assert code == 0 and d["config"] == "pyproject.toml [tool.f1posterior.gate]"
    assert [c["condition"] for c in d["checks"]] == ["micro_f1 >= 0.8"]
