"""Receipts: every output names the version, the inputs by SHA-256, the prior, draws, seed
and probabilities, and a run repeated from its receipt gives the same numbers."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from f1posterior import Floor, compare, evaluate, gate
from f1posterior._core.version import __version__
from f1posterior.cli import main
from f1posterior.io import (
    SCHEMA_VERSION,
    Receipt,
    digest_array,
    digest_path,
    read_metadata,
)

A = [[40, 10, 2], [5, 45, 3], [2, 4, 30]]
B = [[38, 12, 2], [6, 44, 3], [3, 4, 29]]


@pytest.fixture()
def files(tmp_path: Path) -> dict[str, Path]:
    out = {}
    for name, m in (("a", A), ("b", B)):
        out[name] = tmp_path / f"{name}.json"
        out[name].write_text(json.dumps(m))
    out["batch"] = tmp_path / "batch.jsonl"
    out["batch"].write_text("".join(json.dumps({"name": f"m{i}", "matrix": m}) + "\n"
                                    for i, m in enumerate((A, B))))  # fmt: skip
    return out


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: object) -> dict:
    code, out, err = run(capsys, *argv, "--format", "json")
    assert code in (0, 1, 3), err
    return json.loads(out)


def numbers(value: object) -> list[float]:
    """Every number of a JSON value but the receipt's (in document order)."""
    if isinstance(value, dict):
        return [x for k, v in value.items() if k != "receipt" for x in numbers(v)]
    if isinstance(value, list):
        return [x for v in value for x in numbers(v)]
    return [float(value)] if isinstance(value, int | float) and not isinstance(value, bool) else []


# ------------------------------------------------------------------------------ digests
def test_file_digest_is_sha256_of_its_bytes(files: dict[str, Path]) -> None:
    d = digest_path(files["a"], "file")
    assert (d.sha256, d.size, d.kind) == (sha(files["a"]), files["a"].stat().st_size, "file")
    other = digest_path(files["b"])
    assert other.sha256 != d.sha256  # negative control: other bytes, other digest


def test_array_digest_depends_on_dtype_shape_and_values() -> None:
    m = np.array(A)
    base = digest_array(m)
    assert digest_array(m.copy()) == base
    assert digest_array(np.asfortranarray(m)) == base  # C order whatever the layout
    assert digest_array(m.astype(float)).sha256 != base.sha256
    assert digest_array(m.reshape(1, 3, 3)).sha256 != base.sha256
    changed = m.copy()
    changed[0, 0] += 1
    assert digest_array(changed).sha256 != base.sha256
    with pytest.raises(TypeError, match="array: an array of numbers is hashed; got dtype object"):
        digest_array(np.array([1, "a"], dtype=object))


def test_stdin_digest_is_sha256_of_the_bytes_read() -> None:
    data = json.dumps({"matrix": A}).encode()
    r = subprocess.run(
        [sys.executable, "-m", "f1posterior", "summarize", "-", "--input-format", "json",
         "--format", "json", "--draws", "1000"],
        input=data, capture_output=True, check=True,
    )  # fmt: skip
    (digest,) = json.loads(r.stdout)["receipt"]["inputs"]
    assert digest == {"role": "file", "name": "<stdin>", "kind": "stdin",
                      "sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}  # fmt: skip


def test_stdin_streamed_as_json_lines_says_it_kept_no_digest(files: dict[str, Path]) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "f1posterior", "summarize", "-", "--input-format", "jsonl",
         "--format", "ndjson", "--draws", "1000"],
        input=files["batch"].read_bytes(), capture_output=True, check=True,
    )  # fmt: skip
    meta = json.loads(r.stdout.splitlines()[0])["meta"]
    assert meta["receipt"]["inputs"] == [
        {"role": "file", "name": "<stdin>", "kind": "stdin", "sha256": None, "size": None}
    ]


