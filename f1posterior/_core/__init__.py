"""Level 0, the core every layer stands on: argument validation, random streams
(``validation.child_seed``), priors, the one Gamma sampler, the confusion-matrix type,
result equality and text escaping. Private: the public names are re-exported by
``f1posterior``."""
