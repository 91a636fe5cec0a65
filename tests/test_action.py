"""The composite GitHub Action (action.yml): structure, no shell injection, the command it builds.

The `run:` scripts are executed here with bash, with a stub `f1posterior` on PATH that
records its argv (NUL-separated, so newlines survive) and either exits with a chosen
status or runs the real command line; the recorded argv must parse with
:func:`f1posterior.cli.build_parser`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml  # pyyaml: in the test dependency group

from f1posterior.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
ACTION = ROOT / "action.yml"
BASH = shutil.which("bash")
needs_bash = pytest.mark.skipif(BASH is None, reason="bash is not installed")

MATRIX = "[[50, 3, 2], [4, 40, 6], [1, 5, 39]]"  # micro-F1 0.86 on 150 documents


def _action() -> dict[str, Any]:
    return yaml.safe_load(ACTION.read_text(encoding="utf-8"))


def _step(name: str) -> dict[str, Any]:
    (step,) = [s for s in _action()["runs"]["steps"] if s.get("name") == name]
    return step


def _gate_env(**inputs: str) -> dict[str, str]:
    """The gate step's env with ``${{ inputs.x }}`` replaced by ``inputs[x]`` (default "")."""
    action = _action()
    declared = action["inputs"]
    env = {}
    for key, value in _step("Run f1posterior gate")["env"].items():
        m = re.fullmatch(r"\$\{\{ inputs\.([\w-]+) \}\}", value)
        assert m, f"{key}: {value!r} is not a plain input"
        name = m.group(1)
        env[key] = inputs.get(name.replace("-", "_"), str(declared[name].get("default", "")))
    return env


