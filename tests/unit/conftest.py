"""Fixtures shared by the engine's unit tests."""

from fake_toolkit import fake

__all__ = ["fake"]
