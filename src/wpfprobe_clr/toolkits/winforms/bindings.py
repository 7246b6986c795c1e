"""Data bindings (Control.DataBindings): describing them, and the errors they run into.

WinForms reports a binding's failures only as they happen, through its
BindingComplete event, so every binding is hooked: all of them once at connect
(hook_bindings), and a binding made later the first time the probe looks at its
control. A source with no current item is not an event but a state, so it is
read live each time instead of being recorded.

One store and one set of hooks per process: every probe attached to this app
sees the same errors, and a binding is listened to once however many attach.
The hooks are ``_hooks.SHARED``'s: the last probe's stop takes them off (a
binding is held weakly until then), and a later attach hooks the bindings again.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from System import WeakReference
from System.ComponentModel import TypeDescriptor

from wpfprobe.core.protocol import BindingDescription, BindingErrorRecord, PropertyDescriptor
from wpfprobe_clr._binding_errors import BindingErrorStore, WeakKeys
from wpfprobe_clr._hooks import SHARED
from wpfprobe_clr._values import type_full_name
from wpfprobe_clr.net.derived import call, get, has_member, is_a, members_of
from wpfprobe_clr.net.lazy import clr_namespace
from wpfprobe_clr.toolkits.winforms.values import plain

WF = clr_namespace("System.Windows.Forms")

_ERRORS = BindingErrorStore()
_keys: WeakKeys | None = None
_hooked: WeakKeys | None = None


def bindings(element: Any) -> list[BindingDescription]:
    return [describe_binding(element, b) for b in _bindings_of(element)]


def binding(element: Any, prop: PropertyDescriptor) -> BindingDescription | None:
    found = binding_for(element, prop.name)
    return describe_binding(element, found) if found is not None else None


def binding_for(element: Any, name: str) -> Any | None:
    """The control's binding of the property ``name`` (case-insensitive), or None."""
    for binding in _bindings_of(element):
        if str(binding.PropertyName).lower() == name.lower():
            return binding
    return None


def binding_errors(element: Any) -> list[BindingErrorRecord]:
    bindings = _bindings_of(element)
    if not bindings:
        return []
    recorded = _ERRORS.get(_element_key(element))
    live = []
    for binding in bindings:
        problem = _no_current_item(binding)
        if problem is not None:
            name = str(binding.PropertyName)
            live.append(BindingErrorRecord(name, problem, 1, "status", _member_path(binding)))
    return live + recorded


def data_context_type(element: Any) -> str | None:
    context = get(element, "DataContext") if has_member(element, "DataContext") else None  # .NET 7+ has one
    if context is not None:
        return type_full_name(context)
    bindings = getattr(element, "DataBindings", None)
    if bindings is not None and bindings.Count:
        return type_full_name(get(bindings[0], "DataSource"))
    return None


def hook_bindings() -> None:
    """Listen to every binding of every open form, so errors are recorded as they happen.

    Bindings made later are hooked when the probe first looks at their control.
    """
    stack: list[Any] = members_of(WF.Application.OpenForms)
    while stack:
        control = stack.pop()
        if is_a(control, WF.types.Control):
            _bindings_of(control)
            stack.extend(members_of(control.Controls))


def describe_binding(element: Any, binding: Any) -> BindingDescription:
    name = str(binding.PropertyName)
    pd = call(TypeDescriptor, "GetProperties", element).Find(name, True)
    type_name = str(pd.PropertyType.FullName) if pd is not None else "System.Object"
    source = get(binding, "DataSource")
    manager = binding.BindingManagerBase
    has_current = _has_current_item(manager)
    problem = _no_current_item(binding)
    recorded = [r for r in _ERRORS.get(_element_key(element)) if (r.property_name or "").lower() == name.lower()]
    if manager is None:
        status, error = "inactive", "Not bound yet: the control has no BindingContext (is it on a form?)."
    elif problem is not None:
        status, error = "no-current-item", problem
    elif recorded:
        status, error = "error", recorded[-1].message
    elif bool(manager.IsBindingSuspended):
        status, error = "suspended", "The binding manager's binding is suspended (SuspendBinding)."
    else:
        status, error = "active", None
    format_string = str(binding.FormatString or "")
    return BindingDescription(
        property_name=name,
        property_type_name=type_name,
        kind="Binding",
        path=_member_path(binding),
        update_trigger=str(binding.DataSourceUpdateMode),
        control_update_mode=str(binding.ControlUpdateMode),
        string_format=format_string or None,
        formatting_enabled=bool(binding.FormattingEnabled),
        target_null_value=_summary(binding.NullValue),
        source_kind="DataSource",
        source_description=_describe_source(source),
        source_type_name=type_full_name(source),
        has_current_item=has_current,
        status=status,
        error=error,
    )


