"""Per-class checks: min_support (skipped checks), joint floors, predictions in gate()."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from f1posterior import Floor, JointFloor, NonInferiority, gate_multilabel
from f1posterior.cli import main
from f1posterior.gating._gate import assert_gate, gate
from f1posterior.metrics._confusion import confusion_matrix

CM = [[50, 5, 0], [3, 40, 2], [2, 2, 0]]  # class c: 4 true documents, none found
LABELS = ["a", "b", "c"]
EXACT = dict(alpha=1.0, beta="aligned")


@pytest.fixture()
def cm_file(tmp_path: Path) -> str:
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"matrix": CM, "labels": LABELS}))
    return str(path)


def one_line_error(capsys: pytest.CaptureFixture[str], code: int) -> str:
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("f1posterior gate: error: "), err
    return lines[0]


# --- min_support ---------------------------------------------------------------------------


def test_min_support_skips_small_classes_and_the_verdict_ignores_them() -> None:
    plain = gate(CM, [Floor("recall", 0.6)], labels=LABELS, **EXACT)
    assert [c.verdict for c in plain.checks] == ["pass", "pass", "fail"]
    assert plain.verdict == "fail"
    res = gate(CM, [Floor("recall", 0.6, min_support=5)], labels=LABELS, **EXACT)
    assert [c.verdict for c in res.checks] == ["pass", "pass", "skipped"]
    assert [c.support for c in res.checks] == [55, 45, 4]
    assert res.verdict == "pass" and res.passed
    skipped = res.checks[2]
    assert skipped.reason == "4 true documents < min_support 5" and not skipped.passed
    assert skipped.prob == plain.checks[2].prob  # computed, just not judged
    text = str(res)
    assert "SKIPPED  recall [class c] >= 0.6: skipped (4 true documents < min_support 5)" in text
    assert text.splitlines()[-1] == (
        "GATE PASSED: 2 of 2 checks passed; 1 skipped (fewer documents than min_support; "
        "not counted)"
    )
    d = res.to_dict()
    assert [c["verdict"] for c in d["checks"]] == ["pass", "pass", "skipped"]
    assert d["verdict"] == "pass" and d["checks"][2]["support"] == 4
    md = res.to_markdown()
    assert "| ⏭ SKIPPED | recall [class c] >= 0.6 |" in md
    assert md.startswith("### f1posterior gate passed")
    suite = ET.fromstring(res.to_junit_xml())
    assert suite.get("skipped") == "1" and suite.get("failures") == "0"
    (case,) = [c for c in suite.iter("testcase") if c.find("skipped") is not None]
    assert case.get("name") == "recall [class c] >= 0.6"
    assert case.find("skipped").get("message") == "skipped: 4 true documents < min_support 5"


def test_min_support_equal_to_the_support_judges_the_class() -> None:
    res = gate(CM, [Floor("recall", 0.6, min_support=4)], labels=LABELS, **EXACT)
    assert [c.verdict for c in res.checks] == ["pass", "pass", "fail"]


def test_every_check_skipped_is_inconclusive() -> None:
    res = gate(CM, [Floor("recall", 0.6, min_support=100)], labels=LABELS, **EXACT)
    assert {c.verdict for c in res.checks} == {"skipped"}
    assert res.verdict == "inconclusive"
    assert (
        str(res).splitlines()[-1].startswith("GATE INCONCLUSIVE: 0 of 0 checks passed; 3 skipped")
    )


def test_multilabel_label_without_positives_never_passes_unless_skipped() -> None:
    tables = [[[50, 3], [7, 40]], [[98, 2], [0, 0]]]  # label y: no positive documents
    kw = dict(labels=["x", "y"], **EXACT)
    default = gate_multilabel(tables, [Floor("recall", 0.5)], **kw)
    assert [c.verdict for c in default.checks] == ["pass", "inconclusive"]
    assert default.verdict == "inconclusive"
    res = gate_multilabel(tables, [Floor("recall", 0.5, min_support=1)], **kw)
    assert [c.verdict for c in res.checks] == ["pass", "skipped"]
    assert res.checks[1].reason == "0 positive documents < min_support 1"
    assert res.verdict == "pass"


def test_min_support_on_a_batch_counts_each_matrix() -> None:
    batch = [CM, [[50, 5, 0], [3, 40, 2], [1, 1, 20]]]
    res = gate(
        batch, [Floor("recall", 0.6, min_support=5)], labels=LABELS, names=["m1", "m2"], **EXACT
    )
    verdicts = {c.item: c.verdict for c in res.checks}
    assert verdicts["m1 class c"] == "skipped" and verdicts["m2 class c"] == "pass"


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        (0, ValueError, r"min_support must be None or an integer >= 1 \(documents\); got 0"),
        (2.5, TypeError, r"min_support must be None or an integer >= 1 \(documents\); got 2.5"),
        (True, TypeError, r"min_support must be None .*; got True"),
    ],
)
def test_bad_min_support(value: object, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        Floor("recall", 0.6, min_support=value)  # type: ignore[arg-type]
    with pytest.raises(error, match=message):
        JointFloor("recall", 0.6, min_support=value)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "check", [Floor("micro_f1", 0.6, min_support=5), JointFloor("micro_f1", 0.6)]
)
def test_per_class_options_need_a_per_class_floor(check: object) -> None:
    what = "min_support" if isinstance(check, Floor) else "JointFloor"
    with pytest.raises(
        ValueError,
        match=rf"{what} applies to per-class metrics \(.*, f1, jaccard, .*, recall, specificity\); got 'micro_f1'",
    ):
        gate(CM, [check])


# --- joint -----------------------------------------------------------------------------------


def _recall_tails(cm: list[list[int]], t: float) -> np.ndarray:
    """Exact P(recall_j >= t) under alpha = 1, beta = "aligned": Beta(1 + n_jj, M - 1 + n_j - n_jj)."""
    c = np.asarray(cm, dtype=float)
    m = c.shape[0]
    diag = np.diag(c)
    return stats.beta.sf(t, 1 + diag, (m - 1) + c.sum(axis=1) - diag)


def test_joint_recall_floor_is_the_product_of_independent_beta_tails() -> None:
    cm = [[50, 5, 0], [3, 40, 2], [1, 2, 30]]
    t = 0.82
    tails = _recall_tails(cm, t)
    truth = float(np.prod(tails))
    assert 0.2 < truth < 0.8  # a test that can fail: neither 0 nor 1
    res = gate(cm, [JointFloor("recall", t)], draws=200_000, labels=LABELS, **EXACT)
    (c,) = res.checks
    assert c.item == "every class" and not c.exact and c.kind == "min"
    assert abs(c.prob - truth) < 4 * c.mc_error, (c.prob, truth, c.mc_error)
    # the per-class floors of the same gate are exact: the product of their P is the same truth
    per = gate(cm, [Floor("recall", t)], labels=LABELS, **EXACT)
    assert np.allclose([x.prob for x in per.checks], tails)
    # observed score and HDI are those of the smallest per-class recall
    assert c.score == pytest.approx(min(50 / 55, 40 / 45, 30 / 33))
    assert c.hdi[0] < c.score < c.hdi[1]


def test_joint_multilabel_floor_is_the_product_of_the_labels_exact_tails() -> None:
    tables = [[[50, 3], [7, 40]], [[80, 2], [4, 14]], [[60, 5], [5, 30]]]
    kw = dict(labels=["x", "y", "z"], **EXACT)
    per = gate_multilabel(tables, [Floor("f1", 0.8)], **kw)
    assert all(c.exact for c in per.checks)
    truth = float(np.prod([c.prob for c in per.checks]))  # labels' posteriors are independent
    assert 0.2 < truth < 0.9
    (c,) = gate_multilabel(tables, [JointFloor("f1", 0.8)], draws=200_000, **kw).checks
    assert c.item == "every label"
    assert abs(c.prob - truth) < 4 * c.mc_error, (c.prob, truth, c.mc_error)


def test_joint_with_min_support_leaves_small_classes_out() -> None:
    res = gate(CM, [JointFloor("recall", 0.6, min_support=5)], labels=LABELS, **EXACT)
    (c,) = res.checks
    assert c.item == "every class with >= 5 true documents (2 of 3)"
    truth = float(np.prod(_recall_tails(CM, 0.6)[:2]))
    assert abs(c.prob - truth) <= 4 * max(c.mc_error, 1e-4) and c.verdict == "pass"
    alone = gate(CM, [JointFloor("recall", 0.6, min_support=100)], **EXACT)
    assert alone.checks[0].verdict == "skipped" and alone.verdict == "inconclusive"
    assert alone.checks[0].reason == "every class has fewer than 100 true documents"


def test_joint_draws_adaptively_near_the_boundary() -> None:
    cm = [[50, 5, 0], [3, 40, 2], [1, 2, 30]]
    # a floor whose joint probability is 0.96: at 1,000 draws (MC error ~0.006) it is within
    # 3 standard errors of 0.95, so the gate must draw more
    lo, hi = 0.5, 0.9
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if np.prod(_recall_tails(cm, mid)) > 0.96 else (lo, mid)
    t = round(lo, 4)
    truth = float(np.prod(_recall_tails(cm, t)))
    (c,) = gate(cm, [JointFloor("recall", t)], draws=1_000, **EXACT).checks
    assert c.draws > 1_000
    assert abs(c.prob - truth) < 4 * c.mc_error
    assert c.verdict in ("pass", "inconclusive")
    again = gate(cm, [JointFloor("recall", t)], draws=1_000, **EXACT).checks[0]
    assert again == c  # reproducible from the seed


def test_joint_is_reproducible_and_seeded() -> None:
    kw = dict(checks=[JointFloor("f1", 0.7)], draws=5_000)
    a, b = gate(CM, **kw), gate(CM, **kw)
    assert a.checks == b.checks
    seq = np.random.SeedSequence(7)
    c1 = gate(CM, rng=seq, **kw)
    c2 = gate(CM, rng=seq, **kw)
    assert c1.checks == c2.checks and seq.n_children_spawned == 0


# --- command line ----------------------------------------------------------------------------


def test_cli_min_support_text_json_markdown_junit(
    cm_file: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    junit = tmp_path / "j.xml"
    args = ["gate", cm_file, "--metric", "recall", "--min", "0.6", "--prior", "aligned"]
    code = main([*args, "--min-support", "5", "--junit-xml", str(junit)])
    out = capsys.readouterr().out
    assert code == 0
    assert "SKIPPED  recall [class c] >= 0.6: skipped (4 true documents < min_support 5)" in out
    assert out.splitlines()[-1].startswith("GATE PASSED: 2 of 2 checks passed; 1 skipped")
    assert ET.parse(junit).getroot().get("skipped") == "1"
    assert main([*args, "--min-support", "5", "--format", "json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert [c["verdict"] for c in d["checks"]] == ["pass", "pass", "skipped"]
    assert main([*args, "--min-support", "5", "--format", "markdown"]) == 0
    assert "⏭ SKIPPED" in capsys.readouterr().out
    assert main(args) == 1  # default: class c is judged, and fails
    capsys.readouterr()


def test_cli_joint(cm_file: str, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["gate", cm_file, "--metric", "recall", "--min", "0.6", "--prior", "aligned"]
    code = main([*args, "--joint", "--min-support", "5", "--format", "json"])
    d = json.loads(capsys.readouterr().out)
    assert code == 0 and len(d["checks"]) == 1
    (c,) = d["checks"]
    assert c["item"] == "every class with >= 5 true documents (2 of 3)" and c["verdict"] == "pass"
    assert main([*args, "--joint"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[-4].startswith("FAIL  recall [every class] >= 0.6: ")
    # alpha = 1 on a small table: the prior dominates the joint check, and the gate says so
    assert "; prior-dominated; failed: class c (P(< 0.6) = " in lines[-4]  # the class below
    assert lines[-3].startswith("warning: the prior dominates recall [every class] >= 0.6: ")
    assert lines[-2].startswith("Receipt: f1posterior ")  # then the verdict again


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--min-support", "0"], r"--min-support: expected an integer >= 1; got '0'"),
        (["--min-support", "x"], r"--min-support: expected an integer >= 1; got 'x'"),
    ],
)
def test_cli_bad_min_support(
    cm_file: str, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["gate", cm_file, "--metric", "recall", "--min", "0.6", *extra])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and __import__("re").search(message, err), err


@pytest.mark.parametrize("flag", [["--min-support", "5"], ["--joint"]])
def test_cli_per_class_option_without_per_class_floor(
    cm_file: str, capsys: pytest.CaptureFixture[str], flag: list[str]
) -> None:
    code = main(["gate", cm_file, "--metric", "micro_f1", "--min", "0.6", *flag])
    line = one_line_error(capsys, code)
    assert f"{flag[0]} applies to per-class floors" in line


def test_inconclusive_line_points_to_plan(cm_file: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["gate", cm_file, "--metric", "micro_f1", "--min", "0.87", "--prior", "aligned"])
    out = capsys.readouterr().out
    assert code == 3
    hint = f"run `f1posterior plan {cm_file} --metric micro_f1 --min 0.87` to see how many"
    (line,) = [x for x in out.splitlines() if x.startswith("INCONCLUSIVE")]
    assert hint in line and line.endswith("; exact; prior-dominated")  # alpha = 1, 3 classes
    main(["gate", cm_file, "--metric", "micro_f1", "--min", "0.87", "--prior", "aligned",
          "--format", "markdown"])  # fmt: skip
    md = capsys.readouterr().out
    assert f"- micro_f1 >= 0.87: {hint}" in md


def test_plan_hint_never_spells_out_an_unsafe_file_name() -> None:
    import dataclasses

    res = gate([[40, 10], [5, 45]], [Floor("micro_f1", 0.85)], source="a b;rm.json", **EXACT)
    cmd = dataclasses.replace(res, hints="command")  # as the command line shows it
    assert "`f1posterior plan FILE --metric micro_f1 --min 0.85`" in str(cmd)
    res = gate(
        [[40, 10], [5, 45]],
        [NonInferiority("micro_f1", 0.01)],
        baseline=[[40, 10], [5, 45]],
        draws=2_000,
    )
    cmd = dataclasses.replace(res, hints="command")
    assert "--metric micro_f1 --baseline BASEFILE --max-drop 0.01`" in str(cmd)


# --- predictions directly in Python ----------------------------------------------------------


def _predictions(n: int = 400, seed: int = 3) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    new = np.where(rng.random(n) < 0.85, y, rng.integers(0, 3, n))
    old = np.where(rng.random(n) < 0.80, y, rng.integers(0, 3, n))
    return y, new, old


def test_predictions_give_the_same_gate_as_their_counts() -> None:
    y, new, _ = _predictions()
    labels = ["neg", "neu", "pos"]
    yt, yp = [labels[i] for i in y], [labels[i] for i in new]
    counts = confusion_matrix(yt, yp).counts
    kw = dict(checks=[Floor("micro_f1", 0.8), Floor("recall", 0.7)], draws=5_000)
    a = gate(y_true=yt, y_pred=yp, **kw)
    b = gate(counts, labels=labels, **kw)
    assert a.checks == b.checks
    assert [c.item for c in a.checks[1:]] == ["class neg", "class neu", "class pos"]


def test_baseline_predictions_are_paired() -> None:
    y, new, old = _predictions()
    res = gate(
        checks=[NonInferiority("micro_f1", 0.02)],
        y_true=y,
        y_pred=new,
        baseline_pred=old,
        draws=20_000,
    )
    (c,) = res.checks
    assert c.model == "paired model (same documents)"
    indep = gate(
        confusion_matrix(y, new).counts,
        [NonInferiority("micro_f1", 0.02)],
        baseline=confusion_matrix(y, old).counts,
        draws=20_000,
    ).checks[0]
    assert indep.model == "independent posteriors"
    assert c.hdi[1] - c.hdi[0] < indep.hdi[1] - indep.hdi[0]  # pairing is more decisive


def test_baseline_ids_align_rows_in_any_order() -> None:
    y, new, old = _predictions()
    ids = [f"doc{i}" for i in range(len(y))]
    perm = np.random.default_rng(1).permutation(len(y))
    kw = dict(checks=[NonInferiority("micro_f1", 0.02)], draws=5_000)
    ordered = gate(y_true=y, y_pred=new, baseline_pred=old, **kw)
    shuffled = gate(
        y_true=y,
        y_pred=new,
        baseline_pred=old[perm],
        ids=ids,
        baseline_ids=[ids[i] for i in perm],
        **kw,
    )
    assert shuffled.checks == ordered.checks
    # without ids the shuffled baseline would be paired position by position: a different model
    wrong = gate(y_true=y, y_pred=new, baseline_pred=old[perm], **kw)
    assert wrong.checks[0].score != ordered.checks[0].score


def test_assert_gate_takes_predictions() -> None:
    y, new, _ = _predictions()
    assert_gate(checks=[Floor("micro_f1", 0.7)], y_true=y, y_pred=new, draws=5_000)
    with pytest.raises(AssertionError, match=r"FAIL  micro_f1 >= 0.95"):
        assert_gate(checks=[Floor("micro_f1", 0.95)], y_true=y, y_pred=new, draws=5_000)


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        (dict(), r"gate\(\) needs the model's counts \(a confusion matrix\) or its predictions"),
        (dict(counts=CM, y_true=[0], y_pred=[0]), r"give either counts or predictions .*not both"),
        (dict(y_true=[0, 1]), r"y_true= needs y_pred="),
        (dict(y_pred=[0, 1]), r"y_pred= needs y_true="),
        (dict(counts=CM, baseline_pred=[0]), r"baseline_pred= goes with predictions"),
        (dict(y_true=[0, 1], y_pred=[0, 1], baseline=[[1, 0], [0, 1]]), None),
        (dict(y_true=[0, 1], y_pred=[0, 1], baseline_pred=[0, 1], baseline=[[1, 0], [0, 1]]),
         r"give either baseline= \(counts\) or baseline_pred= \(predictions\)"),
        (dict(y_true=[0, 1], y_pred=[0, 1], baseline_pred=[0, 1], ids=["a", "b"]),
         r"ids= pairs baseline_pred= with y_pred= by document id and needs baseline_ids="),
        (dict(y_true=[0, 1], y_pred=[0, 1], baseline_pred=[0, 1], baseline_ids=["a", "b"]),
         r"baseline_ids= pairs .* needs ids="),
        (dict(y_true=[0, 1], y_pred=[0, 1], ids=["a", "b"], baseline_ids=["a", "b"]),
         r"ids= and baseline_ids= align baseline_pred=, which was not given"),
        (dict(y_true=[0, 1], y_pred=[0, 1], paired=([0], [0], [0])),
         r"unexpected keyword argument 'paired'"),
    ],
)  # fmt: skip
def test_predictions_argument_errors(kw: dict, message: str | None) -> None:
    if message is None:  # counts baseline with predictions: allowed (independent sample)
        res = gate(checks=[NonInferiority("micro_f1", 0.5)], draws=1_000, **kw)
        assert res.checks[0].model == "independent posteriors"
        return
    with pytest.raises(TypeError, match=message):
        gate(checks=[Floor("micro_f1", 0.5)], **kw)


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        (dict(baseline_pred=[0, 1, 1]),
         r"baseline_pred must predict the 2 documents of y_true, in the same order .*got 3"),
        (dict(baseline_pred=[0, 1], ids=["a", "b"], baseline_ids=["a", "c"]),
         r"ids and baseline_ids must hold the same document ids, one to one"),
        (dict(baseline_pred=[0, 1], ids=["a", "a"], baseline_ids=["a", "b"]),
         r"ids must not repeat a document id"),
        (dict(baseline_pred=[0, 1], ids=["a"], baseline_ids=["a", "b"]),
         r"ids must give one id per document of y_true \(2\); got 1"),
    ],
)  # fmt: skip
def test_predictions_value_errors(kw: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        gate(checks=[Floor("micro_f1", 0.5)], y_true=[0, 1], y_pred=[0, 1], **kw)


def test_docs_predictions_example_runs() -> None:
    """The ```py block of docs/ci-gate.md (predictions given to gate/assert_gate) runs."""
    import re

    doc = Path(__file__).resolve().parent.parent / "docs" / "ci-gate.md"
    (block,) = re.findall(r"```py\n(.*?)```", doc.read_text(), re.S)
    assert "baseline_ids=" in block
    exec(compile(block, "docs/ci-gate.md", "exec"), {})
