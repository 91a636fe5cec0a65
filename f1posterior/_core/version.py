"""The package version (one place: the front door and the command line read it here)."""

__version__ = "0.2.0"