# ---------------------------------------------------------------- what a receipt holds
def test_json_receipt_names_version_inputs_and_settings(files, capsys) -> None:
    doc = run_json(capsys, "gate", files["a"], "--baseline", files["b"], "--metric", "micro_f1",
                   "--min", "0.7", "--draws", "3000", "--seed", "11", "--ci-prob", "0.9",
                   "--prob", "0.8", "--prior", "jeffreys")  # fmt: skip
    r = doc["receipt"]
    assert r["tool"] == "f1posterior" and r["version"] == __version__
    assert r["schema_version"] == SCHEMA_VERSION and r["command"] == "gate"
    assert [(i["role"], i["sha256"]) for i in r["inputs"]] == [
        ("file", sha(files["a"])), ("baseline", sha(files["b"]))
    ]  # fmt: skip
    assert (r["draws"], r["seed"], r["ci_prob"], r["prob"]) == (3000, 11, 0.9, 0.8)
    assert r["prior"] == doc["prior"] and "jeffreys" in r["prior"]


def test_gate_config_file_is_an_input(files, tmp_path: Path, capsys) -> None:
    cfg = tmp_path / "gate.toml"
    cfg.write_text(f'draws = 2000\nfile = "{files["a"]}"\n\n[[check]]\nmetric = "micro_f1"\n'
                   "min = 0.6\n")  # fmt: skip
    r = run_json(capsys, "gate", "--config", cfg)["receipt"]
    assert [(i["role"], i["sha256"]) for i in r["inputs"]] == [
        ("file", sha(files["a"])), ("config", sha(cfg))
    ]  # fmt: skip


def test_python_receipt_records_the_entropy_actually_used() -> None:
    counts = np.array(A)
    ev = evaluate(counts, draws=2000)  # no seed given
    r = Receipt.of(ev, [counts])
    assert isinstance(r.seed, int) and r.seed.bit_length() > 64  # fresh entropy, recorded
    again = evaluate(counts, draws=2000, rng=r.seed_sequence())
    assert again["macro_f1"].mean == ev["macro_f1"].mean
    assert again["macro_f1"].hdi.tolist() == ev["macro_f1"].hdi.tolist()
    other = evaluate(counts, draws=2000)
    assert other["macro_f1"].mean != ev["macro_f1"].mean  # negative control: a new seed
    assert r.inputs[0] == digest_array(counts)


@pytest.mark.parametrize("rng", [np.random.default_rng(5), np.random.SeedSequence(3).spawn(2)[1]])
def test_python_receipt_repeats_a_generator_or_child_seed(rng) -> None:
    ev = evaluate(A, draws=1000, rng=rng)
    r = Receipt.from_dict(json.loads(json.dumps(Receipt.of(ev).to_dict())))  # via JSON
    assert evaluate(A, draws=1000, rng=r.seed_sequence())["micro_f1"].mean == ev["micro_f1"].mean


def test_python_receipt_of_gate_and_comparison() -> None:
    g = gate(A, [Floor("micro_f1", 0.5)], draws=2000, rng=4, prob=0.9)
    rg = Receipt.of(g, [np.array(A)], defaults={"prob": 0.9})
    assert (rg.draws, rg.seed, rg.prob, rg.ci_prob) == (2000, 4, 0.9, None)
    c = compare(A, B, draws=2000, rng=4)
    rc = Receipt.of(c)
    assert (rc.draws, rc.seed, rc.prob) == (None, 4, 0.95)  # its draws are an array


# ----------------------------------------------------------------------- reproduction
RERUN = [
    ("summarize", ["{a}", "--metric", "f1", "--ref", "0.8", "--chance"]),
    ("gate", ["{a}", "--baseline", "{b}", "--metric", "macro_f1", "--min", "0.7"]),
    ("compare", ["{a}", "{b}", "--metric", "macro_f1"]),
    ("aggregate", ["{a}", "{b}", "--metric", "accuracy"]),
]


