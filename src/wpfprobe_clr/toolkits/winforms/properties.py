"""Properties through TypeDescriptor: listing them, reading them, setting them.

TypeDescriptor is what the designer and data binding use, so the list is the one
a WinForms developer knows, and a descriptor can say whether a value was set
(ShouldSerializeValue) or is runtime state. Text has a fast path, because every
tree node reads it: one getter, no descriptor. A password box's secrets are
marked before any getter runs (the redaction invariant), from its kind and the
property's name alone. A control of a class written in Python is read
through ``net.derived`` (TypeDescriptor is handed the object in .NET), and its
``clrproperty``s are listed like any property: TypeDescriptor sees them, and a
getter that throws costs its own row.
"""

from __future__ import annotations

from typing import Any

from System import ArgumentException, Convert, Enum, Nullable
from System.ComponentModel import TypeDescriptor
from System.Globalization import CultureInfo
from System.Reflection import TargetInvocationException

from wpfprobe.core.convert import Converted, EnumSpec, conversion_error
from wpfprobe.core.errors import PropertyReadOnlyError
from wpfprobe.core.protocol import ItemRef, PropertyDescriptor, PropertyReading
from wpfprobe_clr._build import build_value, enum_spec_of
from wpfprobe_clr._values import to_plain, type_full_name
from wpfprobe_clr.net.derived import call, has_member, is_a
from wpfprobe_clr.net.lazy import clr_namespace
from wpfprobe_clr.toolkits._access_keys import strip_access_key
from wpfprobe_clr.toolkits.winforms import items, limits
from wpfprobe_clr.toolkits.winforms.bindings import binding_errors, binding_for
from wpfprobe_clr.toolkits.winforms.kinds import is_menu, is_password_box
from wpfprobe_clr.toolkits.winforms.values import plain

WF = clr_namespace("System.Windows.Forms")

# A password box keeps its secret in these properties, whatever their names say.
_PASSWORD_BOX_SECRETS = frozenset({"Text", "Lines", "SelectedText"})
#: The handle of Text's descriptor on the fast path: read the getter, not TypeDescriptor.
_TEXT_FAST = object()


def display_text(element: Any, raw: str) -> tuple[str, str | None]:
    """Captions that process mnemonics read without their "&": "Save &As" is "Save As", key A."""
    if is_a(element, (WF.types.ButtonBase, WF.types.Label)):
        # UseMnemonic false draws the "&" as it is.
        return strip_access_key(raw, "&") if bool(element.UseMnemonic) else (raw, None)
    if is_a(element, (WF.types.ToolStripItem, WF.types.GroupBox)) or is_menu(element):
        return strip_access_key(raw, "&")
    return raw, None


def text_property(element: Any) -> PropertyDescriptor | None:
    item = items.item_of(element)
    if item is not None:
        # What the owner draws for the item (a list's GetItemText, a cell's formatted value).
        return _fact_descriptor(items.Fact("Text", "System.String", item.text))
    if is_a(element, (WF.types.Control, WF.types.ToolStripItem)) or is_menu(element):
        if not has_member(element, "Text"):
            return None
        return PropertyDescriptor(
            "Text", "System.String", None, False, secret=is_password_box(element), handle=_TEXT_FAST
        )
    return None


def control_text_property() -> PropertyDescriptor:
    """The Text of a control that is not a password box: what the .NET walk reads (``walker.py``)."""
    return PropertyDescriptor("Text", "System.String", None, False, secret=False, handle=_TEXT_FAST)


def properties(element: Any) -> list[PropertyDescriptor]:
    item = items.item_of(element)
    facts = [_fact_descriptor(f) for f in item.facts(element)] if item is not None else []
    if isinstance(element, ItemRef):
        return facts  # a value in its owner's list: the facts are all it has
    secrets = _PASSWORD_BOX_SECRETS if is_password_box(element) else frozenset()
    own = {f.name.lower() for f in facts}
    listed = [
        _describe(pd, secrets)
        for pd in call(TypeDescriptor, "GetProperties", element)
        if str(pd.Name).lower() not in own
    ]
    return listed + facts


def find_property(element: Any, name: str) -> PropertyDescriptor | None:
    item = items.item_of(element)
    if item is not None:
        for fact in item.facts(element):
            if fact.name.lower() == name.lower():
                return _fact_descriptor(fact)
        if isinstance(element, ItemRef):
            return None
    pd = call(TypeDescriptor, "GetProperties", element).Find(name, True)
    if pd is None:
        return None
    secrets = _PASSWORD_BOX_SECRETS if is_password_box(element) else frozenset()
    return _describe(pd, secrets)


