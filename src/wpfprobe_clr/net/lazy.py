"""A .NET namespace whose classes are looked up on first use: ``WF = clr_namespace("System.Windows.Forms")``.

The first time Python names a .NET class, pythonnet reflects all of its
members to build the Python class, and Mono loads its metadata: 20 ms and
1.7 MiB for DataGridView, 9 ms and 1.5 MiB for TabControl, where a class the
app already used costs nothing. ``from System.Windows.Forms import ...`` at a
module's top pays that for every class the toolkit knows, when the probe
starts, in every app. Through a namespace object, ``WF.DataGridView`` pays it
where the probe first reaches a DataGridView, so an app pays for the classes
its own UI has, as it would without the probe.

A class once found is kept on the object, so a later ``WF.DataGridView`` is a
plain attribute read (a pythonnet namespace module's is a call into .NET).
``clr_namespace`` hands out one object per namespace, and ``resolved`` says
which classes it has looked up. The namespace's own module is imported at the
first lookup too: importing a module of the probe needs no assembly loaded.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

__all__ = ["ClrNamespace", "clr_namespace"]


class ClrNamespace:
    """The classes of one .NET namespace as attributes, each found when first read."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None
        self._missing: set[str] = set()

    def __getattr__(self, name: str) -> Any:
        # Only the first read of a class comes here; after it the instance dict answers.
        if name.startswith("_"):
            raise AttributeError(name)
        if self._module is None:
            self._module = importlib.import_module(self._name)
        value = getattr(self._module, name)  # pythonnet builds the class here
        setattr(self, name, value)
        return value

    def optional(self, name: str) -> Any | None:
        """The class, or None where this runtime has none (MainMenu exists on Mono and the Framework only)."""
        if name in self._missing:
            return None
        try:
            return getattr(self, name)
        except (AttributeError, ImportError):
            self._missing.add(name)
            return None

    def resolved(self) -> frozenset[str]:
        """The names looked up so far."""
        return frozenset(k for k in vars(self) if not k.startswith("_"))

    def __repr__(self) -> str:
        return f"<ClrNamespace {self._name}: {len(self.resolved())} looked up>"


_namespaces: dict[str, ClrNamespace] = {}


def clr_namespace(name: str) -> ClrNamespace:
    """The one ``ClrNamespace`` for ``name`` in this process."""
    found = _namespaces.get(name)
    if found is None:
        found = _namespaces[name] = ClrNamespace(name)
    return found
