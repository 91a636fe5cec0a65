"""The package version, in one place: pyproject.toml, the front door and the CLI read it."""

__version__ = "1.0.0"
