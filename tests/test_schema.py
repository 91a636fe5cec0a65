"""``f1posterior schema``: every JSON output of every subcommand validates against it.

Each command's JSON is produced by the command line itself and validated with
``jsonschema`` (a test dependency, never a run-time one); negative controls show
that the schema rejects an interval written as a list, a broken receipt and a
document of another command.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest

from f1posterior.cli import SUBCOMMANDS, main
from f1posterior.io import SCHEMA_VERSION, json_schema

jsonschema = pytest.importorskip("jsonschema")

A = [[40, 10, 2], [5, 45, 3], [2, 4, 30]]
B = [[38, 12, 2], [6, 44, 3], [3, 4, 29]]
C = [[30, 10, 5], [8, 40, 5], [4, 4, 28]]
TABLES = [[[[50, 3], [4, 20]], [[40, 6], [9, 22]]]]  # one multi-label stack (L, 2, 2)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    d = tmp_path_factory.mktemp("schema")
    out: dict[str, str] = {}
    for name, m in (("a", A), ("b", B), ("c", C)):
        p = d / f"{name}.json"
        p.write_text(json.dumps({"matrix": m, "labels": ["x", "y|z", "<w>"]}))
        out[name] = str(p)
    batch = d / "batch.jsonl"
    batch.write_text("".join(json.dumps({"name": f"m{i}", "matrix": m}) + "\n"
                             for i, m in enumerate((A, B, C))))  # fmt: skip
    out["batch"] = str(batch)
    ml = d / "ml.json"
    ml.write_text(json.dumps({"tables": TABLES[0], "labels": ["p", "q"]}))
    out["ml"] = str(ml)
    rng = np.random.default_rng(1)
    yt = (rng.random((40, 3)) < 0.4).astype(int)
    yp = np.where(rng.random((40, 3)) < 0.8, yt, 1 - yt)
    docs = d / "docs.json"
    docs.write_text(json.dumps({"y_true": yt.tolist(), "y_pred": yp.tolist()}))
    out["docs"] = str(docs)
    preds = d / "preds.csv"
    truth = rng.integers(0, 2, 60)
    flip = lambda p: np.where(rng.random(60) < p, 1 - truth, truth)  # noqa: E731
    preds.write_text("y_true,m1,m2\n" + "".join(
        f"{t},{u},{v}\n" for t, u, v in zip(truth, flip(0.1), flip(0.2), strict=True)))  # fmt: skip
    out["preds"] = str(preds)
    sliced = d / "sliced.csv"
    region = rng.choice(["eu", "us", "asia"], 60)
    sliced.write_text("y_true,y_pred,region\n" + "".join(
        f"{t},{u},{r}\n" for t, u, r in zip(truth, flip(0.2), region, strict=True)))  # fmt: skip
    out["sliced"] = str(sliced)
    clustered = d / "clustered.csv"
    user = np.repeat(np.arange(30), 2)
    clustered.write_text("y_true,y_pred,user\n" + "".join(
        f"{t},{u},u{c}\n" for t, u, c in zip(truth, flip(0.2), user, strict=True)))  # fmt: skip
    out["clustered"] = str(clustered)
    folds = d / "folds.csv"
    fold = np.repeat(np.arange(4), 15)
    folds.write_text("y_true,a,b,c,fold\n" + "".join(
        f"{t},{u},{v},{w},{k}\n"
        for t, u, v, w, k in zip(truth, flip(0.2), flip(0.15), flip(0.25), fold, strict=True)
    ))  # fmt: skip
    out["folds"] = str(folds)
    cfg = d / "gate.toml"
    cfg.write_text(f'draws = 2000\nfile = "{out["a"]}"\nbaseline = "{out["b"]}"\n\n'
                   '[[check]]\nmetric = "micro_f1"\nmin = 0.6\n\n'
                   '[[check]]\nmetric = "macro_f1"\nbaseline = true\nmax_drop = 0.05\n')  # fmt: skip
    out["config"] = str(cfg)
    return out


#: Every JSON document of the command line: (name, arguments); {a} etc. are the files.
CASES = [
    ("summarize one matrix", ["summarize", "{a}", "--metric", "f1", "--ref", "0.8"]),
    ("summarize example", ["summarize"]),
    ("summarize sensitivity", ["summarize", "{a}", "--prior-sensitivity"]),
    ("summarize chance", ["summarize", "{a}", "--chance", "--prevalence", "0.2,0.3,0.5"]),
    ("summarize multilabel", ["summarize", "{ml}", "--multilabel"]),
    ("summarize documents", ["summarize", "--documents", "{docs}"]),
    ("summarize batch rows", ["summarize", "{batch}"]),
    ("summarize batch long", ["summarize", "{batch}", "--long"]),
    ("summarize slices", ["summarize", "{sliced}", "--predictions", "--slice-col", "region"]),
    ("summarize clusters", ["summarize", "{clustered}", "--cluster-col", "user"]),
    (
        "gate floors",
        ["gate", "{a}", "--metric", "micro_f1", "--min", "0.7", "--metric", "f1", "--min", "0.5"],
    ),  # fmt: skip
    ("gate baseline", ["gate", "{a}", "--baseline", "{b}", "--max-drop", "0.05"]),
    ("gate config", ["gate", "--config", "{config}"]),
    ("gate multilabel", ["gate", "{ml}", "--multilabel", "--metric", "macro_f1", "--min", "0.5"]),
    (
        "gate predictions",
        [
            "gate",
            "{preds}",
            "--predictions",
            "--pred-col",
            "m1",
            "--metric",
            "accuracy",
            "--min",
            "0.6",
        ],
    ),  # fmt: skip
    (
        "gate slices",
        [
            "gate",
            "{sliced}",
            "--predictions",
            "--slice-col",
            "region",
            "--metric",
            "accuracy",
            "--min",
            "0.6",
        ],
    ),  # fmt: skip
    (
        "gate clusters",
        ["gate", "{clustered}", "--cluster-col", "user", "--metric", "accuracy", "--min", "0.6"],
    ),  # fmt: skip
    ("compare two", ["compare", "{a}", "{b}"]),
    ("compare paired", ["compare", "--predictions", "{preds}"]),
    ("compare ranking", ["compare", "{a}", "{b}", "{c}"]),
    (
        "compare folds",
        ["compare", "--predictions", "{folds}", "--models", "a", "b", "--fold-col", "fold"],
    ),  # fmt: skip
    ("compare folds ranking", ["compare", "--predictions", "{folds}", "--fold-col", "fold"]),
    (
        "plan",
        [
            "plan",
            "{a}",
            "--metric",
            "micro_f1",
            "--min",
            "0.85",
            "--simulations",
            "50",
            "--max-documents",
            "100",
            "--draws",
            "1000",
        ],
    ),  # fmt: skip
    ("aggregate", ["aggregate", "{a}", "{b}", "{c}", "--metric", "macro_f1"]),
    ("aggregate pooled", ["aggregate", "{a}", "{b}", "--method", "pooled"]),
]
_DRAWS = {"summarize", "gate", "compare", "aggregate"}


def run_json(capsys: pytest.CaptureFixture[str], files: dict[str, str], argv: list[str]) -> dict:
    args = [a.format(**files) for a in argv]
    if args[0] in _DRAWS and not any(a.startswith("--config") for a in args):
        args += ["--draws", "2000"]
    code = main([*args, "--format", "json"])
    out, err = capsys.readouterr()
    assert code in (0, 1, 3), err
    return json.loads(out)


@pytest.fixture(scope="module")
def validator():
    schema = json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.mark.parametrize(("name", "argv"), CASES, ids=[c[0] for c in CASES])
def test_every_json_output_validates(validator, files, capsys, name: str, argv: list[str]) -> None:
    doc = run_json(capsys, files, argv)
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    assert not errors, f"{name}: {errors[0].message} at {list(errors[0].path)}"
    receipt = doc["receipt"]
    assert receipt["command"] == argv[0] and receipt["schema_version"] == SCHEMA_VERSION
    assert not {"hdi", "eti", "tau_interval", "i2_interval"} & set(all_keys(doc))  # split


def all_keys(value) -> list[str]:
    """Every key of every object in a JSON value."""
    if isinstance(value, dict):
        return [k for k, v in value.items() for k in (k, *all_keys(v))]
    if isinstance(value, list):
        return [k for v in value for k in all_keys(v)]
    return []


def test_every_subcommand_with_json_has_a_case() -> None:
    covered = {argv[0] for _, argv in CASES}
    assert covered == set(SUBCOMMANDS) - {"schema"}


def test_batch_json_output_file_validates(validator, files, tmp_path: Path) -> None:
    out = tmp_path / "rows.json"
    code = main(["summarize", files["batch"], "--draws", "2000", "--output", str(out)])
    assert code == 0
    doc = json.loads(out.read_text())
    assert validator.is_valid(doc) and len(doc["rows"]) == 3


def test_schema_command_prints_it_and_writes_it(capsys, tmp_path: Path) -> None:
    assert main(["schema"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == json_schema()
    path = tmp_path / "schema.json"
    assert main(["schema", "--output", str(path)]) == 0
    assert json.loads(path.read_text()) == printed
    capsys.readouterr()
    assert main(["schema", "--output", str(tmp_path)]) == 2  # a folder: one line, exit 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--output" in err[0] and "a directory" in err[0]


class TestNegativeControls:
    """The schema rejects what the outputs must not be."""

    @pytest.fixture()
    def doc(self, files, capsys) -> dict:
        return run_json(capsys, files, CASES[0][1])

    def test_the_output_is_valid_to_start_with(self, validator, doc) -> None:
        assert validator.is_valid(doc)

    def test_an_interval_as_a_list_is_rejected(self, validator, doc) -> None:
        bad = copy.deepcopy(doc)
        s = bad["metrics"]["f1"]
        s["hdi"] = [s.pop("hdi_low"), s.pop("hdi_high")]
        assert not validator.is_valid(bad)

    @pytest.mark.parametrize(
        ("key", "value"),
        [("sha256", "not-a-digest"), ("version", ""), ("extra", 1), ("seed", -1)],
    )
    def test_a_broken_receipt_is_rejected(self, validator, doc, key: str, value) -> None:
        bad = copy.deepcopy(doc)
        if key == "sha256":
            bad["receipt"]["inputs"][0]["sha256"] = value
        else:
            bad["receipt"][key] = value
        assert not validator.is_valid(bad)

    def test_no_receipt_is_rejected(self, validator, doc) -> None:
        assert not validator.is_valid({k: v for k, v in doc.items() if k != "receipt"})

    def test_a_document_under_another_command_is_rejected(self, validator, doc) -> None:
        bad = copy.deepcopy(doc)
        bad["receipt"]["command"] = "gate"
        assert not validator.is_valid(bad)
