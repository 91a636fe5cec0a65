"""Output files are written safely: only regular files or new paths, atomically, with the
umask's mode (or the replaced file's); CSV cells never run as formulas; labels are escaped.

Device-like targets are made in ``tmp_path`` (a FIFO, a directory, a socket, and a
character device made with ``mknod`` with the numbers of ``/dev/full``, where allowed):
no test writes to, or could replace, a real device. The FIFO is never opened by the
code under test (that would block); a failing test replaces only its own node.
"""

from __future__ import annotations

import csv
import io
import json
import os
import socket
import stat
import threading
import time

import numpy as np
import pytest

from f1posterior import evaluate
from f1posterior._core.text import escape_csv
from f1posterior.cli import main
from f1posterior.io._writers import atomic_output, output_target, write_output
from f1posterior.report._html import render_report

MATRIX = [[40, 10], [5, 45]]


def _jsonl(path, names):
    path.write_text("".join(json.dumps({"name": n, "matrix": MATRIX}) + "\n" for n in names))
    return path


def _drain(fd, stop):
    """Read and drop whatever is written to a FIFO (so a wrong write never blocks)."""
    while not stop.is_set():
        try:
            if not os.read(fd, 1 << 16):
                stop.wait(0.01)
        except BlockingIOError:
            stop.wait(0.01)


@pytest.fixture
def special(tmp_path):
    """``special(kind)``: a FIFO, directory, socket or character device in ``tmp_path``.

    The FIFO has a reader (a thread that drops what it reads), so code that wrongly
    writes to it fails the test instead of blocking it.
    """
    opened: list = []
    stop = threading.Event()

    def make(kind, name=None):
        p = tmp_path / (name or f"target.{kind}")
        if kind == "fifo":
            os.mkfifo(p)
            fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK)
            opened.append(fd)
            threading.Thread(target=_drain, args=(fd, stop), daemon=True).start()
        elif kind == "dir":
            p.mkdir()
        elif kind == "socket":
            sock = socket.socket(socket.AF_UNIX)
            sock.bind(str(p))
            opened.append(sock)
        else:  # a character device with /dev/full's numbers, in tmp_path
            try:
                os.mknod(p, 0o666 | stat.S_IFCHR, os.stat("/dev/full").st_rdev)
            except (OSError, AttributeError) as exc:
                pytest.skip(f"cannot make a device node here ({exc}); the other kinds are tested")
        return p

    yield make
    stop.set()
    time.sleep(0.05)  # the drain thread sees it before its descriptor is closed
    for x in opened:
        if isinstance(x, socket.socket):
            x.close()
        else:
            os.close(x)


def _same_kind(p, kind):
    test = {
        "fifo": stat.S_ISFIFO,
        "dir": stat.S_ISDIR,
        "socket": stat.S_ISSOCK,
        "chardev": stat.S_ISCHR,
    }[kind]
    return test(os.lstat(p).st_mode)


def _rows_text(text):
    """CSV/TSV text without its leading metadata comment line (``# f1posterior: ...``)."""
    return "".join(line for line in text.splitlines(True) if not line.startswith("# "))


def _leftovers(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".part"))


KINDS = ["fifo", "dir", "socket", "chardev"]


