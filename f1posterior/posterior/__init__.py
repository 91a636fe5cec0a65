"""Level 3: the posterior of a table and its summaries: the batch engine (chunks, threads,
memory budget), the exact routes and closed forms, ``evaluate`` and ``Evaluation``
(with its text, Markdown and DataFrame forms), multi-label and document evaluation."""