# -- the error store and the hooks -------------------------------------------


def _element_key(element: Any) -> str:
    global _keys
    if _keys is None:
        _keys = WeakKeys()
    return _keys.key(element)


def _bindings_of(element: Any) -> list[Any]:
    """The control's bindings, each hooked for errors the first time it is seen."""
    collection = getattr(element, "DataBindings", None) if is_a(element, WF.types.Control) else None
    if collection is None or not collection.Count:
        return []
    found = list(collection)
    for binding in found:
        _hook(binding)
    return found


@cache
def _binding_complete() -> Any:
    return WF.types.Binding.GetEvent("BindingComplete")


_handler: Any = None


def _hook(binding: Any) -> None:
    global _hooked, _handler
    if _hooked is None:
        _hooked = WeakKeys()
        SHARED.added(_forget_hooked)
    if _hooked.known(binding) is None:
        _hooked.key(binding)
        if _handler is None:
            _handler = WF.BindingCompleteEventHandler(_on_binding_complete)
        # Through EventInfo, not ``+=``: pythonnet's table of += handlers would keep the binding
        # (and its control, its form) alive; the delegate is one, so it comes off as it went on.
        _binding_complete().AddEventHandler(binding, _handler)
        ref, handler = WeakReference(binding), _handler

        def unhook() -> None:
            target = ref.Target
            if target is not None:
                _binding_complete().RemoveEventHandler(target, handler)

        SHARED.added(unhook)


def _forget_hooked() -> None:
    """The hooks came off: a later attach hooks every binding again."""
    global _hooked
    _hooked = None


def _on_binding_complete(sender: Any, args: Any) -> None:
    # Runs inside the app's own binding code: it must never throw into it.
    if not SHARED.live:
        return  # the probe stopped and this handler could not be taken off (``_hooks``)
    try:
        binding = args.Binding
        control = get(binding, "Control") if binding is not None else None
        if control is None:
            return
        name = str(binding.PropertyName)
        # Measured on Mono: a throwing Format handler reports Exception in
        # ControlUpdate, text that does not parse ("abc" into Int32) Exception in
        # DataSourceUpdate, both only with FormattingEnabled; without it the
        # parse error throws out of the property setter and nothing is raised.
        kind = "format" if str(args.BindingCompleteContext) == "ControlUpdate" else "parse"
        state = str(args.BindingCompleteState)
        key = _element_key(control)
        if state == "Success":
            _ERRORS.discard(key, name, (kind,))
            return
        text = str(args.ErrorText or "")
        if not text and args.Exception is not None:
            text = str(args.Exception.Message)
        step = "formatting the value for the control" if kind == "format" else "writing the value to the source"
        message = f"{state} while {step}: {text or 'no message'}"
        _ERRORS.add(key, name, message, kind=kind, path=_member_path(binding))
    except Exception:  # noqa: BLE001, S110 - recording an error must not become one
        pass


# -- what a binding is bound to ----------------------------------------------


def _member_path(binding: Any) -> str | None:
    member = str(binding.BindingMemberInfo.BindingMember or "")
    return member or None


def _has_current_item(manager: Any) -> bool | None:
    if manager is None:
        return None
    return int(manager.Count) > 0 and int(manager.Position) >= 0


def _no_current_item(binding: Any) -> str | None:
    """Why the binding has no value to show, when its source has no current item."""
    manager = binding.BindingManagerBase
    if manager is None or _has_current_item(manager):
        return None
    return (
        f"The data source has no current item ({_describe_source(get(binding, 'DataSource'))}: "
        f"{int(manager.Count)} items, position {int(manager.Position)}), so {binding.PropertyName} "
        "gets no value from it."
    )


def _describe_source(source: Any) -> str | None:
    if source is None:
        return None
    if is_a(source, WF.types.BindingSource):
        inner = _describe_source(get(source, "DataSource")) or "nothing"
        member = str(source.DataMember or "")
        over = f"{inner}, DataMember {member!r}" if member else inner
        return f"BindingSource over {over}"
    table_name = getattr(source, "TableName", None)
    if table_name is not None:
        return f"DataTable {str(table_name)!r} ({int(source.Rows.Count)} rows)"
    set_name = getattr(source, "DataSetName", None)
    if set_name is not None:
        return f"DataSet {str(set_name)!r}"
    return str(source.GetType().Name) if hasattr(source, "GetType") else type(source).__name__


def _summary(value: Any) -> str | None:
    if value is None:
        return None
    summary = plain(value)
    return None if summary is None else str(summary)
