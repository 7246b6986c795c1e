"""A .NET namespace whose classes are looked up on first use: ``WF = clr_namespace("System.Windows.Forms")``.

The first time Python names a .NET class, pythonnet reflects all of its
members to build the Python class, and Mono loads its metadata: 20 ms and
1.7 MiB for DataGridView, 9 ms and 1.5 MiB for TabControl, where a class the
app already used costs nothing. ``from System.Windows.Forms import ...`` at a
module's top pays that for every class the toolkit knows, when the probe
starts, in every app. Through a namespace object, ``WF.DataGridView`` pays it
where the probe first reaches a DataGridView, so an app pays for the classes
its own UI has, as it would without the probe.

A type test needs no Python class: ``WF.types.DataGridView`` is the
``System.Type`` alone, found in the loaded assemblies, for which pythonnet
builds nothing (Mono reads the type's metadata, a fraction of the cost). The
walk's compiled expressions test with those (``expr.typeof`` takes them), and
Python code with ``is_instance`` (``derived.is_a`` for what may be a handle),
so testing whether a Button is a DataGridView does not make the DataGridView
class.

What is found is kept on the object, so a later ``WF.DataGridView`` is a plain
attribute read (a pythonnet namespace module's is a call into .NET).
``clr_namespace`` hands out one object per namespace. The namespace's own
module is imported at the first lookup too: importing a module of the probe
needs no assembly loaded.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

__all__ = ["ClrNamespace", "NetTypes", "clr_namespace", "is_instance"]


class NetTypes:
    """The ``System.Type`` objects of one namespace's types as attributes, found by full name in the
    loaded assemblies: no pythonnet class is made for them."""

    def __init__(self, namespace: str) -> None:
        self._namespace = namespace
        self._assembly: Any = None  # where the last one was: most of a namespace is in one assembly
        self._missing: set[str] = set()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        full = f"{self._namespace}.{name}"
        found = self._assembly.GetType(full) if self._assembly is not None else None
        if found is None:
            from System import AppDomain  # noqa: PLC0415 - only once a CLR runs

            for assembly in AppDomain.CurrentDomain.GetAssemblies():
                found = assembly.GetType(full)
                if found is not None:
                    self._assembly = assembly
                    break
            else:
                raise AttributeError(f"no loaded assembly has a type {full}")
        setattr(self, name, found)
        return found

    def optional(self, name: str) -> Any | None:
        """The type, or None where this runtime has none."""
        if name in self._missing:
            return None
        try:
            return getattr(self, name)
        except AttributeError:
            self._missing.add(name)
            return None


class ClrNamespace:
    """The classes of one .NET namespace as attributes, each found when first read."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None
        self._missing: set[str] = set()
        self._types = NetTypes(name)

    @property
    def types(self) -> NetTypes:
        """This namespace's ``System.Type`` objects, for type tests: ``WF.types.DataGridView``."""
        return self._types

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

    def __repr__(self) -> str:
        return f"<ClrNamespace {self._name}>"


_namespaces: dict[str, ClrNamespace] = {}


def clr_namespace(name: str) -> ClrNamespace:
    """The one ``ClrNamespace`` for ``name`` in this process."""
    found = _namespaces.get(name)
    if found is None:
        found = _namespaces[name] = ClrNamespace(name)
    return found


#: (Python type, id of a System.Type) -> (that System.Type, whether the type's objects are its instances).
_instances: dict[tuple[type, int], tuple[Any, bool]] = {}


def is_instance(value: Any, classes: Any) -> bool:
    """``isinstance(value, classes)``, where ``classes`` (one, or a tuple) may hold ``System.Type`` objects
    (``WF.types.ListView``) besides classes. A System.Type is asked once per Python type (pythonnet
    gives each .NET type its own), so a test costs a dict lookup, not a call into .NET: a fifth of
    what pythonnet's own isinstance on a .NET class costs (0.6 against 3.9 us, measured on Mono)."""
    if type(classes) is tuple:
        return any(_is_one(value, c) for c in classes)
    return _is_one(value, classes)


def _is_one(value: Any, kind: Any) -> bool:
    if isinstance(kind, type):
        return isinstance(value, kind)
    cls = type(value)
    key = (cls, id(kind))
    found = _instances.get(key)
    if found is None:
        # The System.Type is kept in the entry, so its id is not reused while the entry lives.
        found = _instances[key] = (kind, _assignable(kind, cls, value))
    return found[1]


#: Python class -> its System.Type (None: no .NET class): one per class the probe meets.
_net_types: dict[type, Any] = {}


def _assignable(kind: Any, cls: type, value: Any) -> bool:
    """What pythonnet's isinstance answers, which goes by the Python class: a value a .NET method
    returned as an interface is of that interface's class, and not an instance of its object's
    own class (pythonnet 3)."""
    net_type = _net_types.get(cls, _UNKNOWN)
    if net_type is _UNKNOWN:
        net_type = _net_types[cls] = _net_type(cls, value)
    return net_type is not None and bool(kind.IsAssignableFrom(net_type))


_UNKNOWN = object()


def _net_type(cls: type, value: Any) -> Any:
    import clr  # noqa: PLC0415 - only once a CLR runs
    from System import Object  # noqa: PLC0415

    if not isinstance(cls, type(Object)):  # not a .NET class (an int, a str, the probe's own objects)
        return None
    try:
        return clr.GetClrType(cls)
    except Exception:  # noqa: BLE001 - an object of an internal type: ask it, as derived._net_type does
        return value.GetType()
