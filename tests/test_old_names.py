"""One name per idea: the interval probability is ``ci_prob`` in gate.toml and ``--ci-prob``.

Names the package never released under (``hdi_prob``, ``--hdi-prob``) are refused like any
unknown key or flag, with the usual message; the config message suggests the current name.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from f1posterior.cli import main
from f1posterior.gating._config import GateConfigError, parse_config


def test_gate_config_hdi_prob_is_an_unknown_key(tmp_path: Path):
    with pytest.raises(GateConfigError) as err:
        parse_config({"hdi_prob": 0.9}, "gate.toml", tmp_path)
    msg = str(err.value)
    assert msg.startswith("gate.toml: hdi_prob: unknown key (allowed: ")
    assert "did you mean 'ci_prob'" in msg
    assert parse_config({"ci_prob": 0.9}, "gate.toml", tmp_path).settings == {"ci_prob": 0.9}


def test_unknown_key_far_from_every_name_gets_no_suggestion(tmp_path: Path):
    with pytest.raises(GateConfigError) as err:
        parse_config({"zzzz": 1}, "gate.toml", tmp_path)
    assert "did you mean" not in str(err.value)


def test_cli_hdi_prob_flag_is_refused(tmp_path: Path, capsys):
    path = tmp_path / "m.json"
    path.write_text("[[40, 6], [5, 30]]")
    args = ["summarize", str(path), "--draws", "2000", "--format", "json"]
    with pytest.raises(SystemExit) as exit_:
        main([*args, "--hdi-prob", "0.8"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.splitlines() == [err]
    assert "unrecognized arguments: --hdi-prob 0.8" in err
    assert main([*args, "--ci-prob", "0.8"]) == 0
    assert '"ci_prob": 0.8' in capsys.readouterr().out
