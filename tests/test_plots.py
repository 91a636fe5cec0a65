"""Plots, reports and the --plot/--report options: files, formats and figure content.

Figures are rendered with the Agg backend (set here, in the tests only) and
checked for what they show: axis labels, the number of bars, and HDI, mean,
score and reference coordinates equal to the summary they draw.
"""

from __future__ import annotations

import base64
import re
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")  # tests only: the library never selects a backend

import matplotlib.image  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from scipy import stats  # noqa: E402

from f1posterior import evaluate  # noqa: E402
from f1posterior.analysis._comparison import compare  # noqa: E402
from f1posterior.cli import main  # noqa: E402
from f1posterior.io._data import figure3  # noqa: E402
from f1posterior.report._html import render_report, write_report  # noqa: E402
from f1posterior.report.plots import (  # noqa: E402
    plot_comparison,
    plot_forest,
    plot_posterior,
    plot_summary,
)
from f1posterior.report.plots._common import density  # noqa: E402

LABELS = list("ABCDE")


@pytest.fixture(scope="module")
def res():
    return evaluate(
        figure3(),
        metrics=["micro_f1", "macro_f1", "f1"],
        draws=20_000,
        ref=0.8,
        rng=1,
        keep_draws=True,
        labels=LABELS,
    )


@pytest.fixture(scope="module")
def batch_res():
    rng = np.random.default_rng(3)
    c = rng.integers(0, 40, size=(300, 3, 3)) + np.eye(3, dtype=int) * rng.integers(
        60, 300, size=(300, 1, 1)
    )
    return evaluate(c, metrics=["macro_f1"], draws=400, ref=0.8, rng=0)


@pytest.fixture(autouse=True)
def _close_pyplot():
    yield
    plt.close("all")


def _line(ax, label):
    found = [ln for ln in ax.get_lines() if ln.get_label() == label]
    assert len(found) == 1, [ln.get_label() for ln in ax.get_lines()]
    return found[0]


def _texts(ax):
    return [t.get_text() for t in ax.texts]


# ------------------------------------------------------------------ files and formats


@pytest.mark.parametrize(
    "suffix,magic", [(".png", b"\x89PNG"), (".svg", b"<?xml"), (".pdf", b"%PDF")]
)
def test_posterior_renders_to_each_format(res, tmp_path, suffix, magic):
    path = tmp_path / f"fig{suffix}"
    plot_posterior(res, "micro_f1").savefig(path, dpi=80)
    data = path.read_bytes()
    assert data.startswith(magic)
    assert len(data) > 5_000
    if suffix == ".svg":
        assert b"<svg" in data and b"micro-F1" in data


def test_png_has_the_figure_size(res, tmp_path):
    path = tmp_path / "fig.png"
    fig = plot_posterior(res, "macro_f1")
    fig.savefig(path, dpi=50)
    w, h = fig.get_size_inches()
    img = matplotlib.image.imread(path)
    assert img.shape[:2] == (round(h * 50), round(w * 50))
    assert img[..., :3].std() > 0.05  # not a blank canvas


# ------------------------------------------------------------------ posterior (Figure 4a)


@pytest.mark.parametrize("kind", ["kde", "hist"])
def test_posterior_shows_summary_coordinates(res, kind):
    s = res["micro_f1"]
    fig = plot_posterior(res, "micro_f1", kind=kind)
    ax = fig.axes[0]
    assert ax.get_xlabel() == "micro-F1"
    assert ax.get_title() == "Posterior of micro-F1"
    bar = _line(ax, "95% HDI")
    np.testing.assert_array_equal(bar.get_xdata(), s.hdi)
    assert _line(ax, f"posterior mean = {s.mean:.3f}").get_xdata()[0] == s.mean
    assert _line(ax, f"observed = {s.score:.3f}").get_xdata()[0] == s.score
    assert _line(ax, "reference = 0.8").get_xdata()[0] == 0.8
    texts = _texts(ax)
    assert f"{100 * s.p_below:.1f}% < 0.8 < {100 * s.p_above:.1f}%" in texts
    assert f"{s.hdi[0]:.3f}" in texts and f"{s.hdi[1]:.3f}" in texts and "95% HDI" in texts
    # the shaded band lies inside the HDI and reaches (within one grid step) both ends
    band = [a for a in ax.get_children() if a.get_gid() == "hdi_band"]
    assert band
    if kind == "kde":
        xs = band[0].get_paths()[0].vertices[:, 0]
        width = s.hdi[1] - s.hdi[0]
        assert s.hdi[0] <= xs.min() < s.hdi[0] + 0.02 * width
        assert s.hdi[1] - 0.02 * width < xs.max() <= s.hdi[1]
    else:
        rects = band
        left = min(r.get_x() for r in rects)
        right = max(r.get_x() + r.get_width() for r in rects)
        step = rects[0].get_width()
        assert abs(left - s.hdi[0]) <= step and abs(right - s.hdi[1]) <= step


