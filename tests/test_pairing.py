"""Pairing two predictions of the same documents: align_ids and --id-col."""

from __future__ import annotations

import numpy as np
import pytest

from f1posterior.metrics._confusion import align_ids


class TestAlignIds:
    def test_permutation_reorders_other_ids(self) -> None:
        rng = np.random.default_rng(0)
        ids = np.array([f"doc{i}" for i in range(200)])
        other = ids[rng.permutation(200)]
        perm = align_ids(ids, other)
        assert perm.dtype == np.intp
        np.testing.assert_array_equal(other[perm], ids)

    def test_identity_when_aligned(self) -> None:
        np.testing.assert_array_equal(align_ids([3, 1, 2], [3, 1, 2]), [0, 1, 2])

    def test_integer_ids(self) -> None:
        np.testing.assert_array_equal(align_ids(np.array([5, 7, 9]), [9, 5, 7]), [1, 2, 0])

    def test_repeated_id_in_ids(self) -> None:
        with pytest.raises(
            ValueError, match=r"^new\.csv must not repeat a document id .*1 repeated id: 'a'$"
        ):
            align_ids(["a", "b", "a"], ["a", "b", "c"], name="new.csv", other_name="base.csv")

    def test_repeated_id_in_other_ids(self) -> None:
        with pytest.raises(
            ValueError, match=r"^base\.csv must not repeat .*2 repeated ids: 'c', 'b'$"
        ):
            align_ids(
                ["a", "b", "c", "d"], ["c", "b", "b", "c"], name="new.csv", other_name="base.csv"
            )

    def test_missing_on_both_sides(self) -> None:
        msg = (
            r"^ids and baseline ids must hold the same document ids, one to one; 1 id of ids "
            r"is missing from baseline ids: 'x'; 2 ids of baseline ids are missing from ids: "
            r"'z', 'y'$"
        )
        with pytest.raises(ValueError, match=msg):
            align_ids(["a", "x"], ["z", "a", "y"])

    def test_shows_five_and_counts_the_rest(self) -> None:
        ids = [f"a{i}" for i in range(12)]
        other = [f"b{i}" for i in range(12)]
        with pytest.raises(
            ValueError, match=r"12 ids of ids are missing .*'a4', \.\.\. \(7 more\);"
        ):
            align_ids(ids, other)

    def test_string_and_number_ids_differ(self) -> None:
        with pytest.raises(ValueError, match=r"1 id of ids is missing from baseline ids: '1'"):
            align_ids(["1"], [1])

    def test_control_characters_escaped_in_message(self) -> None:
        with pytest.raises(ValueError, match=r"'evil\\n### passed\\x1b\[0m'$") as info:
            align_ids(["ok"], ["ok", "evil\n### passed\x1b[0m"])
        assert "\n" not in str(info.value)

    def test_empty_ids(self) -> None:
        with pytest.raises(
            ValueError, match=r"^ids must hold at least one document id; got 0 ids$"
        ):
            align_ids([], ["a"])

    def test_two_dimensional_ids(self) -> None:
        with pytest.raises(
            ValueError, match=r"^baseline ids must be a 1-D sequence .*got shape \(2, 1\)$"
        ):
            align_ids(["a", "b"], np.array([["a"], ["b"]]))

    def test_string_is_not_a_sequence_of_ids(self) -> None:
        with pytest.raises(
            TypeError, match=r"^ids must be a 1-D sequence of document ids; got 'abc'$"
        ):
            align_ids("abc", ["a", "b", "c"])

    def test_unhashable_id(self) -> None:
        with pytest.raises(
            TypeError,
            match=r"^baseline ids must hold hashable document ids; got \[1\] at position 0$",
        ):
            align_ids([1], [[1]])

    def test_nan_id(self) -> None:
        with pytest.raises(
            ValueError, match=r"^ids must not contain NaN ids; got NaN at position 1$"
        ):
            align_ids([1.0, float("nan")], [1.0, 2.0])

    def test_linear_time_on_many_ids(self) -> None:
        # 200,000 ids: a quadratic list lookup would take minutes
        n = 200_000
        ids = np.arange(n)
        other = np.random.default_rng(1).permutation(n)
        perm = align_ids(ids, other)
        np.testing.assert_array_equal(other[perm], ids)


