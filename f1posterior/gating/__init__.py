"""Level 4 (may use :mod:`f1posterior.analysis`): the CI gate and sample-size planning.

The functions ``gate`` and ``assert_gate`` are ``f1posterior.gate`` and
``f1posterior.assert_gate``; this package is named ``gating`` so that no function
shadows it (the modules are ``gating._gate``, ``gating._config``, ...)."""

from typing import TYPE_CHECKING

from .._core.lazy import attach as _attach

if TYPE_CHECKING:  # the names, for type checkers and IDEs
    from ._checks import GATE_MULTILABEL_METRICS as GATE_MULTILABEL_METRICS
    from ._checks import Floor, JointFloor, NonInferiority, SliceFloor
    from ._checks import GateCheck as GateCheck
    from ._checks import per_class_metrics as per_class_metrics
    from ._config import CheckGroup as CheckGroup
    from ._config import check_groups as check_groups
    from ._config import find_pyproject_config as find_pyproject_config
    from ._config import load_config as load_config
    from ._config_schema import GateConfig as GateConfig
    from ._config_schema import GateConfigError
    from ._folds import gate_folds
    from ._gate import DEFAULT_MAX_DRAWS as DEFAULT_MAX_DRAWS
    from ._gate import MAX_DRAWS_LIMIT as MAX_DRAWS_LIMIT
    from ._gate import MIN_DRAWS as MIN_DRAWS
    from ._gate import assert_gate, gate, gate_multilabel
    from ._noise import NOISE_SIGMAS
    from ._plan_result import PlanResult
    from ._planning import DEFAULT_MAX_DOCUMENTS as DEFAULT_MAX_DOCUMENTS
    from ._planning import MAX_DOCUMENTS_LIMIT as MAX_DOCUMENTS_LIMIT
    from ._planning import plan
    from ._verdicts import Check, GateResult
else:  # each name's module is imported at its first use
    # fmt: off
    __getattr__, __dir__ = _attach(__name__, {
        "._checks": (
            "GATE_MULTILABEL_METRICS", "Floor", "JointFloor", "NonInferiority", "GateCheck",
            "per_class_metrics", "SliceFloor"
        ),
        "._config": ("CheckGroup", "check_groups", "find_pyproject_config", "load_config"),
        "._config_schema": ("GateConfig", "GateConfigError"),
        "._noise": ("NOISE_SIGMAS",),
        "._folds": ("gate_folds",),
        "._gate": (
            "DEFAULT_MAX_DRAWS", "MAX_DRAWS_LIMIT", "MIN_DRAWS", "assert_gate", "gate",
            "gate_multilabel"
        ),
        "._plan_result": ("PlanResult",),
        "._planning": ("DEFAULT_MAX_DOCUMENTS", "MAX_DOCUMENTS_LIMIT", "plan"),
        "._verdicts": ("Check", "GateResult"),
    })
    # fmt: on

# The names imported but not in __all__ are for the package's other layers, not public API.
# fmt: off
__all__ = [
    "Check",
    "Floor",
    "GateConfigError",
    "GateResult",
    "JointFloor",
    "NOISE_SIGMAS",
    "NonInferiority",
    "PlanResult",
    "SliceFloor",
    "assert_gate",
    "gate",
    "gate_folds",
    "gate_multilabel",
    "plan",
]
# fmt: on
