"""Startup stays light: the command line and the gate's path import no heavy optional package.

Each check runs in a fresh interpreter (``sys.modules`` of the test process is
polluted by other tests). The default gate (adaptive prior, sampled) needs
NumPy only; scipy is allowed only where it is needed (the exact path of
``--prior aligned``), and is checked separately so that the test can fail.
"""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("scipy", "matplotlib", "pandas", "dask", "arviz", "pyarrow", "sklearn")
MATRIX = "[[50, 3, 2], [4, 40, 6], [1, 5, 39]]"  # the 3 x 3 example; micro-F1 0.86


def _imported(code: str, tmp_path, *args: str) -> dict:
    (tmp_path / "m.json").write_text(MATRIX)
    prog = (
        "import sys, json\n"
        f"HEAVY = {HEAVY!r}\n"
        "def heavy():\n"
        "    return sorted(m for m in HEAVY if m in sys.modules)\n" + code
    )
    proc = subprocess.run(
        [sys.executable, "-c", prog, *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_importing_the_package_and_cli_imports_no_heavy_module(tmp_path):
    out = _imported(
        "import f1posterior, f1posterior.cli\n"
        "from f1posterior.cli import main, build_parser\n"
        "build_parser()\n"
        "print(json.dumps({'heavy': heavy(), 'numpy': 'numpy' in sys.modules}))\n",
        tmp_path,
    )
    assert out == {"heavy": [], "numpy": True}  # numpy: the probe does see imports


def test_running_the_default_gate_imports_no_heavy_module(tmp_path):
    out = _imported(
        "import contextlib, io\n"
        "from f1posterior.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as buf:\n"
        "    rc = main(['gate', 'm.json', '--metric', 'micro_f1', '--min', '0.5',\n"
        "               '--metric', 'f1', '--min', '0.5', '--format', 'json',\n"
        "               '--append-markdown', 'summary.md', '--junit-xml', 'gate.xml'])\n"
        "verdict = json.loads(buf.getvalue())['verdict']\n"
        "print(json.dumps({'rc': rc, 'verdict': verdict, 'heavy': heavy()}))\n",
        tmp_path,
    )
    assert out == {"rc": 0, "verdict": "pass", "heavy": []}


def test_baseline_gate_imports_no_heavy_module(tmp_path):
    (tmp_path / "base.json").write_text("[[48, 4, 3], [5, 39, 6], [2, 5, 38]]")
    out = _imported(
        "import contextlib, io\n"
        "from f1posterior.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    rc = main(['gate', 'm.json', '--baseline', 'base.json', '--max-drop', '0.05'])\n"
        "print(json.dumps({'rc': rc, 'heavy': heavy()}))\n",
        tmp_path,
    )
    assert out["heavy"] == [] and out["rc"] in (0, 3)


def test_exact_path_is_the_only_one_that_loads_scipy(tmp_path):
    """The probe detects a heavy import when there is one (scipy for the exact Beta CDF)."""
    out = _imported(
        "import contextlib, io\n"
        "from f1posterior.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    rc = main(['gate', 'm.json', '--metric', 'micro_f1', '--min', '0.5',\n"
        "               '--prior', 'aligned'])\n"
        "print(json.dumps({'rc': rc, 'heavy': heavy()}))\n",
        tmp_path,
    )
    assert out == {"rc": 0, "heavy": ["scipy"]}


COLLECTOR_PROBE = (
    "import contextlib, gc, io\n"
    "sys.argv[0] = sys.argv[1]  # the f1posterior command, or another program\n"
    "import f1posterior\n"
    "at_import = gc.isenabled()\n"
    "import f1posterior.cli._gate as command\n"
    "gate, during = command.gate, []\n"
    "def spy(*args, **kwargs):\n"
    "    during.append(gc.isenabled())\n"
    "    return gate(*args, **kwargs)\n"
    "command.gate = spy\n"
    "from f1posterior.cli import main\n"
    "with contextlib.redirect_stdout(io.StringIO()):\n"
    "    rc = main(['gate', 'm.json', '--metric', 'micro_f1', '--min', '0.5'])\n"
    "print(json.dumps({'rc': rc, 'import': at_import, 'run': during,\n"
    "                  'frozen': gc.get_freeze_count() > 0, 'after': gc.isenabled()}))\n"
)


def test_the_command_holds_the_collector_back_only_while_it_starts(tmp_path):
    """In the ``f1posterior`` command the cyclic collector is off from the package's import
    until the command runs, on while it runs, and what is left is frozen before the process
    exits; in any other program (the negative control) the collector is left alone."""
    out = _imported(COLLECTOR_PROBE, tmp_path, "f1posterior")
    assert out == {"rc": 0, "import": False, "run": [True], "frozen": True, "after": True}
    out = _imported(COLLECTOR_PROBE, tmp_path, "python")
    assert out == {"rc": 0, "import": True, "run": [True], "frozen": False, "after": True}


EXIT_PROBE = (
    "import atexit\n"
    "sys.argv[0] = sys.argv[1]  # the f1posterior command, or another program\n"
    "if sys.argv[3] == 'early':  # a handler registered before the package (a coverage tool)\n"
    "    atexit.register(lambda: print(json.dumps({'early': 'ran'})))\n"
    "import f1posterior\n"
    "from f1posterior.cli import main\n"
    "left = open('torn', 'w')  # never closed: only the interpreter's teardown writes it\n"
    "left.write('down')\n"
    "atexit.register(lambda: print(json.dumps({'handler': 'ran'})))\n"
    "status = main(['gate', 'm.json', '--metric', 'micro_f1', '--min', sys.argv[2]])\n"
    "print(json.dumps({'returned': status}))\n"
    "sys.exit(status)\n"
)


def _exit_probe(tmp_path, program: str, floor: str, early: str = "") -> tuple[int, list, bool]:
    (tmp_path / "m.json").write_text(MATRIX)
    (tmp_path / "torn").unlink(missing_ok=True)
    proc = subprocess.run(
        [sys.executable, "-c", "import json, sys\n" + EXIT_PROBE, program, floor, early],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    lines = [json.loads(x) for x in proc.stdout.splitlines() if x.startswith("{")]
    return proc.returncode, lines, (tmp_path / "torn").read_text() == "down"


def test_the_command_ends_after_its_exit_handlers_without_the_teardown(tmp_path):
    """The command's exit status is what ``main`` returned, its output (block-buffered in a
    pipe) is all written and exit handlers registered during the run still run; only the
    interpreter's teardown is skipped (a file left open is not flushed by it: the command
    closes every file it writes), and in another program (the negative control) the
    teardown runs as usual."""
    for floor, status in (("0.5", 0), ("0.95", 1), ("0.86", 3)):
        rc, lines, torn = _exit_probe(tmp_path, "f1posterior", floor)
        assert (rc, lines, torn) == (status, [{"returned": status}, {"handler": "ran"}], False)
    rc, lines, torn = _exit_probe(tmp_path, "python", "0.5")
    assert (rc, lines, torn) == (0, [{"returned": 0}, {"handler": "ran"}], True)


def test_the_command_keeps_the_teardown_after_an_earlier_exit_handler(tmp_path):
    """An exit handler registered before the package is imported (a coverage tool's, a
    monitoring agent's) would run after the command's own: the command then exits as usual,
    so that handler runs and the teardown with it."""
    rc, lines, torn = _exit_probe(tmp_path, "f1posterior", "0.95", "early")
    assert (rc, torn) == (1, True)
    assert lines == [{"returned": 1}, {"handler": "ran"}, {"early": "ran"}]
