"""Face: the command line (SPEC 2). ``wpfprobe ...`` and ``python -m wpfprobe ...``."""

from wpfprobe.cli.parser import main

__all__ = ["main"]