def read_property(element: Any, prop: PropertyDescriptor) -> PropertyReading:
    if prop.handle is _TEXT_FAST:
        # The hot path of every tree node: one getter, nothing else.
        text = element.Text
        return PropertyReading(to_plain(text), "System.String", "local" if text else "default", bool(text), False)
    if isinstance(prop.handle, items.Fact):
        value = prop.handle.read(element)
        return PropertyReading(plain(value), type_full_name(value) or prop.type_name, items.FACT_SOURCE, False, False)
    pd = prop.handle
    # A getter that throws propagates: the engine turns it into this one row's error.
    raw = call(pd, "GetValue", element)
    binding = binding_for(element, prop.name)
    if binding is not None:
        errors = [r for r in binding_errors(element) if (r.property_name or "").lower() == prop.name.lower()]
        # What the binding is in now first, else the most recent error.
        error = (errors[0] if errors[0].kind == "status" else errors[-1]).message if errors else None
        return PropertyReading(plain(raw), type_full_name(raw), "binding", True, True, binding_error=error)
    if not pd.IsBrowsable or str(pd.SerializationVisibility) == "Hidden":
        # Runtime state (Parent, Capture, Bounds...), not a setting anyone made:
        # ShouldSerializeValue says "set" for anything without a known default.
        return PropertyReading(plain(raw), type_full_name(raw), "runtime", False, False)
    try:
        local = bool(call(pd, "ShouldSerializeValue", element))
    except Exception:  # noqa: BLE001 - some descriptors cannot say; treat as default
        local = False
    return PropertyReading(plain(raw), type_full_name(raw), "local" if local else "default", local, False)


def enum_spec(prop: PropertyDescriptor) -> EnumSpec | None:
    pd = prop.handle
    if pd is None or pd is _TEXT_FAST or isinstance(pd, items.Fact):
        return None
    return enum_spec_of(pd.PropertyType)


def set_value(element: Any, prop: PropertyDescriptor, value: Converted) -> None:
    pd = prop.handle
    if pd is _TEXT_FAST:
        pd = call(TypeDescriptor, "GetProperties", element).Find(prop.name, True)
    if pd is None or isinstance(pd, items.Fact) or pd.IsReadOnly:
        raise PropertyReadOnlyError(f"{prop.name} is read-only.", suggestion="Set a writable property instead.")
    limits.check_value(prop, value)
    built = build_value(value, pd.PropertyType)
    previous = _net_value(call(pd, "GetValue", element), pd.PropertyType)
    try:
        call(pd, "SetValue", element, built)
    except (ArgumentException, TargetInvocationException) as exc:
        inner = getattr(exc, "InnerException", None) or exc
        if not isinstance(inner, ArgumentException) and not isinstance(exc, ArgumentException):
            raise
        raise conversion_error(
            prop.type_name, "the property refused the value", toolkit="winforms", property_name=prop.name
        ) from None
    grown = limits.oversized()
    if grown is not None:
        # Still inside the hop: no paint has seen the size yet.
        call(pd, "SetValue", element, previous)
        raise limits.grown_error(prop, grown)


def _net_value(value: Any, declared: Any) -> Any:
    """``value`` as read back through pythonnet, made a .NET value of ``declared`` again: a number came
    back as a Python int or float, which a descriptor's SetValue(object) would not take."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    underlying = Nullable.GetUnderlyingType(declared) or declared
    if underlying.IsEnum:
        return Enum.ToObject(underlying, value)
    return Convert.ChangeType(value, underlying, CultureInfo.InvariantCulture)


def _fact_descriptor(fact: items.Fact) -> PropertyDescriptor:
    return PropertyDescriptor(fact.name, fact.type_name, "Item", True, handle=fact)


def _describe(pd: Any, secrets: frozenset[str]) -> PropertyDescriptor:
    name = str(pd.Name)
    return PropertyDescriptor(
        name=name,
        type_name=str(pd.PropertyType.FullName or pd.PropertyType.Name),
        category=str(pd.Category) if pd.Category else None,
        read_only=bool(pd.IsReadOnly),
        secret=name in secrets,
        handle=pd,
    )