def test_posterior_ref_percentages_follow_the_draws(res):
    x = res.metric_draws["macro_f1"]
    ax = plot_posterior(res, "macro_f1", ref=0.81).axes[0]
    below, above = 100 * np.mean(x < 0.81), 100 * np.mean(x > 0.81)
    assert f"{below:.1f}% < 0.81 < {above:.1f}%" in _texts(ax)
    lo, hi = ax.get_xlim()
    assert lo < 0.81 < hi


def test_posterior_of_one_class_and_custom_title(res):
    s = res["f1"]
    ax = plot_posterior(res, "f1", index=2, title="class C").axes[0]
    assert ax.get_title() == "class C" and ax.get_xlabel() == "F1"
    np.testing.assert_array_equal(_line(ax, "95% HDI").get_xdata(), s.hdi[2])
    ax = plot_posterior(res, "f1", index=(4,)).axes[0]
    assert ax.get_title() == "Posterior of F1 (class E)"


def test_posterior_of_plain_draws_and_into_given_axes():
    x = np.random.default_rng(0).beta(80, 20, size=10_000)
    fig, ax = plt.subplots()
    out = plot_posterior(x, "accuracy", score=0.81, ref=0.75, ci_prob=0.9, ax=ax)
    assert out is fig and ax.get_xlabel() == "accuracy"
    from f1posterior import hdi

    np.testing.assert_allclose(_line(ax, "90% HDI").get_xdata(), hdi(x, 0.9))
    assert _line(ax, "observed = 0.810").get_xdata()[0] == 0.81


def test_density_matches_the_normal_pdf():
    x = np.random.default_rng(5).standard_normal(50_000)
    grid, dens = density(x)
    assert np.trapezoid(dens, grid) == pytest.approx(1.0, abs=1e-6)
    inner = np.abs(grid) < 3
    assert np.max(np.abs(dens[inner] - stats.norm.pdf(grid[inner]))) < 0.015
    # negative control: a shifted normal is far off
    assert np.max(np.abs(dens[inner] - stats.norm.pdf(grid[inner], loc=0.3))) > 0.05


# ------------------------------------------------------------------ forest


def test_forest_rows_are_sorted_with_hdi_bars_and_scores(res):
    s = res["f1"]
    ax = plot_forest(res, "f1").axes[0]
    bars = [c for c in ax.collections if c.get_gid() == "hdi_bars"][0]
    segs = bars.get_segments()
    assert len(segs) == 5
    order = np.argsort(-s.mean)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == [f"class {LABELS[i]}" for i in order]
    for seg, i in zip(segs, order, strict=True):
        np.testing.assert_array_equal(seg[:, 0], s.hdi[i])
        assert seg[0, 1] == seg[1, 1]
    ys = [seg[0, 1] for seg in segs]
    assert ys == sorted(ys, reverse=True)  # first row on top
    scores = [ln for ln in ax.get_lines() if ln.get_gid() == "scores"][0]
    np.testing.assert_array_equal(scores.get_xdata(), s.score[order])
    assert ax.get_xlabel() == "F1"


def test_forest_of_all_metrics_and_unsorted(res):
    ax = plot_forest(res, sort=None).axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["micro-F1", "macro-F1"] + [f"F1 class {c}" for c in LABELS]
    assert ax.get_xlabel() == "score"


def test_forest_hundreds_of_rows_stays_readable(batch_res, tmp_path):
    fig = plot_forest(batch_res, names=[f"model-{i}" for i in range(300)], max_labels=50)
    ax = fig.axes[0]
    bars = [c for c in ax.collections if c.get_gid() == "hdi_bars"][0]
    assert len(bars.get_segments()) == 300
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert 40 <= len(labels) <= 50
    assert fig.get_size_inches()[1] <= 16
    assert "300 rows, sorted by mean (1 in 6 labelled)" == ax.get_ylabel()
    top = np.argmax(batch_res["macro_f1"].mean)
    assert labels[0] == f"model-{top}"
    fig.savefig(tmp_path / "forest.png", dpi=60)
    assert (tmp_path / "forest.png").stat().st_size > 10_000


