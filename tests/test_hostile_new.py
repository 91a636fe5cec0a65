"""Hostile input to the clustered, sliced and across-folds entry points: refused, not coerced."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from f1posterior import compare_folds, rank_folds
from f1posterior.cli import main
from f1posterior.gating import NonInferiority, gate_folds


def _three_classes(n: int = 200, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    a = np.where(rng.random(n) < 0.8, y, (y + 1) % 3)
    b = np.where(rng.random(n) < 0.7, y, (y + 2) % 3)
    return y, a, b


def test_folds_with_different_classes_are_refused() -> None:
    # the second fold never saw class 2: its macro-F1 would silently average over it
    y, a, b = _three_classes()
    ys, as_, bs = [y[:100], y[100:] % 2], [a[:100], a[100:] % 2], [b[:100], b[100:] % 2]
    with pytest.raises(ValueError, match=r"folds must share their classes: fold 1 .*\[2\]"):
        compare_folds(ys, as_, bs, draws=200, rng=1)
    with pytest.raises(ValueError, match=r"fold 1 has no true document of \[2\]"):
        rank_folds(ys, {"a": as_, "b": bs}, draws=200, rng=1)
    folds = np.repeat([0, 1], 100)
    y2 = np.concatenate(ys)
    with pytest.raises(ValueError, match=r"folds must share their classes"):
        gate_folds(y2, np.concatenate(as_), np.concatenate(bs), [NonInferiority("macro_f1", 0.02)],
                   folds=folds, draws=200)  # fmt: skip
    # stated classes: every fold over every class, as asked
    res = compare_folds(ys, as_, bs, labels=[0, 1, 2], draws=200, rng=1)
    assert res.labels == [0, 1, 2]


def test_cli_fold_missing_a_class(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    y, a, b = _three_classes()
    fold = np.arange(y.size) % 2
    y = np.where(fold == 0, 0, y)  # fold f0 holds one true class
    path = tmp_path / "folds.csv"
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["y_true", "pred_a", "pred_b", "fold"])
        w.writerows(zip(y, a, b, [f"f{k}" for k in fold], strict=True))
    argv = ["compare", "--predictions", str(path), "--fold-col", "fold", "--draws", "200"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "folds must share their classes" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["summarize", "{f}", "--cluster-col", "y_true"],
        ["gate", "{f}", "--metric", "micro_f1", "--min", "0.5", "--cluster-col", "y_pred"],
        [
            "compare",
            "--predictions",
            "{f}",
            "--models",
            "y_pred",
            "pred_b",
            "--cluster-col",
            "y_pred",
        ],
        ["plan", "{f}", "--metric", "micro_f1", "--min", "0.5", "--cluster-col", "y_true"],
    ],
)
def test_cli_cluster_col_is_not_a_label_column(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a label column as the clusters made one cluster per class (no error, a wrong interval)
    y, a, _ = _three_classes(120)
    path = tmp_path / "p.csv"
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["user", "y_true", "y_pred", "pred_b"])
        w.writerows(zip([f"u{i % 40}" for i in range(y.size)], y, a, a[::-1], strict=True))
    assert main([v.replace("{f}", str(path)) for v in argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "must be its own column" in err and "Traceback" not in err


@pytest.mark.parametrize("command", ["nope", "gate\n# forged", "schema"])
def test_receipt_command_is_one_with_a_document(command: str) -> None:
    # the schema selects the document's shape by the command: an unknown one has none
    from f1posterior.io import Receipt

    with pytest.raises(ValueError, match=r"command must be one of summarize, .*python; got"):
        Receipt(command)


@pytest.mark.parametrize(
    "d, match",
    [
        ({}, r"without 'command'"),
        ([], r"got \[\] \(without 'command'\)"),
        ({"command": "gate"}, r"without 'prior'"),
        ({"inputs": [{"x": 1}]}, r"inputs must be a list of objects with keys role"),
    ],
)
def test_receipt_from_dict_refuses_a_broken_dictionary(d: object, match: str) -> None:
    from f1posterior.io import Receipt

    full = Receipt("gate", draws=10, seed=3).to_dict()
    if isinstance(d, dict) and "inputs" in d:
        d = {**full, **d}
    with pytest.raises(ValueError, match=match):
        Receipt.from_dict(d)  # type: ignore[arg-type]
    assert Receipt.from_dict(full) == Receipt("gate", draws=10, seed=3)


@pytest.mark.parametrize("value", ['"x"', "true", "nan", "-0.1", "1.0", "inf"])
def test_config_relative_drop_states_one_range(
    value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the allowed range is [0, 1): the message said [0, 1] for every value but 1.0
    for name, m in (("new.json", "[[40, 10], [8, 45]]"), ("base.json", "[[30, 12], [9, 50]]")):
        (tmp_path / name).write_text(m)
    cfg = tmp_path / "gate.toml"
    cfg.write_text(
        f'file = "new.json"\nbaseline = "base.json"\n[[check]]\nmetric = "macro_f1"\n'
        f"baseline = true\nmax_relative_drop = {value}\n"
    )
    assert main(["gate", "--config", str(cfg)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "check[1].max_relative_drop: must be a number in [0, 1); got" in err


def test_blank_slice_and_fold_names_are_refused() -> None:
    # the command line refuses an empty slice or fold; in Python it became a row with no name
    from f1posterior import evaluate_slices
    from f1posterior.gating import SliceFloor, gate

    y, a, b = _three_classes(120)
    named = np.array([f"s{i % 3}" for i in range(y.size)], dtype=object)
    blank = np.where(np.arange(y.size) % 3 == 0, "", named)
    with pytest.raises(ValueError, match=r"groups must name each slice with visible text; got ''"):
        evaluate_slices(y, a, blank, draws=200)
    with pytest.raises(ValueError, match=r"visible text; got '' for 40 documents"):
        gate(y_true=y, y_pred=a, checks=[SliceFloor("micro_f1", 0.5)], groups=blank, draws=200)
    with pytest.raises(ValueError, match=r"folds must name each fold with visible text; got ' '"):
        compare_folds(y, a, b, folds=np.where(blank == "", " ", named), draws=200)
    tables = np.ones((2, 2, 2))
    with pytest.raises(ValueError, match=r"slices once, with visible text; got \['', 'x'\]"):
        evaluate_slices(counts=tables, names=["", "x"], draws=200)
    with pytest.raises(ValueError, match=r"distinct names \(visible text\), one per fold"):
        compare_folds(counts_a=tables, counts_b=tables, names=[" ", "x"], alpha="hierarchical",
                      draws=200)  # fmt: skip
    assert evaluate_slices(y, a, named, draws=200).names == ("s0", "s1", "s2")


def test_plan_cluster_size_alone_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    # alone it planned for independent documents (design effect 1) and gave the answer in
    # clusters, as if the clustering had been accounted for
    from f1posterior import plan

    counts = [[50, 5], [5, 40]]
    with pytest.raises(ValueError, match=r"cluster_size needs design_effect or icc .* alone"):
        plan(counts, metric="micro_f1", threshold=0.9, cluster_size=10, simulations=50)
    res = plan(counts, metric="micro_f1", threshold=0.9, cluster_size=10, icc=0.0, simulations=50)
    assert res.design_effect == 1.0 and res.additional_clusters is not None
    m = tmp_path / "m.json"
    m.write_text("[[50, 5], [5, 40]]")
    argv = ["plan", str(m), "--metric", "micro_f1", "--min", "0.9", "--cluster-size", "10"]
    assert main([*argv, "--simulations", "50"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cluster_size needs design_effect or icc" in err


@pytest.mark.parametrize("flag", [["--max-drop", "0.1"], ["--max-relative-drop", "0.1"]])
def test_cli_margin_without_baseline_is_refused(
    flag: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the margin of a comparison was silently unused by a gate of floors only
    m = tmp_path / "m.json"
    m.write_text("[[50, 5], [5, 40]]")
    assert main(["gate", str(m), "--metric", "macro_f1", "--min", "0.5", *flag]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{flag[0]} is the margin of a comparison" in err
    assert main(["gate", str(m), "--metric", "macro_f1", "--min", "0.5"]) == 0


@pytest.mark.parametrize(
    "out, extra",
    [
        (["--json", "{new}"], []),
        (["--json", "{link}"], []),
        (["--save-baseline", "{new}"], []),
        (["--json", "{base}"], ["--baseline", "{base}"]),
    ],
)
def test_cli_gate_outputs_never_replace_an_input(
    out: list[str], extra: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # --json FILE replaced the evaluated predictions by the gate's JSON
    new, base = tmp_path / "new.json", tmp_path / "base.json"
    new.write_text("[[50, 5], [5, 40]]")
    base.write_text("[[48, 7], [6, 39]]")
    (tmp_path / "link.json").symlink_to(new)
    paths = {"{new}": str(new), "{base}": str(base), "{link}": str(tmp_path / "link.json")}
    argv = ["gate", str(new), "--metric", "macro_f1", *[paths.get(v, v) for v in out + extra]]
    if not extra:
        argv += ["--min", "0.5"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "an output must not replace the gate's input" in err
    assert new.read_text() == "[[50, 5], [5, 40]]" and base.read_text() == "[[48, 7], [6, 39]]"


def test_ragged_predictions_name_the_argument() -> None:
    # rank_folds given (name, predictions) pairs: "model 0 must hold labels of one type;
    # got a mix ()" (the ragged list had become an empty array)
    y = np.arange(30) % 3
    with pytest.raises(ValueError, match=r"model 0 must be a 1-D sequence .* different lengths"):
        rank_folds(y, [("a", y), ("b", y)], folds=np.arange(30) % 2, draws=200)
    from f1posterior.metrics import label_array

    with pytest.raises(ValueError, match=r"y must be a 1-D sequence .* \[\[1, 2\], \[3\]\]"):
        label_array([[1, 2], [3]], "y")
    assert label_array([(1, 2), (3,)], "y").shape == (2,)  # tuples stay labels


def test_bool_labels_are_not_numbers() -> None:
    # True and 1 are one dictionary key: a bool y_true with number predictions (or a list
    # mixing them) was silently counted as one class
    from f1posterior import compare_predictions, confusion_matrix, evaluate_clusters

    y = np.array([True, False, True, False] * 10)
    p = np.array([1, 0, 0, 0] * 10)
    with pytest.raises(TypeError, match=r"got bool labels in y_true and number labels in y_pred"):
        confusion_matrix(y, p)
    with pytest.raises(TypeError, match=r"y_true must hold labels of one type.*\(bool,number\)"):
        confusion_matrix([True, 1, 0], [1, 1, 0])
    with pytest.raises(TypeError, match=r"cluster must hold labels of one type.*\(bool,number\)"):
        evaluate_clusters(p, p, [True, 1] * 20, draws=200)
    with pytest.raises(TypeError, match=r"bool labels in y_true, number labels in pred_a"):
        compare_predictions(y, p, p, draws=200)
    assert confusion_matrix(y, p == 1).labels == [False, True]  # bool with bool is fine
