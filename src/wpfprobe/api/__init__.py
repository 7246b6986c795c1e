"""Face: the Python API for notebooks and tests (SPEC 1): ``attach``, ``Probe``, ``Locator``."""

from wpfprobe.api.probe import Locator, Probe, attach

__all__ = ["Locator", "Probe", "attach"]