def test_forest_sort_by_lower_bound(batch_res):
    ax = plot_forest(batch_res, sort="lower").axes[0]
    lows = [seg[0, 0] for seg in ax.collections[0].get_segments()]
    assert lows == sorted(lows, reverse=True)


# ------------------------------------------------------------------ comparison


@pytest.fixture(scope="module")
def comparison():
    a = figure3()
    b = a.copy()
    b[2, 2] += 30
    b[2, 3] -= 30
    return compare(b, a, metric="macro_f1", rope=0.01, draws=10_000, rng=0)


def test_comparison_shows_rope_and_probabilities(comparison):
    c = comparison
    ax = plot_comparison(c, names=("new", "old")).axes[0]
    rope = [p for p in ax.patches if p.get_gid() == "rope"]
    assert len(rope) == 1
    lo, hi = rope[0].get_x(), rope[0].get_x() + rope[0].get_width()
    assert lo == pytest.approx(-0.01, abs=1e-4) and hi == pytest.approx(0.01, abs=1e-4)
    text = " ".join(_texts(ax))
    assert f"P(new better) = {c.p_a_better:.3f}" in text
    assert f"P(old better) = {c.p_b_better:.3f}" in text
    assert f"P(|diff| \u2264 0.01) = {c.p_equivalent:.3f}" in text
    assert ax.get_title() == f"new vs old on macro-F1: {c.decision}"
    assert ax.get_xlabel() == "macro-F1 of new minus macro-F1 of old"
    np.testing.assert_array_equal(_line(ax, "95% HDI").get_xdata(), c.difference.hdi)


def test_comparison_of_a_batch_needs_an_index():
    a = np.stack([figure3(), figure3() + np.eye(5, dtype=int) * 20])
    c = compare(a, figure3(), metric="micro_f1", draws=2000, rng=0)
    ax = plot_comparison(c, index=1).axes[0]
    np.testing.assert_array_equal(_line(ax, "95% HDI").get_xdata(), c.difference.hdi[1])
    with pytest.raises(ValueError, match=r"index must pick one matrix .* shape \(2,\); got \(\)"):
        plot_comparison(c)


# ------------------------------------------------------------------ summary figure


def test_summary_has_one_panel_per_metric(res):
    fig = plot_summary(res)
    assert [ax.get_xlabel() for ax in fig.axes] == ["micro-F1", "macro-F1", "F1"]
    assert any(c.get_gid() == "hdi_bars" for c in fig.axes[2].collections)


def test_summary_without_draws_uses_forests(batch_res):
    fig = plot_summary(batch_res)
    assert len(fig.axes) == 1 and len(fig.axes[0].collections[0].get_segments()) == 300


# ------------------------------------------------------------------ bad input


def test_posterior_needs_draws(batch_res):
    with pytest.raises(ValueError, match=r"keep_draws=True"):
        plot_posterior(batch_res, index=0)


def test_posterior_bad_metric(res):
    with pytest.raises(ValueError, match=r"metric must be one of the result's metrics .*'f2'"):
        plot_posterior(res, "f2")


def test_posterior_bad_index(res):
    with pytest.raises(ValueError, match=r"index must pick .* within shape \(5,\); got 7"):
        plot_posterior(res, "f1", index=7)


def test_posterior_bad_kind(res):
    with pytest.raises(ValueError, match=r"kind must be one of 'kde', 'hist'; got 'violin'"):
        plot_posterior(res, kind="violin")


def test_posterior_bad_draws():
    with pytest.raises(ValueError, match=r"1-D array of at least 2 finite draws; got 'abc'"):
        plot_posterior("abc")


def test_bad_axes(res):
    with pytest.raises(TypeError, match=r"ax must be a matplotlib Axes or None; got 3"):
        plot_posterior(res, ax=3)


def test_forest_not_a_result():
    with pytest.raises(TypeError, match=r"result must be an Evaluation .*; got \[1, 2\]"):
        plot_forest([1, 2])


def test_forest_bad_sort(res):
    with pytest.raises(ValueError, match=r"sort must be one of 'mean', 'score', 'lower', None"):
        plot_forest(res, sort="median")


def test_forest_bad_max_labels(res):
    with pytest.raises(ValueError, match=r"max_labels must be an integer >= 1; got 0"):
        plot_forest(res, max_labels=0)
    with pytest.raises(TypeError, match=r"max_labels must be an integer >= 1; got 2.5"):
        plot_forest(res, max_labels=2.5)


