"""Static checks run with the test suite: ruff (lint and format) and mypy on the package.

They need the tools of the ``test`` extra; CI installs them.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


def test_ruff_lint():
    proc = run("ruff", "check", "f1posterior", "tests", "benchmarks")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_format():
    proc = run("ruff", "format", "--check", "f1posterior", "tests", "benchmarks")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_on_the_package():
    proc = run("mypy")
    assert proc.returncode == 0, proc.stdout + proc.stderr
