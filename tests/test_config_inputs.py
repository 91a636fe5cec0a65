"""Inputs and configuration as users write them.

A CSV whose header row holds integer labels, ``id_col`` in gate.toml, and checks
given on the command line next to a configuration (a floor stays a floor, a
configured margin is kept).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from f1posterior.cli import main
from f1posterior.gating._config import GateConfigError, parse_config
from f1posterior.io._readers import read_matrix

# ------------------------------------------------------------- a header of integer labels


def _confusion(m: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.integers(0, 30, size=(m, m)) + np.diag(rng.integers(50, 90, size=m))


@pytest.mark.parametrize("fmt", ["%d", "%.18e"])  # np.savetxt's default writes floats
def test_a_header_of_integer_labels_is_read_as_labels(tmp_path, fmt):
    cm = _confusion(10)
    path = tmp_path / "cm.csv"
    header = ",".join(str(i) for i in range(10))
    np.savetxt(path, cm, delimiter=",", header=header, comments="", fmt=fmt)
    m = read_matrix(path)
    assert m.labels == [str(i) for i in range(10)]
    np.testing.assert_array_equal(m.counts, cm)


def test_integer_labels_in_any_order_name_the_classes(tmp_path):
    cm = _confusion(3, seed=1)
    path = tmp_path / "cm.csv"
    np.savetxt(path, cm, delimiter=",", header="7,3,5", comments="", fmt="%d")
    m = read_matrix(path)
    assert m.labels == ["7", "3", "5"]
    np.testing.assert_array_equal(m.counts, cm)
    # and the labels order the table like any header: --labels reorders by them
    r = read_matrix(path, labels=["3", "5", "7"])
    np.testing.assert_array_equal(r.counts, cm[np.ix_([1, 2, 0], [1, 2, 0])])


def test_the_command_line_reads_the_scikit_learn_header(tmp_path, capsys):
    cm = _confusion(4, seed=2)
    path = tmp_path / "cm.csv"
    np.savetxt(path, cm, delimiter=",", header="0,1,2,3", comments="", fmt="%d")
    code = main(["summarize", str(path), "--draws", "1000", "--format", "json"])
    assert code == 0, capsys.readouterr().err
    out = json.loads(capsys.readouterr().out)
    assert out["labels"] == ["0", "1", "2", "3"]
    assert out["metrics"]["micro_f1"]["score"] == pytest.approx(np.trace(cm) / cm.sum())


def test_a_square_table_of_counts_is_never_read_as_a_header(tmp_path):
    # the first row of a square table is counts, even when they are distinct integers
    cm = np.array([[0, 1, 2], [3, 40, 5], [6, 7, 80]])
    path = tmp_path / "cm.csv"
    np.savetxt(path, cm, delimiter=",", fmt="%d")
    m = read_matrix(path)
    assert m.labels is None
    np.testing.assert_array_equal(m.counts, cm)


@pytest.mark.parametrize(
    "first",
    ["4,4,9", "0.5,1.5,2.5", "0,1"],  # repeated, not integers, another width
)
def test_an_extra_row_that_is_not_a_label_header_is_still_refused(tmp_path, first):
    path = tmp_path / "cm.csv"
    path.write_text(first + "\n8,1,1\n2,9,1\n1,1,7\n")
    with pytest.raises(ValueError, match=r"cm\.csv"):
        read_matrix(path)


def test_an_extra_count_row_keeps_its_message(tmp_path):
    path = tmp_path / "cm.csv"
    path.write_text("4,4,9\n8,1,1\n2,9,1\n1,1,7\n")
    with pytest.raises(ValueError, match=r"got 4 rows of 3 counts"):
        read_matrix(path)


# ------------------------------------------------------------------ id_col in gate.toml


def _shuffled_predictions(folder: Path) -> None:
    """new.csv and base.csv: the same 300 documents, in two different orders, by doc_id."""
    rng = np.random.default_rng(0)
    n = 300
    y = rng.integers(0, 3, n)
    preds = {
        "new.csv": np.where(rng.random(n) < 0.85, y, rng.integers(0, 3, n)),
        "base.csv": np.where(rng.random(n) < 0.83, y, rng.integers(0, 3, n)),
    }
    for name, pred in preds.items():
        with (folder / name).open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["doc_id", "y_true", "y_pred"])
            for i in rng.permutation(n):
                w.writerow([f"d{i:04d}", y[i], pred[i]])


GATE_TOML = """
file = "new.csv"
baseline = "base.csv"
draws = 4000
{extra}
[[check]]
metric = "macro_f1"
baseline = true
max_drop = 0.05
"""


def _gate_json(capsys, argv: list[str]) -> tuple[dict, str]:
    code = main(["gate", *argv, "--format", "json"])
    captured = capsys.readouterr()
    assert code in (0, 1, 3), captured.err
    return json.loads(captured.out), captured.err


def test_id_col_in_gate_toml_pairs_shuffled_predictions(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _shuffled_predictions(tmp_path)
    (tmp_path / "gate.toml").write_text(GATE_TOML.format(extra='id_col = "doc_id"'))
    from_config, err = _gate_json(capsys, ["--config", "gate.toml"])
    assert err == ""  # paired: no warning
    argv = ["new.csv", "--baseline", "base.csv", "--id-col", "doc_id", "--metric", "macro_f1",
            "--max-drop", "0.05", "--draws", "4000"]  # fmt: skip
    from_flags, _ = _gate_json(capsys, argv)
    assert from_config["checks"] == from_flags["checks"]
    # negative control: without id_col the files are compared as independent samples
    (tmp_path / "gate.toml").write_text(GATE_TOML.format(extra=""))
    unpaired, err = _gate_json(capsys, ["--config", "gate.toml"])
    assert "are not paired" in err and "--id-col" in err
    assert unpaired["checks"][0]["prob"] != from_config["checks"][0]["prob"]


def test_id_col_is_ignored_by_floors_of_a_config(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _shuffled_predictions(tmp_path)
    text = (
        GATE_TOML.format(extra='id_col = "doc_id"')
        + '\n[[check]]\nmetric = "accuracy"\nmin = 0.5\n'
    )
    (tmp_path / "gate.toml").write_text(text)
    out, err = _gate_json(capsys, ["--config", "gate.toml"])
    assert [c["condition"] for c in out["checks"]] == [
        "macro_f1: new - baseline >= -0.05",
        "accuracy >= 0.5",
    ]
    assert err == ""


@pytest.mark.parametrize("value", ["", "  ", 3, True])
def test_a_bad_id_col_is_a_config_error(value):
    with pytest.raises(GateConfigError, match=r"gate\.toml: id_col: must be a column name"):
        parse_config({"id_col": value}, "gate.toml", ".")


def test_id_col_is_a_known_key():
    cfg = parse_config({"id_col": "doc_id"}, "gate.toml", ".")
    assert cfg.settings["id_col"] == "doc_id"


# ------------------------------------------------- command-line checks next to a config

MARGIN_TOML = """
file = "new.json"
baseline = "base.json"
draws = 4000