# --- pairing through the command line -------------------------------------------------

import csv  # noqa: E402
import json  # noqa: E402
from pathlib import Path  # noqa: E402

from f1posterior.cli import main  # noqa: E402
from f1posterior.cli._prediction_tables import pair_prediction_tables  # noqa: E402
from f1posterior.io._predictions import PredictionTable, read_prediction_table  # noqa: E402

N_DOCS = 240


def _write(path: Path, rows: list[tuple[str, str, str]], header: tuple[str, ...]) -> Path:
    with path.open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(header)
        writer.writerows(rows)
    return path


@pytest.fixture
def preds(tmp_path: Path) -> dict[str, Path]:
    """new.csv; base.csv (same rows); shuffled.csv (base's rows in another order).

    The baseline equals the new model except on 8 documents the new model gets right
    and the baseline wrong: paired, the new model is credibly no worse (PASS); as
    independent samples the evidence is far weaker.
    """
    rng = np.random.default_rng(20240613)
    y = rng.integers(0, 3, N_DOCS)
    new = np.where(rng.random(N_DOCS) < 0.85, y, rng.integers(0, 3, N_DOCS))
    right = np.flatnonzero(new == y)[:8]
    base = new.copy()
    base[right] = (y[right] + 1) % 3
    ids = [f"doc-{i:03d}" for i in range(N_DOCS)]
    rows_new = [(ids[i], str(y[i]), str(new[i])) for i in range(N_DOCS)]
    rows_base = [(ids[i], str(y[i]), str(base[i])) for i in range(N_DOCS)]
    header = ("id", "y_true", "y_pred")
    order = rng.permutation(N_DOCS)
    return {
        "new": _write(tmp_path / "new.csv", rows_new, header),
        "base": _write(tmp_path / "base.csv", rows_base, header),
        "shuffled": _write(tmp_path / "shuffled.csv", [rows_base[i] for i in order], header),
        "dir": tmp_path,
    }


def _gate_json(capsys: pytest.CaptureFixture[str], new: Path, base: Path, *extra: str):
    code = main(
        ["gate", str(new), "--baseline", str(base), "--metric", "macro_f1", "--seed", "7"]
        + ["--format", "json", *extra]
    )
    out, err = capsys.readouterr()
    return code, (json.loads(out)["checks"][0] if out.strip() else None), err


