"""Shared fixtures, and the fast loop: ``python -m pytest`` leaves out the tests marked slow.

The slow tests (subprocesses, simulation studies, calibration, process pools and dask clusters)
are named once, in ``SLOW`` below, and marked ``slow`` at collection. ``python -m pytest`` runs
the rest (``-m "not slow"``); ``python -m pytest --all`` runs everything, as CI does; an explicit
``-m`` expression (``-m slow``) is used as given, and a test named by its id always runs.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from f1posterior.io._data import figure3

HERE = Path(__file__).parent

#: Test files (every test in them) and tests (``file::name``, every parametrization) marked slow.
SLOW = (
    # simulation and calibration studies, an independent MCMC sampler
    "test_calibration.py",
    "test_paired_calibration.py",
    "test_folds_calibration.py",
    "test_slice_calibration.py",
    "test_gate_joint_fail.py::test_false_fail_rate_at_the_boundary",
    "test_gate_joint_fail.py::test_false_fail_rate_by_classes",
    "test_cluster_calibration.py",
    "test_hierarchical.py",
    "test_mcmc.py",
    "test_aggregate_tau.py::test_the_default_covers_the_population_mean",
    "test_aggregate_tau.py::test_the_default_covers_where_the_earlier_prior_fell_short",
    "test_aggregate_tau.py::test_the_trade_off_a_narrower_tied_scale_under_covers",
    "test_aggregate_tau.py::test_the_default_is_no_wider_than_the_earlier_prior_when_folds_agree",
    "test_aggregate_tau.py::test_five_folds_of_one_population_width_before_and_after",
    "test_plan.py",
    "test_streaming.py::test_large_m_is_chunked_over_draws_within_the_budget",
    "test_exact_routes.py::test_bit_identical_whatever_workers_memory_and_offset",
    "test_thresholds.py::test_expected_decisions_optimal_against_all_decision_sets",
    "test_underflow.py::test_empty_rows_recall_under_a_perks_prior",
    "test_summary.py::test_hdi_equals_brute_force",
    "test_regressions_14.py::test_point_metrics_equal_scikit_learns",
    "test_multilabel.py::test_memory_is_bounded_for_30000_labels",
    # a dask cluster of worker processes
    "test_dask_distributed.py",
    # subprocesses: the command line, the GitHub Action's shell steps, signals, the tutorial
    "test_action.py",
    "test_gate_recipe.py",
    "test_signals.py",
    "test_tutorial.py",
    "test_cluster_docs.py",
    "test_folds_docs.py",
    "test_gate_verdicts.py::test_exit_codes_and_verdict_words_in_every_format",
    "test_gate_verdicts.py::test_label_order_is_deterministic_across_hash_seeds",
    "test_gate_verdicts.py::test_json_stays_valid_and_keeps_the_raw_label",
    "test_gate_verdicts.py::test_hostile_inputs_exit_2_one_line",
    "test_gate_cli.py::test_input_errors_exit_2",
    "test_gate_cli.py::test_multilabel_errors_exit_2",
    "test_streaming.py::test_a_closed_pipe_exits_141_quietly",
    "test_streaming.py::test_sigint_exits_130_with_one_line_and_no_output_file",
    "test_plots.py::test_cli_plot",
    "test_priors.py::test_every_preset_on_the_command_line",
    "test_prior_flags.py::test_gate_cli_warns_on_stderr_in_every_format",
    "test_prior_flags.py::test_summarize_warning_names_the_classes",
    "test_cli_summarize.py::test_errors_are_one_line_with_status_2",
    "test_inputs.py::test_non_regular_files_are_refused_at_once",
)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--all", action="store_true", help="run the slow tests too (CI runs everything)"
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: left out of the fast loop; run with --all")
    chosen = config.option.markexpr or config.getoption("--all")
    if not chosen and not any("::" in arg for arg in config.args):  # a test named runs
        config.option.markexpr = "not slow"


def _is_slow(nodeid: str, entry: str) -> bool:
    return nodeid == entry or nodeid.startswith((entry + "::", entry + "["))


def _exists(entry: str, module: object) -> bool:
    file, _, name = entry.partition("::")
    if not (HERE / file).is_file():
        return False
    return module is None or not name or hasattr(module, name.partition("[")[0])


@pytest.hookimpl(tryfirst=True)  # before -m deselects by mark
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    modules: dict[str, object] = {}
    for item in items:
        nodeid = item.nodeid.removeprefix("tests/")
        if any(_is_slow(nodeid, entry) for entry in SLOW):
            item.add_marker(pytest.mark.slow)
        if isinstance(item, pytest.Function):
            modules[nodeid.partition("::")[0]] = item.module
    stale = [  # a renamed slow test would otherwise join the fast loop unnoticed
        entry for entry in SLOW if not _exists(entry, modules.get(entry.partition("::")[0]))
    ]
    if stale:
        raise pytest.UsageError(f"tests/conftest.py: SLOW names tests that do not exist: {stale}")


@pytest.fixture(scope="session")
def fig3() -> np.ndarray:
    return figure3()
