"""The package version, in one place every layer may import."""

__version__ = "0.1.0"

__all__ = ["__version__"]