@pytest.mark.parametrize("kind", KINDS)
def test_summarize_output_refuses_a_special_file(tmp_path, capsys, special, kind):
    target = special(kind)
    f = _jsonl(tmp_path / "b.jsonl", ["a", "b"])
    code = main(["summarize", str(f), "--draws", "200", "--output", str(target)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and err.startswith(
        f"f1posterior summarize: error: --output {target}:"
    )
    assert "only a regular file or a new path is written" in err
    assert _same_kind(target, kind)  # not replaced by a regular file
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("kind", KINDS)
def test_gate_outputs_refuse_a_special_file(tmp_path, capsys, special, kind):
    target = special(kind)
    m = tmp_path / "m.json"
    m.write_text(json.dumps(MATRIX))
    for flag in ("--junit-xml", "--append-markdown"):
        args = ["gate", str(m), "--metric", "micro_f1", "--min", "0.5", "--draws", "2000"]
        code = main([*args, flag, str(target)])
        err = capsys.readouterr().err
        assert code == 2, (flag, err)
        assert err.count("\n") == 1 and f"error: {flag} {target}: " in err
        assert _same_kind(target, kind)
    assert _leftovers(tmp_path) == []


def test_report_and_library_writer_refuse_a_fifo(tmp_path, capsys, special):
    md = special("fifo", "r.md")
    m = tmp_path / "m.json"
    m.write_text(json.dumps(MATRIX))
    code = main(["summarize", str(m), "--draws", "500", "--report", str(md)])
    err = capsys.readouterr().err
    assert code == 2 and f"--report {md}: a FIFO" in err and err.count("\n") == 1
    assert stat.S_ISFIFO(os.lstat(md).st_mode)
    with pytest.raises(ValueError, match=r"^path .*r\.md: a FIFO"):
        write_output(md, "text", "path")
    assert stat.S_ISFIFO(os.lstat(md).st_mode) and _leftovers(tmp_path) == []


def test_symlink_is_followed_to_its_regular_target_and_kept(tmp_path, capsys):
    real = tmp_path / "real.csv"
    real.write_text("old\n")
    os.chmod(real, 0o640)
    link = tmp_path / "link.csv"
    link.symlink_to("real.csv")
    f = _jsonl(tmp_path / "b.jsonl", ["a", "b"])
    assert main(["summarize", str(f), "--draws", "200", "--output", str(link)]) == 0
    assert link.is_symlink() and os.readlink(link) == "real.csv"
    assert _rows_text(real.read_text()).startswith("name,micro_f1_score")
    assert stat.S_IMODE(os.stat(real).st_mode) == 0o640
    capsys.readouterr()


@pytest.mark.parametrize("dangling", [False, True])
def test_symlink_to_a_fifo_or_nothing_is_refused_and_kept(tmp_path, capsys, special, dangling):
    link = tmp_path / "link.csv"
    if dangling:
        link.symlink_to("missing.csv")
    else:
        special("fifo", "pipe")
        link.symlink_to("pipe")
    f = _jsonl(tmp_path / "b.jsonl", ["a"])
    assert main(["summarize", str(f), "--draws", "200", "--output", str(link)]) == 2
    err = capsys.readouterr().err
    assert f"--output {link}: " in err and err.count("\n") == 1
    assert link.is_symlink()
    assert not (tmp_path / "missing.csv").exists()
    assert _leftovers(tmp_path) == []


def test_new_files_get_the_umask_mode_and_replaced_files_keep_theirs(tmp_path, capsys):
    f = _jsonl(tmp_path / "b.jsonl", ["a"])
    old = os.umask(0o027)
    try:
        new = tmp_path / "new.csv"
        assert main(["summarize", str(f), "--draws", "200", "--output", str(new)]) == 0
        assert stat.S_IMODE(os.stat(new).st_mode) == 0o640  # 0o666 & ~0o027
        existing = tmp_path / "existing.csv"
        existing.write_text("x\n")
        os.chmod(existing, 0o644)
        assert main(["summarize", str(f), "--draws", "200", "--output", str(existing)]) == 0
        assert stat.S_IMODE(os.stat(existing).st_mode) == 0o644
        assert _rows_text(existing.read_text()).startswith("name,")
        xml = tmp_path / "gate.xml"
        m = tmp_path / "m.json"
        m.write_text(json.dumps(MATRIX))
        gate = ["gate", str(m), "--metric", "micro_f1", "--min", "0.5", "--draws", "2000"]
        assert main([*gate, "--junit-xml", str(xml)]) == 0
        assert stat.S_IMODE(os.stat(xml).st_mode) == 0o640
    finally:
        os.umask(old)
    capsys.readouterr()


def test_an_error_while_writing_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "out.csv"
    target.write_text("old contents\n")
    with pytest.raises(RuntimeError, match="boom"):
        with atomic_output(target) as fh:
            fh.write("half a ")
            assert _leftovers(tmp_path) != []  # the writing goes to a temporary file
            raise RuntimeError("boom")
    assert target.read_text() == "old contents\n"
    assert _leftovers(tmp_path) == []
    with pytest.raises(KeyboardInterrupt):
        with atomic_output(tmp_path / "new.csv") as fh:
            fh.write("x")
            raise KeyboardInterrupt
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]


def test_output_target_names_the_flag_and_what_the_path_is(tmp_path, special):
    assert output_target(tmp_path / "new.csv") == tmp_path / "new.csv"
    with pytest.raises(ValueError, match=r"^--plot .*nowhere.*: cannot write there \(No such"):
        write_output(tmp_path / "nowhere" / "x.png", b"png", "--plot")
    d = special("dir")
    with pytest.raises(ValueError, match=r"^--junit-xml .*: a directory; only a regular"):
        output_target(d, "--junit-xml")


# --------------------------------------------------------------------- CSV formulas
@pytest.mark.parametrize(
    "text, cell",
    [
        ('=HYPERLINK("http://x","y")', '\'=HYPERLINK("http://x","y")'),
        ("+1+2", "'+1+2"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\\tx"),
        ("\rx", "'\\rx"),
        ("-", "'-"),
        ("-1", "-1"),  # a number stays a number
        ("-3.5e-2", "-3.5e-2"),
        ("+7", "+7"),
        ("cat", "cat"),
        ("a=b", "a=b"),
    ],
)
def test_escape_csv_neutralises_formulas_not_numbers(text, cell):
    assert escape_csv(text) == cell


def test_csv_and_tsv_rows_never_start_a_formula(tmp_path, capsys):
    names = ['=HYPERLINK("http://evil","x")', "+cmd", "-1", "@A1", "\t=1", "plain"]
    f = _jsonl(tmp_path / "b.jsonl", names)
    for fmt, delim in (("csv", ","), ("tsv", "\t")):
        assert main(["summarize", str(f), "--draws", "200", "--format", fmt]) == 0
        out = _rows_text(capsys.readouterr().out)
        rows = list(csv.reader(io.StringIO(out), delimiter=delim))
        got = [r[0] for r in rows[1:]]
        assert got == ['\'=HYPERLINK("http://evil","x")', "'+cmd", "-1", "'@A1", "'\\t=1", "plain"]
        numeric = [j for j, c in enumerate(rows[0]) if j and not c.endswith("prior_dominated")]
        values = np.array([[float(r[j]) for j in numeric] for r in rows[1:]])
        assert np.isfinite(values).all()  # numbers are written as numbers


def test_long_rows_escape_class_labels_and_keep_negative_numbers(tmp_path, capsys):
    f = tmp_path / "b.jsonl"
    f.write_text(json.dumps({"name": "m", "matrix": MATRIX, "labels": ["=cmd()", "-1"]}) + "\n")
    args = ["summarize", str(f), "--draws", "200", "--format", "csv", "--long"]
    assert main([*args, "--metric", "f1"]) == 0
    rows = list(csv.DictReader(io.StringIO(_rows_text(capsys.readouterr().out))))
    assert [r["class"] for r in rows] == ["'=cmd()", "-1"]
    assert all(float(r["mean"]) > 0 for r in rows)


def test_aggregate_csv_neutralises_names(tmp_path, capsys):
    f = tmp_path / "folds.jsonl"
    f.write_text(
        "".join(
            json.dumps({"matrix": [[40 + i, 10], [5, 45]], "name": n}) + "\n"
            for i, n in enumerate(["=1+1", "@x", "-5"])
        )
    )
    assert main(["aggregate", str(f), "--draws", "500", "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["name"] for r in rows[:3]] == ["'=1+1", "'@x", "-5"]


# --------------------------------------------------------------------- Markdown reports
EVIL = ["<script>alert(1)</script>", "x\n# Owned"]


def _heading_lines(text):
    return [line for line in text.splitlines() if line.startswith("#")]


def test_markdown_report_escapes_labels_title_and_source():
    res = evaluate(MATRIX, metrics="f1", labels=EVIL, draws=1000, rng=0)
    text = render_report(res, fmt="markdown", plot=False, title="T <b>", source="<img src=x>")
    assert "<script>" not in text and "<b>" not in text and "<img" not in text
    assert "&lt;script&gt;" in text
    assert _heading_lines(text) == ["# T &lt;b&gt;"]  # the newline in a label starts nothing
    html_text = render_report(res, fmt="html", plot=False)
    assert "<script>" not in html_text


def test_summarize_report_md_escapes_labels(tmp_path, capsys):
    pytest.importorskip("matplotlib")  # the report embeds the figure
    m = tmp_path / "m.json"
    m.write_text(json.dumps({"matrix": MATRIX, "labels": EVIL}))
    out = tmp_path / "r.md"
    code = main(["summarize", str(m), "--draws", "500", "--metric", "f1", "--report", str(out)])
    assert code == 0, capsys.readouterr().err
    text = out.read_text()
    assert "<script>" not in text and "&lt;script&gt;" in text
    assert len(_heading_lines(text)) == 1