[[check]]
metric = "macro_f1"
baseline = true
max_drop = 0.01
"""
NEW = [[50, 5, 0], [3, 40, 2], [2, 2, 30]]
BASE = [[48, 7, 0], [5, 38, 2], [2, 2, 30]]


@pytest.fixture
def margin_config(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "new.json").write_text(json.dumps(NEW))
    (tmp_path / "base.json").write_text(json.dumps(BASE))
    (tmp_path / "gate.toml").write_text(MARGIN_TOML)
    return tmp_path


def _conditions(capsys, *argv: str) -> list[str]:
    out, _ = _gate_json(capsys, ["--config", "gate.toml", *argv])
    return [c["condition"] for c in out["checks"]]


def test_a_floor_on_the_command_line_stays_a_floor(margin_config, capsys):
    assert _conditions(capsys, "--metric", "macro_f1", "--min", "0.5") == ["macro_f1 >= 0.5"]


def test_a_bare_metric_keeps_the_configured_margin(margin_config, capsys):
    assert _conditions(capsys, "--metric", "macro_f1") == ["macro_f1: new - baseline >= -0.01"]
    # --max-drop on the command line wins; a metric without a configured margin gets 0
    assert _conditions(capsys, "--metric", "macro_f1", "--max-drop", "0.02") == [
        "macro_f1: new - baseline >= -0.02"
    ]
    assert _conditions(capsys, "--metric", "micro_f1") == ["micro_f1: new - baseline >= 0"]


def test_a_baseline_on_the_command_line_compares_every_metric_as_without_config(
    margin_config, capsys
):
    argv = ("--metric", "macro_f1", "--min", "0.5", "--baseline", "base.json")
    assert _conditions(capsys, *argv) == ["macro_f1 >= 0.5", "macro_f1: new - baseline >= -0.01"]


def test_command_line_check_errors_are_the_command_lines(margin_config, capsys, tmp_path):
    (tmp_path / "gate.toml").write_text(MARGIN_TOML.replace('baseline = "base.json"\n', ""))
    code = main(["gate", "--config", "gate.toml", "--metric", "macro_f1"])
    err = capsys.readouterr().err
    assert code == 2
    assert "--metric macro_f1 has no --min and there is no --baseline" in err
