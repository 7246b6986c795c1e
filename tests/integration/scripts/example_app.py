"""The project's example WinForms app (examples/winforms_app.py), loaded by the scripts here.

Each script runs as a process of its own (``python scripts/NAME.py``), with this folder first on
``sys.path``, so they share this instead of the conftest's loader.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[3]


def load_example() -> ModuleType:
    """examples/winforms_app.py as a module: ``start_in_background()`` shows its form on a UI thread."""
    spec = importlib.util.spec_from_file_location("winforms_app", ROOT / "examples" / "winforms_app.py")
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    return example
