"""Runnable examples that ship with the package: they need nothing but wpfprobe and a .NET runtime.

- ``greeter.py``: a small WinForms app that knows nothing of wpfprobe (type a name, press Greet).
  ``python -m wpfprobe.examples.greeter`` runs it as any app; ``wpfprobe demo`` runs it with the probe
  inside and drives it as an agent would; ``wpfprobe run`` takes its path (``wpfprobe demo`` prints it).

Nothing here is imported by wpfprobe itself.
"""

from pathlib import Path

#: The folder the examples are in (for ``wpfprobe run <it>/greeter.py``).
FOLDER = Path(__file__).resolve().parent