def _run_script(
    script: str, env: dict[str, str], tmp_path: Path, *, status: int | None = 0
) -> tuple[subprocess.CompletedProcess[str], list[str], dict[str, str]]:
    """Run ``script`` with a stub f1posterior; return (process, recorded argv, outputs)."""
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    argv_file = tmp_path / "argv"
    stub = bindir / "f1posterior"
    if status is None:  # record, then run the real command line
        tail = f'exec "{sys.executable}" -m f1posterior "$@"'
    else:
        tail = f"exit {status}"
    stub.write_text(f'#!/bin/sh\nprintf \'%s\\0\' "$@" > "{argv_file}"\n{tail}\n')
    stub.chmod(0o755)
    outputs = tmp_path / "github_output"
    outputs.write_text("")
    full = {
        "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}",
        "HOME": os.environ.get("HOME", str(tmp_path)),
        "GITHUB_OUTPUT": str(outputs),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        "GITHUB_ACTION_PATH": str(ROOT),
        **env,
    }
    proc = subprocess.run(
        [BASH or "bash", "-c", script],
        env=full,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    argv = argv_file.read_text().split("\0")[:-1] if argv_file.exists() else []
    pairs = [line.split("=", 1) for line in outputs.read_text().splitlines() if line]
    return proc, argv, dict(pairs)  # type: ignore[arg-type]


def _core(out: dict[str, str]) -> dict[str, str]:
    """The outputs verdict, exit-code and junit-xml."""
    return {k: out[k] for k in ("verdict", "exit-code", "junit-xml")}


def _parse(argv: list[str]) -> Any:
    assert argv[0] == "gate"
    return build_parser().parse_args(argv)


# --- structure ----------------------------------------------------------------------


def test_action_is_a_composite_action_with_setup_python_install_and_gate():
    action = _action()
    assert action["runs"]["using"] == "composite"
    names = [s["name"] for s in action["runs"]["steps"]]
    assert names == [
        "Set up Python", "Install f1posterior", "Run f1posterior gate", "Comment on the pull request"
    ]  # fmt: skip
    assert _step("Set up Python")["uses"].startswith("actions/setup-python@")
    assert set(action["outputs"]) == {"verdict", "exit-code", "junit-xml", "json", "failed-checks"}
    for name, out in action["outputs"].items():
        assert out["value"] == f"${{{{ steps.gate.outputs.{name} }}}}"
    assert {"file", "checks", "config", "baseline", "max-drop", "prob", "prior", "seed"} <= set(
        action["inputs"]
    )
    assert "id-col" in action["inputs"]
    assert {"inconclusive", "args", "python-version", "package", "junit-xml"} <= set(
        action["inputs"]
    )


def test_no_expression_inside_run_scripts():
    """Inputs reach the shell only through env: (no `${{ ... }}` pasted into a script)."""
    runs = [s["run"] for s in _action()["runs"]["steps"] if "run" in s]
    assert len(runs) == 3
    for script in runs:
        assert "${{" not in script
        assert "inputs." not in script
    # and a script-level expression would be caught: the check is not vacuous
    assert "${{ inputs." in ACTION.read_text() and "${{" in str(_step("Install f1posterior"))


def test_every_declared_input_is_used_and_every_used_input_declared():
    text = ACTION.read_text(encoding="utf-8")
    body = text.split("\noutputs:", 1)[1]  # after the declarations
    used = set(re.findall(r"inputs\.([\w-]+)", body))
    assert used == set(_action()["inputs"])


def test_every_env_value_is_a_bare_input_reference():
    """... or, in the comment step, a bare output of the gate step."""
    for step in _action()["runs"]["steps"]:
        for key, value in (step.get("env") or {}).items():
            pattern = r"\$\{\{ (inputs|steps\.gate\.outputs)\.[\w-]+ \}\}"
            if step["name"] != "Comment on the pull request":
                pattern = r"\$\{\{ inputs\.[\w-]+ \}\}"
            assert re.fullmatch(pattern, value), (key, value)


# --- the command line it builds ---------------------------------------------------------


@needs_bash
def test_built_command_is_a_valid_gate_invocation(tmp_path):
    env = _gate_env(
        file="eval/confusion.csv",
        checks="micro_f1>=0.80\nrecall:0.6  macro_f1",
        baseline="eval/prod.csv",
        max_drop="0.01",
        prob="0.9",
        prior="aligned",
        seed="7",
        args="--draws 20000  --max-draws 200000",
    )
    proc, argv, out = _run_script(_step("Run f1posterior gate")["run"], env, tmp_path)
    assert proc.returncode == 0, proc.stderr
    args = _parse(argv)
    assert args.file == "eval/confusion.csv"
    assert args.checks == [["micro_f1", 0.8], ["recall", 0.6], ["macro_f1", None]]
    assert (args.baseline, args.max_drop, args.prob, args.prior, args.seed) == (
        "eval/prod.csv",
        0.01,
        0.9,
        "aligned",
        7,
    )
    assert (args.draws, args.max_draws) == (20000, 200000)
    assert args.append_markdown == str(tmp_path / "summary.md")
    assert args.junit_xml == "f1posterior-gate.xml"
    assert out == {"verdict": "pass", "exit-code": "0", "junit-xml": "", "json": "",
                   "failed-checks": "[]", "markdown-file": ""}  # fmt: skip  # stub wrote none


@needs_bash
def test_defaults_build_the_minimal_command(tmp_path):
    env = _gate_env(file="m.json", checks="micro_f1>=0.5", junit_xml="")
    env["TMPDIR"] = str(tmp_path)
    proc, argv, out = _run_script(_step("Run f1posterior gate")["run"], env, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert argv[:12] == ["gate", "m.json", "--metric", "micro_f1", "--min", "0.5",
                         "--append-markdown", str(tmp_path / "summary.md"),
                         "--annotations", "github", "--json", "f1posterior-gate.json"]  # fmt: skip
    # with no junit-xml input the action writes a report of its own (to read the
    # verdict from), in the temporary folder, and removes it
    assert argv[12] == "--junit-xml" and len(argv) == 14
    assert Path(argv[13]).parent == tmp_path and not Path(argv[13]).exists()
    assert out["junit-xml"] == ""
    _parse(argv)


@needs_bash
def test_id_col_input_builds_the_flag(tmp_path):
    env = _gate_env(file="new.csv", baseline="base.csv", checks="macro_f1", id_col="doc_id")
    proc, argv, _ = _run_script(_step("Run f1posterior gate")["run"], env, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert _parse(argv).id_col == "doc_id"
    env = _gate_env(file="new.csv", baseline="base.csv", checks="macro_f1")
    proc, argv, _ = _run_script(_step("Run f1posterior gate")["run"], env, tmp_path)
    assert "--id-col" not in argv and _parse(argv).id_col is None


@needs_bash
def test_config_input_builds_a_valid_invocation(tmp_path):
    env = _gate_env(file="eval/confusion.csv", config="ci/gate.toml")
    proc, argv, _ = _run_script(_step("Run f1posterior gate")["run"], env, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert argv[:4] == ["gate", "eval/confusion.csv", "--config", "ci/gate.toml"]
    args = _parse(argv)
    assert args.config == "ci/gate.toml"


@needs_bash
def test_hostile_inputs_are_passed_literally_never_run(tmp_path):
    hostile = '$(touch PWNED1)`touch PWNED2`"; touch PWNED3; echo "'
    env = _gate_env(
        file=hostile + "\nsecond line",
        checks="micro_f1>=0.5 *",
        baseline="; touch PWNED4",
        prior="$(touch PWNED5)",
        args="* ?",
    )
    (tmp_path / "decoy.txt").write_text("")  # a glob `*` would expand to this
    proc, argv, out = _run_script(_step("Run f1posterior gate")["run"], env, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert not list(tmp_path.glob("PWNED*"))
    assert argv[1] == hostile + "\nsecond line"
    assert argv[argv.index("--baseline") + 1] == "; touch PWNED4"
    assert argv[argv.index("--prior") + 1] == "$(touch PWNED5)"
    assert ["--metric", "*"] == argv[6:8] and argv[-2:] == ["*", "?"]  # not globbed
    assert "decoy.txt" not in argv
    assert out["verdict"] == "pass"


@needs_bash
@pytest.mark.parametrize(
    "status, inconclusive, verdict, step_status",
    [
        (0, "", "pass", 0),
        (1, "", "fail", 1),
        (1, "pass", "fail", 1),  # --inconclusive never changes a FAIL
        (2, "pass", "error", 2),
        (3, "", "inconclusive", 3),
        (3, "pass", "inconclusive", 0),
        (3, "fail", "inconclusive", 1),
        (141, "", "error", 141),
    ],
)
def test_exit_status_and_outputs(tmp_path, status, inconclusive, verdict, step_status):
    env = _gate_env(file="m.json", checks="micro_f1>=0.5", inconclusive=inconclusive)
    proc, _, out = _run_script(_step("Run f1posterior gate")["run"], env, tmp_path, status=status)
    assert proc.returncode == step_status
    assert out["verdict"] == verdict and out["exit-code"] == str(status)


@needs_bash
def test_bad_inconclusive_input_is_an_error(tmp_path):
    env = _gate_env(file="m.json", checks="micro_f1>=0.5", inconclusive="yes")
    proc, argv, out = _run_script(_step("Run f1posterior gate")["run"], env, tmp_path)
    assert proc.returncode == 2 and argv == []
    assert out["verdict"] == "error" and "inconclusive" in proc.stderr


@needs_bash
@pytest.mark.parametrize(
    "floor, status, verdict", [("0.5", 0, "pass"), ("0.95", 1, "fail"), ("0.86", 3, "inconclusive")]
)
def test_real_gate_end_to_end(tmp_path, floor, status, verdict):
    (tmp_path / "m.json").write_text(MATRIX)
    env = _gate_env(file="m.json", checks=f"micro_f1>={floor}", prior="aligned")
    proc, argv, out = _run_script(_step("Run f1posterior gate")["run"], env, tmp_path, status=None)
    assert proc.returncode == status, proc.stderr
    assert _core(out) == {
        "verdict": verdict,
        "exit-code": str(status),
        "junit-xml": "f1posterior-gate.xml",
    }
    assert out["json"] == "f1posterior-gate.json"
    assert json.loads((tmp_path / out["json"]).read_text())["verdict"] == verdict
    assert json.loads(out["failed-checks"]) == ([f"micro_f1 >= {floor}"] if status == 1 else [])
    summary = (tmp_path / "summary.md").read_text()
    assert f"micro_f1 ≥ {floor}" in summary or f"micro_f1 >= {floor}" in summary.replace(
        "\\", ""
    ), summary
    xml = (tmp_path / "f1posterior-gate.xml").read_text()
    assert "<testcase" in xml and ("<failure" in xml) == (verdict == "fail")
    assert f"verdict {verdict} (exit status {status})" in proc.stdout


GATE_TOML = """
file = "m.json"
prior = "aligned"
{key}
[[check]]
metric = "micro_f1"
min = {floor}
"""


@needs_bash
@pytest.mark.parametrize(
    "floor, verdict, code", [("0.5", "pass", 0), ("0.95", "fail", 1), ("0.86", "inconclusive", 3)]
)
@pytest.mark.parametrize(
    "key, args, inconclusive, inconclusive_step",
    [
        ("", "", "", 3),
        ('inconclusive = "fail"', "", "", 1),
        ('inconclusive = "pass"', "", "", 0),
        ("", "--inconclusive fail", "", 1),
        ('inconclusive = "fail"', "", "pass", 0),  # the input decides the step
        ('inconclusive = "pass"', "", "fail", 1),
    ],
)
@pytest.mark.parametrize("junit_xml", ["", "report.xml"])
def test_outputs_follow_the_verdict_whatever_maps_inconclusive(
    tmp_path, floor, verdict, code, key, args, inconclusive, inconclusive_step, junit_xml
):
    (tmp_path / "m.json").write_text(MATRIX)
    (tmp_path / "gate.toml").write_text(GATE_TOML.format(key=key, floor=floor))
    env = _gate_env(config="gate.toml", args=args, inconclusive=inconclusive, junit_xml=junit_xml)
    env["TMPDIR"] = str(tmp_path / "tmp")
    (tmp_path / "tmp").mkdir()
    proc, _, out = _run_script(_step("Run f1posterior gate")["run"], env, tmp_path, status=None)
    step = inconclusive_step if verdict == "inconclusive" else code
    assert proc.returncode == step, proc.stderr
    assert _core(out) == {"verdict": verdict, "exit-code": str(code), "junit-xml": junit_xml}
    assert f"verdict {verdict} (exit status {code})" in proc.stdout
    assert "INCONCLUSIVE" in (tmp_path / "summary.md").read_text() or verdict != "inconclusive"
    assert not list((tmp_path / "tmp").iterdir())  # the action's own report is removed


@needs_bash
def test_an_error_keeps_its_exit_status_and_no_report(tmp_path):
    env = _gate_env(file="missing.json", checks="micro_f1>=0.5", junit_xml="")
    env["TMPDIR"] = str(tmp_path)
    proc, _, out = _run_script(_step("Run f1posterior gate")["run"], env, tmp_path, status=None)
    assert proc.returncode == 2
    assert out == {"verdict": "error", "exit-code": "2", "junit-xml": "", "json": "",
                   "failed-checks": "[]", "markdown-file": ""}  # fmt: skip


@needs_bash
@pytest.mark.parametrize(
    "package, spec",
    [("", "{root}[exact]"), ("f1posterior[exact]==0.1.0", "f1posterior[exact]==0.1.0")],
)
def test_install_step_installs_the_action_path_by_default(tmp_path, package, spec):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    log = tmp_path / "python-argv"
    (bindir / "python").write_text(f'#!/bin/sh\nprintf \'%s\\0\' "$@" > "{log}"\n')
    (bindir / "f1posterior").write_text("#!/bin/sh\necho f1posterior 0.1.0\n")
    for f in bindir.iterdir():
        f.chmod(0o755)
    step = _step("Install f1posterior")
    assert step["env"] == {"F1P_PACKAGE": "${{ inputs.package }}"}
    proc = subprocess.run(
        [BASH or "bash", "-c", step["run"]],
        env={
            "PATH": f"{bindir}{os.pathsep}/usr/bin:/bin",
            "GITHUB_ACTION_PATH": str(ROOT),
            "F1P_PACKAGE": package,
        },  # fmt: skip
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    argv = log.read_text().split("\0")[:-1]
    assert argv[:3] == ["-m", "pip", "install"]
    assert argv[-2:] == ["--", spec.format(root=ROOT)]


# --- the documented workflow (docs/examples/gate-workflow.yml) --------------------------

WORKFLOW = ROOT / "docs" / "examples" / "gate-workflow.yml"
DOC = ROOT / "docs" / "ci-gate.md"


def _workflow() -> dict[str, Any]:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def _action_steps(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        s
        for job in doc["jobs"].values()
        for s in job["steps"]
        if re.fullmatch(r"[\w.-]+/f1posterior@[\w.-]+", s.get("uses", ""))
    ]


def _gate_commands(script: str) -> list[list[str]]:
    """The `f1posterior gate ...` command lines of a shell script, as argv lists."""
    import shlex

    joined = script.replace("\\\n", " ")
    out = []
    for line in joined.splitlines():
        words = shlex.split(line, comments=True)
        if words[:2] == ["f1posterior", "gate"]:
            if "||" in words:
                words = words[: words.index("||")]
            out.append([w.replace("$GITHUB_STEP_SUMMARY", "summary.md") for w in words[1:]])
    return out


def test_workflow_parses_and_has_both_variants():
    doc = _workflow()
    assert set(doc["jobs"]) == {"gate-action", "gate-pip"}
    assert len(_action_steps(doc)) == 2
    for job in doc["jobs"].values():
        for step in job["steps"]:
            assert "${{" not in step.get("run", ""), step  # no expression pasted into a script


@needs_bash
def test_workflow_action_steps_build_valid_gate_invocations(tmp_path):
    declared = set(_action()["inputs"])
    for k, step in enumerate(_action_steps(_workflow())):
        given = step["with"]
        assert set(given) <= declared, set(given) - declared
        env = _gate_env(**{key.replace("-", "_"): str(v) for key, v in given.items()})
        work = tmp_path / str(k)
        work.mkdir()
        proc, argv, _ = _run_script(_step("Run f1posterior gate")["run"], env, work)
        assert proc.returncode == 0, proc.stderr
        args = _parse(argv)
        assert args.file == "eval/confusion.csv"
        assert args.junit_xml == given["junit-xml"]
    # the baseline step as written: two compared metrics, a margin and extra draws
    assert (args.baseline, args.max_drop, args.draws) == ("eval/production.csv", 0.01, 100000)
    assert args.checks == [["micro_f1", None], ["macro_f1", None]]


def test_workflow_pip_job_commands_parse():
    job = _workflow()["jobs"]["gate-pip"]
    commands = [c for s in job["steps"] for c in _gate_commands(s.get("run", ""))]
    assert len(commands) == 2
    parsed = [build_parser().parse_args(c) for c in commands]
    assert parsed[0].checks == [["micro_f1", 0.8], ["recall", 0.6]]
    # no --prior: the default (a config file's prior, else the package's default)
    assert parsed[0].prior is None and parsed[0].inconclusive == "fail"
    assert parsed[1].baseline == "eval/production.csv" and parsed[1].max_drop == 0.01
    assert all(p.append_markdown == "summary.md" for p in parsed)


def test_ci_gate_doc_shows_the_action_and_points_to_the_workflow():
    text = DOC.read_text(encoding="utf-8")
    assert "docs/examples/gate-workflow.yml" in text or "examples/gate-workflow.yml" in text
    blocks = re.findall(r"```yaml\n(.*?)```", text, flags=re.S)
    assert blocks, "docs/ci-gate.md has no YAML example"
    declared = set(_action()["inputs"])
    steps = [
        s for b in blocks for s in _action_steps({"jobs": {"j": {"steps": yaml.safe_load(b)}}})
    ]
    assert steps
    for step in steps:
        assert set(step["with"]) <= declared


# --- the workflow's action steps, end to end, and the prior-dominance flag ------------


def _ten(correct: int) -> list[list[int]]:
    """10 classes of 54 documents, ``correct`` of 540 on the diagonal (514: micro-F1 0.952),
    the errors spread round robin (as tests/test_gate_recipe.py)."""
    c = [[54 if i == j else 0 for j in range(10)] for i in range(10)]
    for e in range(540 - correct):
        j = e % 10
        c[j][j] -= 1
        c[j][(j + 1 + e // 10) % 10] += 1
    return c


def _write_eval(tmp_path: Path) -> None:
    (tmp_path / "eval").mkdir(exist_ok=True)
    for name, correct in (("confusion.csv", 514), ("production.csv", 459)):
        rows = "\n".join(",".join(map(str, r)) for r in _ten(correct))
        (tmp_path / "eval" / name).write_text(rows + "\n")


@needs_bash
def test_workflow_action_steps_pass_a_095_model_with_the_default_prior(tmp_path):
    _write_eval(tmp_path)
    for k, step in enumerate(_action_steps(_workflow())):
        given = {key.replace("-", "_"): str(v) for key, v in step["with"].items()}
        assert "prior" not in given  # the calibrated default
        env = _gate_env(**given)
        env["RUNNER_TEMP"] = str(tmp_path)  # the comment's table (comment: "true")
        proc, _, out = _run_script(_step("Run f1posterior gate")["run"], env, tmp_path, status=None)
        assert proc.returncode == 0, (k, proc.stderr)
        assert out["verdict"] == "pass" and out["exit-code"] == "0"
    summary = (tmp_path / "summary.md").read_text()
    assert summary.count("### f1posterior gate passed") == 2
    assert "prior-dominated" not in summary  # negative control of the test below
    saved = json.loads((tmp_path / "gate-baseline.json").read_text())  # save-baseline
    assert saved["format"] == "f1posterior-baseline" and saved["counts"] == _ten(514)


@needs_bash
@pytest.mark.parametrize("prior", ["aligned", ""])
def test_job_summary_and_junit_flag_a_prior_dominated_check(tmp_path, prior):
    _write_eval(tmp_path)
    env = _gate_env(file="eval/confusion.csv", checks="micro_f1>=0.80", prior=prior)
    proc, _, out = _run_script(_step("Run f1posterior gate")["run"], env, tmp_path, status=None)
    summary = (tmp_path / "summary.md").read_text()
    xml = (tmp_path / "f1posterior-gate.xml").read_text()
    if prior == "aligned":  # alpha = 1 on 10 classes: HDI [0.789, 0.848] around 0.952
        assert out["verdict"] == "inconclusive"
        assert "| exact; **prior-dominated** |" in summary
        assert "**prior-dominated**: the prior dominates micro_f1 >= 0.8" in summary
        assert '<property name="prior_dominated" value="true" />' in xml
        assert "<system-out>prior-dominated: the prior moves" in xml
        assert "warning: the prior dominates micro_f1 >= 0.8" in proc.stderr
    else:  # the default prior on the same table: nothing to flag
        assert out["verdict"] == "pass"
        assert "prior-dominated" not in summary and "system-out" not in xml
        assert '<property name="prior_dominated" value="false" />' in xml
        assert "prior dominates" not in proc.stderr


# --- the gate in pull requests: flags, annotations, outputs, the sticky comment --------


@needs_bash
def test_pull_request_inputs_build_their_flags(tmp_path):
    env = _gate_env(file="new.json", checks="micro_f1", baseline="saved.json",
                    max_relative_drop="0.02", save_baseline="out/baseline.json",
                    annotations="false", json="")  # fmt: skip
    proc, argv, _ = _run_script(_step("Run f1posterior gate")["run"], env, tmp_path)
    assert proc.returncode == 0, proc.stderr
    args = _parse(argv)
    assert (args.max_relative_drop, args.save_baseline) == (0.02, "out/baseline.json")
    assert args.annotations is None and args.json_path is None
    for name, value in (("annotations", "yes"), ("comment", "1")):
        (tmp_path / name).mkdir()
        proc, argv, out = _run_script(
            _step("Run f1posterior gate")["run"], _gate_env(file="m.json", **{name: value}),
            tmp_path / name,
        )  # fmt: skip
        assert proc.returncode == 2 and argv == [] and out["verdict"] == "error"
        assert f"input {name} must be true or false" in proc.stderr


def _runner_commands(text: str) -> list[str]:
    """The workflow commands the runner would read (lines end at LF or CR; leading blanks
    are trimmed; a command starts with ``::``)."""
    lines = re.split(r"\r\n|\r|\n", text)
    return [x.lstrip() for x in lines if x.lstrip().startswith("::")]


@needs_bash
def test_annotations_json_and_failed_checks_end_to_end_with_hostile_labels(tmp_path):
    labels = ["a\n::add-mask::x", "b,title=forged ##[add-mask]z", "c\r::stop-commands::t"]
    (tmp_path / "m.json").write_text(json.dumps({"matrix": json.loads(MATRIX), "labels": labels}))
    env = _gate_env(file="m.json", checks="f1>=0.95 micro_f1>=0.5", args="--draws 4000")
    proc, _, out = _run_script(_step("Run f1posterior gate")["run"], env, tmp_path, status=None)
    assert proc.returncode == 1, proc.stderr
    result = json.loads((tmp_path / out["json"]).read_text())
    failed = [c["condition"] for c in result["checks"] if c["verdict"] == "fail"]
    assert len(failed) == 3 and json.loads(out["failed-checks"]) == failed
    commands = _runner_commands(proc.stdout + "\n" + proc.stderr)
    assert len(commands) == 3 and all(c.startswith("::error title=f1posterior%3A f1 [class ")
                                      for c in commands)  # fmt: skip
    assert not any(re.match(r"::(add-mask|stop-commands)", c) for c in commands)
    assert "##[" not in proc.stdout + proc.stderr  # nor the legacy form, anywhere in a line
    properties = [c[2:].split("::", 1)[0] for c in commands]  # up to the first "::"
    assert all(p.startswith("error title=") and "," not in p for p in properties)  # no forgery


def _fake_gh(tmp_path: Path, pages: str = "[]", status: int = 0, login: str = "") -> Path:
    """A stub `gh` on PATH: records each call (argv, and the --input payload) as a JSON line;
    `gh api user` prints ``login`` (refused, as to a GITHUB_TOKEN, when ""); `gh api
    ... comments?...` (a GET) prints ``pages``; exits with ``status``."""
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    log = tmp_path / "gh-calls.jsonl"
    (tmp_path / "pages.json").write_text(pages)
    gh = bindir / "gh"
    gh.write_text(
        f"#!{sys.executable}\n"
        "import json, os, sys\n"
        "argv = sys.argv[1:]\n"
        "payload = None\n"
        "if '--input' in argv:\n"
        "    payload = json.load(open(argv[argv.index('--input') + 1]))\n"
        f"with open({str(log)!r}, 'a') as fh:\n"
        "    fh.write(json.dumps({'argv': argv, 'payload': payload,\n"
        "                         'token': os.environ.get('GH_TOKEN')}) + '\\n')\n"
        "if argv[:2] == ['api', 'user']:\n"
        f"    print({login!r}) if {login!r} else sys.exit(1)\n"
        "    sys.exit(0)\n"
        f"if {status}:\n"
        "    print('HTTP 403: Resource not accessible by integration', file=sys.stderr)\n"
        f"    sys.exit({status})\n"
        "if '--method' not in argv:\n"
        f"    sys.stdout.write(open({str(tmp_path / 'pages.json')!r}).read())\n"
        "else:\n"
        "    print(json.dumps({'id': 99}))\n"
    )
    gh.chmod(0o755)
    return log


def _comment(tmp_path: Path, outputs: dict[str, str], event: dict[str, Any], key: str = "") -> Any:
    """Run the comment step as the runner would after the gate step."""
    (tmp_path / "event.json").write_text(json.dumps(event))
    step = _step("Comment on the pull request")
    env = {
        "PATH": f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "HOME": os.environ.get("HOME", str(tmp_path)),
        "GITHUB_EVENT_PATH": str(tmp_path / "event.json"),
        "GITHUB_REPOSITORY": "octo/model",
        "RUNNER_TEMP": str(tmp_path / "runner-temp"),
        "F1P_TOKEN": "t0ken",
        "F1P_MARKDOWN": outputs.get("markdown-file", ""),
        "F1P_VERDICT": outputs.get("verdict", ""),
        "F1P_COMMENT_KEY": key,
    }
    (tmp_path / "runner-temp").mkdir(exist_ok=True)
    return subprocess.run([BASH or "bash", "-c", step["run"]], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)  # fmt: skip


def _gate_for_comment(tmp_path: Path, floor: str = "0.5") -> dict[str, str]:
    (tmp_path / "m.json").write_text(MATRIX)
    (tmp_path / "runner-temp").mkdir(exist_ok=True)
    env = _gate_env(file="m.json", checks=f"micro_f1>={floor}", prior="aligned", comment="true")
    env["RUNNER_TEMP"] = str(tmp_path / "runner-temp")
    proc, argv, out = _run_script(_step("Run f1posterior gate")["run"], env, tmp_path, status=None)
    assert proc.returncode in (0, 1, 3), proc.stderr
    # the table goes to the job summary as before, and to a file for the comment
    assert "### f1posterior gate" in (tmp_path / "summary.md").read_text()
    assert Path(out["markdown-file"]).read_text() in (tmp_path / "summary.md").read_text()
    return out


PR_EVENT = {"pull_request": {"number": 7}}


def test_comment_step_is_opt_in_and_runs_after_a_failed_gate():
    step = _step("Comment on the pull request")
    assert step["if"] == "${{ !cancelled() && inputs.comment == 'true' }}"
    assert _action()["inputs"]["comment"]["default"] == "false"
    assert "pull-requests: write" in _action()["inputs"]["comment"]["description"]


@needs_bash
def test_comment_is_created_when_there_is_none(tmp_path):
    out = _gate_for_comment(tmp_path, floor="0.95")  # a FAIL: the comment still comes
    log = _fake_gh(tmp_path, pages='[{"id": 5, "body": "LGTM", "user": {"type": "User"}}]')
    proc = _comment(tmp_path, out, PR_EVENT)
    assert proc.returncode == 0, proc.stderr
    calls = [json.loads(x) for x in log.read_text().splitlines()]
    assert [c["argv"][:3] for c in calls] == [
        ["api", "user", "--jq"],
        ["api", "--paginate", "repos/octo/model/issues/7/comments?per_page=100"],
        ["api", "--method", "POST"],
    ]
    assert calls[2]["argv"][3] == "repos/octo/model/issues/7/comments"
    calls = calls[1:]
    body = calls[1]["payload"]["body"]
    assert body.startswith("<!-- f1posterior-gate -->\n### f1posterior gate FAILED")
    assert "micro_f1 >= 0.95" in body and calls[1]["token"] == "t0ken"
    assert not list((tmp_path / "runner-temp").iterdir())  # table and payload removed


@needs_bash
def test_comment_is_updated_in_place(tmp_path):
    out = _gate_for_comment(tmp_path)
    marker = "<!-- f1posterior-gate -->\n### old"
    pages = (  # two pages, as --paginate prints them; a user's quote of the marker is left
        json.dumps([{"id": 1, "body": marker, "user": {"type": "User"}}])
        + json.dumps(
            [
                {"id": 42, "body": marker, "user": {"type": "Bot"}},
                {"id": 43, "body": "other bot", "user": {"type": "Bot"}},
            ]
        )  # fmt: skip
    )
    log = _fake_gh(tmp_path, pages=pages)
    proc = _comment(tmp_path, out, PR_EVENT)
    assert proc.returncode == 0, proc.stderr
    calls = [json.loads(x) for x in log.read_text().splitlines()][1:]  # after `gh api user`
    assert calls[1]["argv"][:4] == ["api", "--method", "PATCH",
                                    "repos/octo/model/issues/comments/42"]  # fmt: skip
    assert len(calls) == 2 and "passed" in calls[1]["payload"]["body"]
    assert "updated the pull-request comment" in proc.stdout
    # with a personal token the comment is its own account's (a user, not a bot)
    log.unlink()
    out = _gate_for_comment(tmp_path)
    log = _fake_gh(tmp_path, login="octocat", pages=json.dumps([
        {"id": 8, "body": marker, "user": {"type": "User", "login": "octocat"}},
        {"id": 9, "body": marker, "user": {"type": "Bot", "login": "github-actions[bot]"}},
        {"id": 10, "body": "hi", "user": {"type": "User", "login": "octocat"}},
    ]))  # fmt: skip
    proc = _comment(tmp_path, out, PR_EVENT)
    calls = [json.loads(x) for x in log.read_text().splitlines()]
    assert proc.returncode == 0 and calls[-1]["argv"][2:4] == [
        "PATCH", "repos/octo/model/issues/comments/8"
    ]  # fmt: skip


@needs_bash
def test_no_comment_outside_a_pull_request_and_a_refused_one_only_warns(tmp_path):
    out = _gate_for_comment(tmp_path)
    log = _fake_gh(tmp_path)
    proc = _comment(tmp_path, out, {"ref": "refs/heads/main"})  # a push
    assert proc.returncode == 0 and not log.exists() and "no comment" in proc.stdout
    log = _fake_gh(tmp_path, status=1)  # a fork's read-only token: 403
    proc = _comment(tmp_path, out, PR_EVENT)
    assert proc.returncode == 0
    assert "::warning title=f1posterior gate comment::could not list the comments" in proc.stdout
    assert not list((tmp_path / "runner-temp").iterdir())


@needs_bash
def test_a_gate_error_still_gets_a_comment(tmp_path):
    env = _gate_env(file="missing.json", checks="micro_f1>=0.5", comment="true")
    env["RUNNER_TEMP"] = str(tmp_path / "runner-temp")
    (tmp_path / "runner-temp").mkdir()
    proc, _, out = _run_script(_step("Run f1posterior gate")["run"], env, tmp_path, status=None)
    assert proc.returncode == 2 and out["verdict"] == "error"
    log = _fake_gh(tmp_path)
    proc = _comment(tmp_path, out, PR_EVENT)
    body = json.loads(log.read_text().splitlines()[-1])["payload"]["body"]
    assert proc.returncode == 0 and "stopped with an error" in body and "gate: error" in body


@needs_bash
def test_each_comment_key_keeps_its_own_comment(tmp_path):
    out = _gate_for_comment(tmp_path)
    pages = json.dumps([
        {"id": 1, "body": "<!-- f1posterior-gate -->\nfloors", "user": {"type": "Bot"}},
        {"id": 2, "body": "<!-- f1posterior-gate baseline -->\nold", "user": {"type": "Bot"}},
    ])  # fmt: skip
    log = _fake_gh(tmp_path, pages=pages)
    proc = _comment(tmp_path, out, PR_EVENT, key="baseline")
    calls = [json.loads(x) for x in log.read_text().splitlines()]
    assert proc.returncode == 0 and calls[-1]["argv"][2:4] == [
        "PATCH", "repos/octo/model/issues/comments/2"
    ]  # fmt: skip
    assert calls[-1]["payload"]["body"].startswith("<!-- f1posterior-gate baseline -->\n")
    log.unlink()
    out = _gate_for_comment(tmp_path)
    proc = _comment(tmp_path, out, PR_EVENT, key="other")  # no comment of its own yet: POST
    calls = [json.loads(x) for x in log.read_text().splitlines()]
    assert proc.returncode == 0 and calls[-1]["argv"][2] == "POST"
    proc = _comment(tmp_path, out, PR_EVENT, key="x --><script>")
    assert proc.returncode == 2 and "comment-key must be" in proc.stderr
