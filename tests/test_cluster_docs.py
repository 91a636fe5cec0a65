"""docs/clusters.md runs: its Python blocks in order in one namespace (numbers quoted in
the page checked against the run), then every ``f1posterior`` line of its sh block on
the example's predictions written as CSV files."""

from __future__ import annotations

import csv
import re
import shlex
from pathlib import Path

import pytest

from f1posterior.cli import main

PAGE = Path(__file__).resolve().parent.parent / "docs" / "clusters.md"
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)


def test_the_worked_example_runs_and_prints_what_the_page_shows(tmp_path, monkeypatch, capsys):
    blocks = BLOCK.findall(PAGE.read_text(encoding="utf-8"))
    assert [k for k, _ in blocks] == ["python", "text", "python", "text", "python", "sh"]
    ns: dict = {}
    for kind, code in blocks:
        if kind == "python":
            capsys.readouterr()
            exec(compile(code, str(PAGE), "exec"), ns)
        elif kind == "text":  # the output the page shows is the output of the block above
            assert capsys.readouterr().out.strip() == code.strip()
    res, naive = ns["res"], ns["naive"]
    page = PAGE.read_text(encoding="utf-8")
    shown = [f"[{lo:.3f}, {hi:.3f}]" for lo, hi in (res["macro_f1"].hdi, naive["macro_f1"].hdi)]
    assert "[0.758, 0.834], against [0.771, 0.821]" in page
    assert shown == ["[0.758, 0.834]", "[0.771, 0.821]"]
    assert round(res.n_documents / res.design_effect["macro_f1"], -1) == 460
    need = ns["need"]
    assert need.additional_clusters == -(-need.additional_documents // 20)
    # the command lines, on the example's predictions
    monkeypatch.chdir(tmp_path)
    y, a, b, user = ns["y"], ns["a"], ns["b"], ns["user"]
    for name, pred in (("predictions.csv", a), ("new.csv", a), ("old.csv", b)):
        with open(name, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["user", "y_true", "y_pred"])
            w.writerows(zip(user.tolist(), y.tolist(), pred.tolist(), strict=True))
    lines = [ln for k, code in blocks if k == "sh" for ln in code.splitlines() if ln.strip()]
    assert len(lines) == 4
    for line in lines:
        argv = shlex.split(line)
        assert argv[0] == "f1posterior"
        assert main(argv[1:]) in (0, 3), line
        assert "clusters of documents" in capsys.readouterr().out, line


pytestmark = pytest.mark.filterwarnings("error::UserWarning")  # 50 clusters: no warning
