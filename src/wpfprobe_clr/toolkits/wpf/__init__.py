"""The WPF adapter: reads a live WPF UI for the engine, on the app's UI thread.

WPF cannot run where most of this project is tested, so this package follows
a convention that lets ``tests/unit/wpf_surface.py`` check every WPF type and
member it uses against the public WPF API (``wpf-api.tsv``). The checker reads
all the modules of the package together: a name imported from a sibling module
keeps what it is there (a mixin's base class and its attributes, a function's
declared return type), so nothing escapes the check by crossing a module.

1. WPF types are imported by name from their namespaces (``from
   System.Windows.Media import VisualTreeHelper``), never reached through a
   namespace object; each module imports them only ``if _WPF_LOAD_ERROR is
   None`` (see ``_load``).
2. ``Type.Member`` is used only for static members, enum values and nested
   types; ``Type(...)`` only for public constructors, and ``IInterface(value)``
   only for pythonnet's interface cast.
3. Every value whose members are used has a known type: an annotation
   (``el: FrameworkElement``, ``self._x: T``), an ``isinstance`` narrowing, or
   the declared type of the member that produced it. Elements the engine hands
   in are ``Any`` and are narrowed before any member is touched. An
   ``isinstance`` test narrows to one type only, so branches that do the same
   for two types stay separate (ruff's SIM101 and SIM114 are off here).
4. Members inherited from BCL base classes are listed explicitly in the
   checker (``BCL_BASE_MEMBERS``); BCL types themselves are not checked.
5. Automation peers implement their pattern interfaces (IInvokeProvider...)
   explicitly: those members are reached through pythonnet's interface cast,
   ``IInvokeProvider(provider).Invoke()``, and checked against the interface
   members wpf-api.tsv lists. ICommand is a BCL interface that lives in a WPF
   namespace and is not in the file: it is typed with a Protocol
   (``_input._Command``) that spells out the documented members used.

``WpfAdapter`` (``_adapter``) is assembled from one mixin per concern, each
derived from ``_tree._TreeAdapter`` (the app, its dispatcher and the element
trees), most through ``_items._ItemsAdapter`` (the items of every
ItemsControl as elements: containers, element items and data items,
``ItemRef``, in the logical tree; their names, states and texts):
``_properties`` (describing and reading properties, showing values, the text
a user reads), ``_mutation`` (setting them), ``_bindings`` and
``_binding_trace`` (bindings and their errors), ``_resources``, ``_triggers``
(triggers and behaviors), ``_diagnostics`` (facts for the audit rules),
``_capture`` (screenshots), and for input ``_input`` (automation peers and
providers, commands), ``_keyboard`` (keys and focus), ``_item_actions``
(reaching, selecting, expanding and editing items), ``_actions`` (clicks,
typing, selection, toggles) and ``_blockers`` (why an action cannot happen
now). The rules about items that need no CLR (type names, text sources,
paths, access keys) are in ``toolkits/_wpf_items.py``, where unit tests
reach them.

Importing this package does not fail where WPF is missing (Linux, Mono):
``is_wpf_object`` stays usable for auto-detection, and ``WpfAdapter`` or
``connect`` raise ClrUnavailableError instead.
"""

from __future__ import annotations

# First (the import sorter keeps it so: the package sorts before its modules), as in the
# single module this package was: _load imports clr, without which System.* cannot be
# imported, and adds the WPF assemblies, before any module below imports from System.
# The other names are imported on first use (the adapter's modules are many): ``wpfprobe.start()``
# only needs ``find_app`` and ``is_wpf_object`` before it returns.
import importlib
from typing import TYPE_CHECKING, Any

from wpfprobe_clr.toolkits.wpf import _load  # noqa: F401
from wpfprobe_clr.toolkits.wpf._load import find_app, is_wpf_object

if TYPE_CHECKING:
    from wpfprobe_clr.toolkits.wpf._adapter import WpfAdapter, connect
    from wpfprobe_clr.toolkits.wpf._binding_trace import BindingTraceListener as BindingTraceListener
    from wpfprobe_clr.toolkits.wpf._binding_trace import install_binding_trace as install_binding_trace
    from wpfprobe_clr.toolkits.wpf._binding_trace import parse_binding_trace as parse_binding_trace
    from wpfprobe_clr.toolkits.wpf._binding_trace import record_binding_trace as record_binding_trace

__all__ = ["WpfAdapter", "connect", "find_app", "is_wpf_object"]

_HOMES = {
    "WpfAdapter": "_adapter",
    "connect": "_adapter",
    "BindingTraceListener": "_binding_trace",
    "install_binding_trace": "_binding_trace",
    "parse_binding_trace": "_binding_trace",
    "record_binding_trace": "_binding_trace",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)
