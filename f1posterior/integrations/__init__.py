"""Level 5: adapters to other libraries: Dask (``integrations.dask``), scikit-learn
(``integrations.sklearn``, ``integrations.sklearn_metrics``) and MLflow
(``integrations.mlflow``). pandas and ArviZ forms of a result are methods of
:class:`~f1posterior.Evaluation` (:mod:`f1posterior.posterior._frames`)."""

__all__: list[str] = []