@pytest.mark.parametrize(("command", "argv"), RERUN, ids=[c for c, _ in RERUN])
def test_a_run_repeated_from_its_receipt_gives_the_same_numbers(files, capsys, command, argv):
    args = [a.format(**files) for a in argv]
    first = run_json(capsys, command, *args, "--seed", "987", "--draws", "3000")
    r = first["receipt"]
    assert [i["sha256"] for i in r["inputs"]] == [sha(Path(a)) for a in args if a in
                                                  {str(p) for p in files.values()}]  # fmt: skip
    again = run_json(capsys, command, *args, "--seed", r["seed"], "--draws", r["draws"])
    assert again["receipt"] == r
    assert numbers(again) == numbers(first)
    other = run_json(capsys, command, *args, "--seed", "988", "--draws", r["draws"])
    assert numbers(other) != numbers(first)  # negative control: another seed


def test_batch_rerun_from_the_csv_receipt(files, tmp_path: Path, capsys) -> None:
    out1, out2 = tmp_path / "one.csv", tmp_path / "two.csv"
    assert main(["summarize", str(files["batch"]), "--draws", "2000", "--seed", "5",
                 "--output", str(out1)]) == 0  # fmt: skip
    r = read_metadata(out1)["receipt"]
    assert r["inputs"][0]["sha256"] == sha(files["batch"]) and r["seed"] == 5
    assert main(["summarize", str(files["batch"]), "--draws", str(r["draws"]),
                 "--seed", str(r["seed"]), "--output", str(out2)]) == 0  # fmt: skip
    assert out1.read_text() == out2.read_text()


# ------------------------------------------------------------------ every format
@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".ndjson", ".json", ".parquet"])
def test_row_outputs_carry_the_receipt_in_their_metadata(files, tmp_path, capsys, suffix) -> None:
    if suffix == ".parquet":
        pytest.importorskip("pyarrow")
    out = tmp_path / f"rows{suffix}"
    assert main(["summarize", str(files["batch"]), "--draws", "2000", "--output", str(out)]) == 0
    meta = read_metadata(out)
    r = meta["receipt"]
    assert r["command"] == "summarize" and r["inputs"][0]["sha256"] == sha(files["batch"])
    assert (r["draws"], r["seed"], r["prior"]) == (meta["draws"], meta["seed"], meta["prior"])


@pytest.mark.parametrize(
    ("argv", "last"),
    [
        (["summarize", "{a}"], -1),
        (["summarize", "{batch}", "--format", "table", "--long"], -1),
        (["compare", "{a}", "{b}"], -1),
        (["aggregate", "{a}", "{b}"], -1),
        (["gate", "{a}", "--metric", "micro_f1", "--min", "0.5"], -2),  # the verdict last
        (
            [
                "plan",
                "{a}",
                "--metric",
                "micro_f1",
                "--min",
                "0.95",
                "--simulations",
                "50",
                "--max-documents",
                "50",
            ],
            -2,
        ),  # the answer last
    ],  # fmt: skip
)
def test_text_outputs_carry_a_receipt_line(files, capsys, argv, last) -> None:
    args = [a.format(**files) for a in argv]
    _, out, _ = run(capsys, *args, *(["--draws", "1000"] if args[0] != "plan" else []))
    line = out.rstrip("\n").splitlines()[last]
    assert line.startswith(f"Receipt: f1posterior {__version__}; schema {SCHEMA_VERSION}; ")
    assert f"sha256:{sha(files['a'] if 'batch' not in argv[1] else files['batch'])}" in line


@pytest.mark.parametrize(
    "argv",
    [["summarize", "{a}"], ["compare", "{a}", "{b}"], ["aggregate", "{a}", "{b}"],
     ["gate", "{a}", "--metric", "micro_f1", "--min", "0.5"]],
)  # fmt: skip
def test_markdown_outputs_end_with_a_receipt_footer(files, capsys, argv) -> None:
    _, out, _ = run(capsys, *[a.format(**files) for a in argv], "--draws", "1000",
                    "--format", "markdown")  # fmt: skip
    last = out.rstrip("\n").splitlines()[-1]
    assert last.startswith("<sub>Receipt: f1posterior") and last.endswith("</sub>")
    assert f"sha256:{sha(files['a'])}" in last