def test_forest_bad_names(batch_res):
    with pytest.raises(ValueError, match=r"names must name each matrix .*\(300,\); got 2 names"):
        plot_forest(batch_res, names=["a", "b"])


def test_comparison_bad_object():
    with pytest.raises(TypeError, match=r"comparison must be a comparison result with a 'draws'"):
        plot_comparison(object())


def test_missing_matplotlib_names_the_extra(res, monkeypatch):
    for mod in ("matplotlib", "matplotlib.figure", "matplotlib.axes", "matplotlib.collections"):
        monkeypatch.setitem(sys.modules, mod, None)
    with pytest.raises(ImportError, match=r"pip install f1posterior\[plot\]"):
        plot_forest(res)


def test_import_does_not_load_optional_extras():
    code = (
        "import sys, f1posterior, f1posterior.report.plots, f1posterior.posterior._frames, "
        "f1posterior.report._html; "
        "print(sorted(m for m in ('matplotlib', 'pandas', 'arviz') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# ------------------------------------------------------------------ reports


def test_html_report_has_table_and_inline_svg(res, tmp_path):
    path = write_report(res, tmp_path / "r.html", source="Figure 3")
    text = path.read_text()
    assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")
    assert text.count("<tr>") == 1 + 7  # header + micro, macro, 5 classes
    s = res["micro_f1"]
    assert f"[{s.hdi[0]:.3f}, {s.hdi[1]:.3f}]" in text
    assert "<figure><svg" in text and "Input: Figure 3" in text
    assert "f1 [class C]" in text


def test_markdown_report_embeds_a_png(res, tmp_path):
    text = write_report(res, tmp_path / "r.md").read_text()
    lines = [ln for ln in text.splitlines() if ln.startswith("| ")]
    assert len(lines) == 1 + 7
    m = re.search(r"!\[Posterior plots\]\(data:image/png;base64,([A-Za-z0-9+/=]+)\)", text)
    assert m is not None
    assert base64.b64decode(m.group(1)).startswith(b"\x89PNG")


def test_report_without_plot_needs_no_draws(batch_res):
    text = render_report(batch_res, fmt="html", plot=False)
    assert "<svg" not in text and text.count("<tr>") == 301


def test_report_bad_suffix(res, tmp_path):
    with pytest.raises(ValueError, match=r"path must end in one of .html, .htm, .md"):
        write_report(res, tmp_path / "r.txt")


def test_report_bad_format(res):
    with pytest.raises(ValueError, match=r"fmt must be one of 'html', 'markdown'; got 'pdf'"):
        render_report(res, fmt="pdf")


# ------------------------------------------------------------------ command line


@pytest.mark.parametrize(
    "suffix,magic", [(".png", b"\x89PNG"), (".svg", b"<?xml"), (".pdf", b"%PDF")]
)
def test_cli_plot(tmp_path, capsys, suffix, magic):
    out = tmp_path / f"p{suffix}"
    assert main(["summarize", "--draws", "2000", "--plot", str(out)]) == 0
    assert out.read_bytes().startswith(magic)
    captured = capsys.readouterr()
    assert "micro_f1" in captured.out and f"plot written to {out}" in captured.err


def test_cli_report_with_json_output(tmp_path, capsys):
    out = tmp_path / "r.html"
    rc = main(["summarize", "--draws", "2000", "--format", "json", "--report", str(out)])
    assert rc == 0
    import json

    json.loads(capsys.readouterr().out)  # stdout stays pure JSON
    assert "<svg" in out.read_text()


@pytest.mark.parametrize(
    "flag,name,allowed",
    [("--plot", "x.gif", ".png, .svg, .pdf"), ("--report", "x.txt", ".html, .htm, .md")],
)
def test_cli_bad_output_suffix(capsys, flag, name, allowed):
    with pytest.raises(SystemExit) as exc:
        main(["summarize", flag, name])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and allowed in err and repr(name) in err


def test_cli_without_matplotlib_is_one_line(tmp_path, capsys, monkeypatch):
    for mod in ("matplotlib", "matplotlib.figure", "matplotlib.axes", "matplotlib.collections"):
        monkeypatch.setitem(sys.modules, mod, None)
    assert main(["summarize", "--draws", "500", "--plot", str(tmp_path / "p.png")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install f1posterior[plot]" in err
