"""Level 0, the core every layer stands on: argument validation, random streams
(``streams``: the default seed and draws, ``child_seed``, ``RunSeed``), priors, the
one Gamma sampler, the confusion-matrix type, result equality and text escaping.
Private: the public names are re-exported by ``f1posterior``."""