def test_gate_summary_file_and_junit_carry_the_receipt(files, tmp_path, capsys) -> None:
    md, junit = tmp_path / "summary.md", tmp_path / "gate.xml"
    run(capsys, "gate", files["a"], "--metric", "micro_f1", "--min", "0.5", "--draws", "1000",
        "--append-markdown", md, "--junit-xml", junit)  # fmt: skip
    assert md.read_text().rstrip("\n").splitlines()[-1].startswith("<sub>Receipt: ")
    suite = ET.parse(junit).getroot()
    props = {p.get("name"): p.get("value") for p in suite.find("properties")}
    assert props["receipt.version"] == __version__
    assert props["receipt.schema_version"] == SCHEMA_VERSION
    assert props["receipt.input.0.sha256"] == sha(files["a"])
    assert (props["receipt.draws"], props["receipt.seed"]) == ("1000", "20150927")
    assert props["prior"] == props["receipt.prior"]  # the suite's own properties are kept
    assert len(suite.findall("testcase")) == 1


def test_names_are_escaped_in_every_format(tmp_path: Path, capsys) -> None:
    path = tmp_path / "a|*b*\x1b[31m.json"
    path.write_text(json.dumps(A))
    base = ["gate", path, "--metric", "micro_f1", "--min", "0.5", "--draws", "1000"]
    junit = tmp_path / "g.xml"
    _, text, _ = run(capsys, *base, "--junit-xml", junit)
    line = next(x for x in text.splitlines() if x.startswith("Receipt: "))
    assert "\x1b" not in line and "\\x1b[31m" in line
    _, md, _ = run(capsys, *base, "--format", "markdown")
    footer = md.rstrip("\n").splitlines()[-1]
    assert "a\\|\\*b\\*" in footer and "\x1b" not in footer
    props = {p.get("name"): p.get("value") for p in ET.parse(junit).getroot().iter("property")}
    assert "\x1b" not in props["receipt.input.0.name"]
    doc = run_json(capsys, *base)
    assert doc["receipt"]["inputs"][0]["name"] == str(path)  # JSON holds the name itself


# --------------------------------------------------------------------------- DVC
def flatten(value: object, prefix: str = "") -> dict[str, object]:
    """``dvc metrics``-style dotted keys of the objects of a JSON value (lists are leaves)."""
    if isinstance(value, dict):
        out: dict[str, object] = {}
        for k, v in value.items():
            out.update(flatten(v, f"{prefix}{k}."))
        return out
    return {prefix[:-1]: value}


def test_summary_leaves_are_flat_addressable_scalars(files, capsys) -> None:
    doc = run_json(capsys, "summarize", files["a"], "--draws", "2000", "--ref", "0.8")
    flat = flatten(doc)
    metrics = {k: v for k, v in flat.items() if k.startswith("metrics.")}
    assert metrics and all(not isinstance(v, list | dict) for v in metrics.values())
    lo, hi = flat["metrics.macro_f1.hdi_low"], flat["metrics.macro_f1.hdi_high"]
    assert isinstance(lo, float) and isinstance(hi, float) and lo < hi
    receipt = {k: v for k, v in flat.items() if k.startswith("receipt.") and k != "receipt.inputs"}
    assert all(not isinstance(v, list | dict) for v in receipt.values())
    agg = flatten(run_json(capsys, "aggregate", files["a"], files["b"], "--draws", "2000"))
    assert isinstance(agg["summary.hdi_low"], float)
    assert isinstance(agg["heterogeneity.tau_interval_high"], float)