class TestGateIdCol:
    def test_shuffled_with_id_col_equals_aligned(
        self, preds: dict[str, Path], capsys: pytest.CaptureFixture[str]
    ) -> None:
        code_a, aligned, err_a = _gate_json(capsys, preds["new"], preds["base"])
        code_s, joined, err_s = _gate_json(
            capsys, preds["new"], preds["shuffled"], "--id-col", "id"
        )
        assert (code_a, code_s) == (0, 0)
        assert err_a == err_s == ""
        assert aligned["verdict"] == joined["verdict"] == "pass"
        assert aligned["model"] == joined["model"] == "paired model (same documents)"
        assert joined["prob"] == aligned["prob"]
        assert joined["hdi_low"] == aligned["hdi_low"]
        assert joined["hdi_high"] == aligned["hdi_high"]

    def test_shuffled_without_id_col_warns_and_is_not_paired(
        self, preds: dict[str, Path], capsys: pytest.CaptureFixture[str]
    ) -> None:
        _, aligned, _ = _gate_json(capsys, preds["new"], preds["base"])
        code, unpaired, err = _gate_json(capsys, preds["new"], preds["shuffled"])
        # negative control: the unpaired fallback is a different, weaker result
        assert unpaired["model"] != aligned["model"]
        assert unpaired["prob"] < aligned["prob"]
        assert unpaired["verdict"] != "pass" and code == 3
        lines = err.splitlines()
        assert len(lines) == 1
        assert lines[0].startswith(
            f"f1posterior gate: warning: {preds['new']} and {preds['shuffled']} are not paired"
        )
        assert "give --id-col NAME" in lines[0]

    def test_missing_id_is_exit_2_one_line(
        self, preds: dict[str, Path], capsys: pytest.CaptureFixture[str]
    ) -> None:
        text = preds["shuffled"].read_text().splitlines()
        kept = [line for line in text if not line.startswith("doc-007,")]
        short = preds["dir"] / "short.csv"
        short.write_text("\n".join(kept) + "\n")
        code, out, err = _gate_json(capsys, preds["new"], short, "--id-col", "id")
        assert code == 2 and out is None
        assert err.count("\n") == 1 and "Traceback" not in err
        assert err.startswith("f1posterior gate: error: ")
        assert f"1 id of {preds['new']} (column 'id') is missing from {short}" in err
        assert "'doc-007'" in err

    def test_duplicate_id_is_exit_2_one_line(
        self, preds: dict[str, Path], capsys: pytest.CaptureFixture[str]
    ) -> None:
        text = preds["shuffled"].read_text().splitlines()
        text = [text[0], *[line.replace("doc-011,", "doc-012,") for line in text[1:]]]
        dup = preds["dir"] / "dup.csv"
        dup.write_text("\n".join(text) + "\n")
        code, out, err = _gate_json(capsys, preds["new"], dup, "--id-col", "id")
        assert code == 2 and out is None
        assert err.count("\n") == 1
        assert f"{dup} (column 'id') must not repeat a document id" in err
        assert "1 repeated id: 'doc-012'" in err

    def test_different_true_label_for_an_id(
        self, preds: dict[str, Path], capsys: pytest.CaptureFixture[str]
    ) -> None:
        text = preds["base"].read_text().splitlines()
        _, y, p = text[6].split(",")
        text[6] = f"doc-005,{(int(y) + 1) % 3},{p}"
        bad = preds["dir"] / "bad.csv"
        bad.write_text("\n".join(text) + "\n")
        code, out, err = _gate_json(capsys, preds["new"], bad, "--id-col", "id")
        assert code == 2 and out is None and err.count("\n") == 1
        assert f"{bad}: 1 document(s) have a different true label than in {preds['new']}" in err
        assert f"id 'doc-005': '{y}' vs '{(int(y) + 1) % 3}'" in err

    @pytest.mark.parametrize(
        ("args", "message"),
        [
            (["--id-col", "id"], "--id-col id pairs two predictions CSVs, FILE and --baseline"),
            (["--baseline", "{base}", "--id-col", "doc"], "--id-col: no column 'doc' in {new}"),
            (["--baseline", "{matrix}", "--id-col", "id"], "{matrix} is not one"),
            (["--baseline", "{base}", "--input-format", "csv"], "no input is -"),
        ],
    )
    def test_usage_errors(
        self,
        preds: dict[str, Path],
        capsys: pytest.CaptureFixture[str],
        args: list[str],
        message: str,
    ) -> None:
        matrix = preds["dir"] / "m.json"
        matrix.write_text("[[50, 10], [5, 40]]")
        names = {"base": str(preds["base"]), "new": str(preds["new"]), "matrix": str(matrix)}
        argv = ["gate", str(preds["new"]), "--metric", "accuracy", "--min", "0.5"]
        code = main(argv + [a.format(**names) for a in args])
        out, err = capsys.readouterr()
        assert code == 2 and out == ""
        assert err.count("\n") == 1
        assert message.format(**names) in err

    def test_aligned_files_pair_without_warning(
        self, preds: dict[str, Path], capsys: pytest.CaptureFixture[str]
    ) -> None:
        code, check, err = _gate_json(capsys, preds["new"], preds["base"])
        assert code == 0 and err == ""
        assert check["model"] == "paired model (same documents)"


