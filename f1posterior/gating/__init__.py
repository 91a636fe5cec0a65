"""Level 4 (may use :mod:`f1posterior.analysis`): the CI gate and sample-size planning.

The functions ``gate`` and ``assert_gate`` are ``f1posterior.gate`` and
``f1posterior.assert_gate``; this package is named ``gating`` so that no function
shadows it (the modules are ``gating._gate``, ``gating._config``, ...)."""

from ._checks import (
    GATE_MULTILABEL_METRICS,
    Floor,
    GateCheck,
    JointFloor,
    NonInferiority,
    per_class_metrics,
)
from ._config import CheckGroup, check_groups, find_pyproject_config, load_config
from ._config_schema import GateConfig, GateConfigError
from ._draws import NOISE_SIGMAS
from ._gate import DEFAULT_MAX_DRAWS, MAX_DRAWS_LIMIT, MIN_DRAWS, assert_gate, gate, gate_multilabel
from ._plan_result import PlanResult
from ._planning import DEFAULT_MAX_DOCUMENTS, MAX_DOCUMENTS_LIMIT, plan
from ._verdicts import Check, GateResult

# fmt: off
__all__ = [
    "Check", "CheckGroup", "DEFAULT_MAX_DOCUMENTS", "DEFAULT_MAX_DRAWS", "Floor",
    "GATE_MULTILABEL_METRICS", "GateCheck", "GateConfig", "GateConfigError", "GateResult",
    "JointFloor", "MAX_DOCUMENTS_LIMIT", "MAX_DRAWS_LIMIT", "MIN_DRAWS", "NOISE_SIGMAS",
    "NonInferiority", "PlanResult", "assert_gate", "check_groups", "find_pyproject_config",
    "gate", "gate_multilabel", "load_config", "per_class_metrics", "plan",
]
# fmt: on