@pytest.mark.parametrize("suffix", [".md", ".html"])
def test_reports_end_with_the_receipt(tmp_path: Path, capsys, suffix: str) -> None:
    pytest.importorskip("matplotlib")
    path = tmp_path / "<b>a.json"
    path.write_text(json.dumps(A))
    report = tmp_path / f"report{suffix}"
    run(capsys, "summarize", path, "--draws", "1000", "--report", report)
    text = report.read_text()
    if suffix == ".md":
        assert text.rstrip("\n").splitlines()[-1].startswith("<sub>Receipt: f1posterior")
        assert "&lt;b&gt;a.json" in text.splitlines()[-1]  # escaped as Markdown escapes HTML
    else:
        tail = text[text.rindex('<p class="meta">Receipt: ') :]
        assert tail.endswith("</body></html>\n") and "&lt;b&gt;a.json" in tail
    assert f"sha256:{sha(path)}" in text


def test_aggregate_csv_metadata_carries_the_receipt(files, capsys) -> None:
    code, out, _ = run(capsys, "aggregate", files["a"], files["b"], "--draws", "1000",
                       "--format", "csv")  # fmt: skip
    assert code == 0 and out.startswith("# f1posterior: ")
    meta = json.loads(out.splitlines()[0].removeprefix("# f1posterior: "))
    r = meta["receipt"]
    assert [i["sha256"] for i in r["inputs"]] == [sha(files["a"]), sha(files["b"])]
    assert (r["command"], r["draws"], r["seed"]) == ("aggregate", 1000, meta["seed"])


def test_python_row_outputs_carry_a_receipt_without_inputs() -> None:
    import io

    from f1posterior.io import RowWriter
    from f1posterior.posterior import evaluation_rows, run_metadata

    ev = evaluate(np.array([A, B]), draws=1000, rng=8)
    meta = run_metadata(ev)
    assert meta["receipt"] == Receipt("python", (), ev.prior, 1000, 8, 0.95).to_dict()
    out = io.StringIO()
    w = RowWriter(out, "markdown", meta=meta)
    w.write(*evaluation_rows(ev, ["one", "two"]))
    w.close()
    assert out.getvalue().rstrip("\n").splitlines()[-1].startswith("<sub>Receipt: f1posterior")


def test_mlflow_tags_carry_the_receipt(tmp_path: Path, monkeypatch) -> None:
    mlflow = pytest.importorskip("mlflow")
    from f1posterior.integrations.mlflow import log_evaluation

    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    monkeypatch.setenv("MLFLOW_TRACKING_URI", (tmp_path / "mlruns").as_uri())
    ev = evaluate(A, metrics="macro_f1", draws=2000, rng=6)
    with mlflow.start_run() as run:
        log_evaluation(ev)
    tags = mlflow.get_run(run.info.run_id).data.tags
    receipt = Receipt.from_dict(json.loads(tags["f1posterior.receipt"]))
    assert receipt == Receipt("python", (), ev.prior, 2000, 6, 0.95)
    again = evaluate(A, metrics="macro_f1", draws=receipt.draws, rng=receipt.seed_sequence())
    assert again["macro_f1"].mean == ev["macro_f1"].mean


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"command": ""}, TypeError, "command must be a non-empty str; got"),
        ({"inputs": ("a.json",)}, TypeError, "inputs must hold InputDigest values; got 'a.json'"),
        ({"draws": 0}, ValueError, "draws must be an int >= 1 or None; got 0"),
        ({"draws": 2.5}, ValueError, "draws must be an int >= 1 or None; got 2.5"),
        ({"ci_prob": 95}, ValueError, r"ci_prob must be a number in \(0, 1\) or None; got 95"),
        ({"prob": True}, ValueError, r"prob must be a number in \(0, 1\) or None; got True"),
    ],
)
def test_bad_receipt_fields_are_refused(kwargs: dict, exc: type, match: str) -> None:
    with pytest.raises(exc, match=match):
        Receipt(**{"command": "python", **kwargs})
