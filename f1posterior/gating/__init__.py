"""Level 4 (may use :mod:`f1posterior.analysis`): the CI gate and sample-size planning.

The functions ``gate`` and ``assert_gate`` are ``f1posterior.gate`` and
``f1posterior.assert_gate``; this package is named ``gating`` so that no function
shadows it (the modules are ``gating.gate``, ``gating.config``, ...)."""