class TestComparePairing:
    def _compare(self, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict, str]:
        code = main(["compare", *argv, "--seed", "3", "--format", "json"])
        out, err = capsys.readouterr()
        return code, json.loads(out) if out.strip() else {}, err

    def test_files_pair_as_gate_does(
        self, preds: dict[str, Path], capsys: pytest.CaptureFixture[str]
    ) -> None:
        new, base, shuffled = str(preds["new"]), str(preds["base"]), str(preds["shuffled"])
        _, aligned, err_a = self._compare(capsys, new, base)
        _, joined, err_j = self._compare(capsys, new, shuffled, "--id-col", "id")
        _, unpaired, err_u = self._compare(capsys, new, shuffled)
        assert err_a == err_j == ""
        assert aligned["source"] == f"{new}, {base} (paired: same documents, same row order)"
        assert joined["source"] == f"{new}, {shuffled} (paired: same documents, joined on id)"
        assert joined["p_a_better"] == aligned["p_a_better"]
        assert unpaired["source"].endswith("(independent test sets)")
        assert unpaired["p_a_better"] < aligned["p_a_better"]
        assert err_u.startswith(f"f1posterior compare: warning: {new} and {shuffled} are not")
        assert err_u.count("\n") == 1

    def test_three_files_ranked_with_id_col(
        self, preds: dict[str, Path], capsys: pytest.CaptureFixture[str]
    ) -> None:
        args = [str(preds["new"]), str(preds["shuffled"]), str(preds["base"])]
        code, out, err = self._compare(capsys, *args, "--id-col", "id")
        assert code == 0 and err == ""
        assert out["source"].endswith("(paired: same documents, joined on id)")

    def test_missing_id_exit_2(
        self, preds: dict[str, Path], capsys: pytest.CaptureFixture[str]
    ) -> None:
        lines = preds["shuffled"].read_text().splitlines()
        short = preds["dir"] / "short.csv"
        short.write_text("\n".join(lines[:-3]) + "\n")
        code, out, err = self._compare(capsys, str(preds["new"]), str(short), "--id-col", "id")
        assert code == 2 and out == {}
        assert err.startswith("f1posterior compare: error: ") and err.count("\n") == 1
        assert f"3 ids of {preds['new']} (column 'id') are missing from {short}" in err

    def test_predictions_csv_id_col_is_not_a_model(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        f = tmp_path / "p.csv"
        f.write_text("doc,y_true,a,b\nx1,1,1,0\nx2,0,0,0\nx3,1,1,1\nx4,0,1,0\n")
        code, out, err = self._compare(capsys, "--predictions", str(f), "--id-col", "doc")
        assert code == 0 and err == ""
        assert out["models"] == {"A": "a", "B": "b"}


class TestPairInPython:
    def test_join_reorders_predictions(self) -> None:
        a = PredictionTable("a.csv", ["x", "y", "x"], {"p": ["x", "x", "y"]}, ["1", "2", "3"])
        b = PredictionTable("b.csv", ["x", "x", "y"], {"p": ["y", "x", "y"]}, ["3", "1", "2"])
        out = pair_prediction_tables([a, b], "id")
        assert out is not None
        assert out[1].preds["p"] == ["x", "y", "y"]
        assert out[1].y_true == a.y_true

    def test_unaligned_returns_none_and_warns(self, capsys: pytest.CaptureFixture[str]) -> None:
        a = PredictionTable("a.csv", ["x", "y"], {"p": ["x", "x"]})
        b = PredictionTable("b.csv", ["y", "x"], {"p": ["y", "x"]})
        assert pair_prediction_tables([a, b], command="f1posterior compare") is None
        err = capsys.readouterr().err
        assert err.startswith("f1posterior compare: warning: a.csv and b.csv are not paired")

    def test_true_label_mismatch_raises(self) -> None:
        a = PredictionTable("a.csv", ["x", "y"], {"p": ["x", "x"]}, ["1", "2"])
        b = PredictionTable("b.csv", ["x", "x"], {"p": ["y", "x"]}, ["2", "1"])
        with pytest.raises(ValueError, match=r"^b\.csv: 1 document\(s\) .*id '2': 'y' vs 'x'"):
            pair_prediction_tables([a, b], "id")

    def test_read_table_with_ids(self, tmp_path: Path) -> None:
        f = tmp_path / "t.tsv"
        f.write_text("id\ty_true\ty_pred\nd1\ta\tb\nd2\tb\tb\n")
        t = read_prediction_table(f, models=["y_pred"], min_models=1, id_col="id")
        assert (t.ids, t.y_true, t.preds) == (["d1", "d2"], ["a", "b"], {"y_pred": ["b", "b"]})

    def test_empty_id_is_an_error(self, tmp_path: Path) -> None:
        f = tmp_path / "t.csv"
        f.write_text("id,y_true,y_pred\nd1,a,b\n,b,b\n")
        with pytest.raises(ValueError, match=r"t\.csv, line 3: empty document id in column 'id'$"):
            read_prediction_table(f, models=["y_pred"], min_models=1, id_col="id")
