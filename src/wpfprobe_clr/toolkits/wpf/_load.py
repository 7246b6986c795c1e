"""Loading WPF: its assemblies, once per process, and telling a WPF object apart without them.

The assemblies are loaded when the package is first imported. Where they are
missing (Linux, Mono) the error is kept, not raised: every module of the
package imports its WPF names only ``if _WPF_LOAD_ERROR is None``, so the
package still imports, ``is_wpf_object`` still answers (auto-detection runs
everywhere), and the adapter raises ClrUnavailableError when it is asked for.
"""

from __future__ import annotations

import clr
from System import Type

_WPF_ASSEMBLIES = ("WindowsBase", "PresentationCore", "PresentationFramework", "UIAutomationTypes")

# Judged by name so that detection never loads WPF (it must work on Linux too).
_WPF_ROOT_TYPES = frozenset({"System.Windows.Application", "System.Windows.Window", "System.Windows.DependencyObject"})


def is_wpf_object(obj: object) -> bool:
    """Whether ``obj`` is a WPF Application, Window or DependencyObject."""
    get_type = getattr(obj, "GetType", None)
    if get_type is None:
        return False
    try:
        net_type: Type | None = get_type()
        while net_type is not None:
            if str(net_type.FullName) in _WPF_ROOT_TYPES:
                return True
            net_type = net_type.BaseType
    except Exception:  # noqa: BLE001 - a pythonnet class object (not an instance) has an unbound GetType
        return False
    return False


def _load_wpf() -> Exception | None:
    try:
        for assembly in _WPF_ASSEMBLIES:
            clr.AddReference(assembly)
    except Exception as exc:  # noqa: BLE001 - reported when an adapter is asked for, not at import
        return exc
    return None


_WPF_LOAD_ERROR = _load_wpf()

if _WPF_LOAD_ERROR is None:
    from System.Windows import Application


def find_app() -> Application | None:
    """The process's WPF Application, or None (Application.Current is readable from any thread)."""
    if _WPF_LOAD_ERROR is not None:
        return None
    return Application.Current
