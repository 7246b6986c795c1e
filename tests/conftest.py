"""Every test process: its exit bounded (exit_watchdog.py)."""

from exit_watchdog import pytest_unconfigure

__all__ = ["pytest_unconfigure"]
