"""The package version: one place, read by ``pyproject.toml`` and by saved model files."""

__version__ = "0.1.0"
