"""Triggers and behaviors: which style, template and element triggers an element has, and which are active.

Each condition is evaluated on the live element: a property trigger reads the
property, a data trigger follows a plain binding path from its source. A
property redaction hides is not read: the condition says it is redacted
instead of showing the value. Behaviors (Microsoft.Xaml.Behaviors, or the
older System.Windows.Interactivity) are found through the attached property
they live in, matched by name, so neither assembly has to be present.
"""

from __future__ import annotations

from typing import Any

from System import Object, Type
from System.Collections import IEnumerable
from System.ComponentModel import PropertyDescriptor as NetPropertyDescriptor
from System.ComponentModel import PropertyDescriptorCollection, TypeDescriptor

from wpfprobe.core.protocol import (
    BehaviorDescription,
    MayRead,
    PlainValue,
    PropertyDescriptor,
    TriggerCondition,
    TriggerDescription,
    TriggerSetter,
)
from wpfprobe.core.redaction import REDACTED
from wpfprobe_clr._ui_thread import exception_identity
from wpfprobe_clr._values import type_full_name
from wpfprobe_clr.toolkits.wpf._bindings import _dp_name
from wpfprobe_clr.toolkits.wpf._load import _WPF_LOAD_ERROR
from wpfprobe_clr.toolkits.wpf._properties import _summary
from wpfprobe_clr.toolkits.wpf._tree import _describe, _TreeAdapter

if _WPF_LOAD_ERROR is None:
    from System.Windows import (
        Condition,
        DataTrigger,
        DependencyObject,
        DependencyProperty,
        EventTrigger,
        FrameworkElement,
        FrameworkTemplate,
        LocalValueEntry,
        LocalValueEnumerator,
        MultiDataTrigger,
        MultiTrigger,
        PropertyPath,
        RoutedEvent,
        Setter,
        SetterBase,
        Style,
        Trigger,
        TriggerBase,
    )
    from System.Windows.Controls import Control, ControlTemplate
    from System.Windows.Data import Binding, BindingBase, RelativeSource, RelativeSourceMode

_INTERACTION_TYPES = frozenset({"Microsoft.Xaml.Behaviors.Interaction", "System.Windows.Interactivity.Interaction"})
# Plumbing every DependencyObject has; not what a behavior's author set.
_BEHAVIOR_SKIP = frozenset(
    {
        "AssociatedObject",
        "Dispatcher",
        "DependencyObjectType",
        "IsSealed",
        "IsFrozen",
        "CanFreeze",
        "HasAnimatedProperties",
    }
)
_MAX_BEHAVIOR_PROPERTIES = 20


class _TriggersMixin(_TreeAdapter):
    """WpfAdapter.triggers and behaviors."""

    def triggers(self, element: Any, may_read: MayRead) -> list[TriggerDescription]:
        if not isinstance(element, FrameworkElement):
            return []
        found: list[TriggerDescription] = []
        trigger: TriggerBase
        style: Style | None = element.Style
        level = 0
        while style is not None:
            target: Type | None = style.TargetType
            origin = f"Style for {target.Name if target is not None else '?'}"
            if level:
                origin += f" (BasedOn, {level} up)"
            for trigger in style.Triggers:
                found.append(_describe_trigger(element, trigger, "style", origin, None, may_read))
            style = style.BasedOn
            level += 1
        if isinstance(element, Control):
            template: ControlTemplate | None = element.Template
            if template is not None:
                target_type: Type | None = template.TargetType
                origin = f"ControlTemplate for {target_type.Name if target_type is not None else '?'}"
                for trigger in template.Triggers:
                    found.append(_describe_trigger(element, trigger, "template", origin, template, may_read))
        for trigger in element.Triggers:
            found.append(
                _describe_trigger(element, trigger, "element", f"{_describe(element)} Triggers", None, may_read)
            )
        return found

    def behaviors(self, element: Any, may_read: MayRead) -> list[BehaviorDescription]:
        if not isinstance(element, DependencyObject):
            return []
        found: list[BehaviorDescription] = []
        entries: LocalValueEnumerator = element.GetLocalValueEnumerator()
        while entries.MoveNext():
            entry: LocalValueEntry = entries.Current
            dp: DependencyProperty = entry.Property
            owner: Type = dp.OwnerType
            # Matched by name, so neither behaviors assembly has to be present.
            if str(owner.FullName) not in _INTERACTION_TYPES:
                continue
            kind = "trigger" if "Trigger" in str(dp.Name) else "behavior"
            collection: IEnumerable = entry.Value
            item: Object
            for item in collection:
                found.append(_describe_behavior(item, kind, may_read))
        return found


# -- triggers ------------------------------------------------------------------------


def _describe_trigger(
    element: FrameworkElement,
    trigger: TriggerBase,
    source: str,
    origin: str,
    template: FrameworkTemplate | None,
    may_read: MayRead,
) -> TriggerDescription:
    conditions: list[TriggerCondition] = []
    setters: tuple[TriggerSetter, ...] = ()
    event: str | None = None
    condition: Condition
    actions = [f"enter: {type(a).__name__}" for a in trigger.EnterActions]
    actions += [f"exit: {type(a).__name__}" for a in trigger.ExitActions]
    if isinstance(trigger, Trigger):
        kind = "Trigger"
        conditions.append(
            _property_condition(element, trigger.Property, trigger.Value, trigger.SourceName, template, may_read)
        )
        setters = _setters(trigger.Setters, may_read)
    elif isinstance(trigger, MultiTrigger):
        kind = "MultiTrigger"
        for condition in trigger.Conditions:
            conditions.append(
                _property_condition(
                    element, condition.Property, condition.Value, condition.SourceName, template, may_read
                )
            )
        setters = _setters(trigger.Setters, may_read)
    elif isinstance(trigger, DataTrigger):
        kind = "DataTrigger"
        conditions.append(_data_condition(element, trigger.Binding, trigger.Value, may_read))
        setters = _setters(trigger.Setters, may_read)
    elif isinstance(trigger, MultiDataTrigger):
        kind = "MultiDataTrigger"
        for condition in trigger.Conditions:
            conditions.append(_data_condition(element, condition.Binding, condition.Value, may_read))
        setters = _setters(trigger.Setters, may_read)
    elif isinstance(trigger, EventTrigger):
        kind = "EventTrigger"
        routed: RoutedEvent | None = trigger.RoutedEvent
        event = str(routed.Name) if routed is not None else None
        actions += [type(action).__name__ for action in trigger.Actions]
    else:
        kind = type(trigger).__name__
    met = [c.met for c in conditions]
    if not conditions:
        active: bool | None = None  # an EventTrigger fires; it has no state to be in
    elif False in met:
        active = False
    elif None in met:
        active = None
    else:
        active = True
    return TriggerDescription(kind, source, origin, active, tuple(conditions), setters, event, tuple(actions))


def _property_condition(
    element: FrameworkElement,
    dp: DependencyProperty | None,
    expected: Any,
    source_name: str | None,
    template: FrameworkTemplate | None,
    may_read: MayRead,
) -> TriggerCondition:
    wanted = _summary(expected)
    if dp is None:
        return TriggerCondition(None, None, wanted, note="the trigger names no property")
    name = _dp_name(dp)
    declared: Type = dp.PropertyType
    described = PropertyDescriptor(name, str(declared.FullName or declared.Name), None, True)
    source_name = str(source_name or "") or None
    if not may_read(described):
        return TriggerCondition(name, None, None, None, None, source_name, redacted=True)
    target: Any = element
    if source_name is not None:
        target = template.FindName(source_name, element) if template is not None else element.FindName(source_name)
    if not isinstance(target, DependencyObject):
        return TriggerCondition(name, None, wanted, None, None, source_name, note=f"{source_name} was not found")
    current = target.GetValue(dp)
    return TriggerCondition(name, None, wanted, _summary(current), _equal(current, expected), source_name)


def _data_condition(
    element: FrameworkElement, base: BindingBase | None, expected: Any, may_read: MayRead
) -> TriggerCondition:
    wanted = _summary(expected)
    if not isinstance(base, Binding):
        kind = type(base).__name__ if base is not None else "no binding"
        return TriggerCondition(None, kind, wanted, note="not evaluated: only a plain Binding is")
    path: PropertyPath | None = base.Path
    path_text = str(path.Path) if path is not None else ""
    if any(_name_secret(part, may_read) for part in path_text.split(".") if part):
        return TriggerCondition(None, path_text, None, redacted=True)
    if base.Converter is not None or base.XPath or any(c in path_text for c in "[]()/"):
        return TriggerCondition(None, path_text, wanted, note="not evaluated: it uses a converter, XPath or indexer")
    found, value, why = _evaluate_path(element, base, path_text, may_read)
    if not found:
        return TriggerCondition(None, path_text, wanted, note=f"not evaluated: {why}")
    if why == "redacted":
        return TriggerCondition(None, path_text, None, redacted=True)
    return TriggerCondition(None, path_text, wanted, _summary(value), _equal(value, expected))


def _name_secret(name: str, may_read: MayRead) -> bool:
    return not may_read(PropertyDescriptor(name, "System.Object", None, True))


def _evaluate_path(element: FrameworkElement, binding: Binding, path: str, may_read: MayRead) -> tuple[bool, Any, str]:
    """(evaluated, value, why not / "redacted") of a plain binding path from the binding's source."""
    relative: RelativeSource | None = binding.RelativeSource
    source: Any
    if binding.ElementName:
        source = element.FindName(binding.ElementName)
        if source is None:
            return False, None, f"no element named {binding.ElementName}"
    elif relative is not None:
        mode = str(relative.Mode)
        if mode == str(RelativeSourceMode.Self):
            source = element
        elif mode == str(RelativeSourceMode.TemplatedParent):
            source = element.TemplatedParent
        else:
            return False, None, f"RelativeSource {mode} is not evaluated"
    elif binding.Source is not None:
        source = binding.Source
    else:
        source = element.DataContext
    value = source
    for segment in [p for p in path.split(".") if p]:
        if value is None:
            return True, None, ""
        descriptor: NetPropertyDescriptor | None = TypeDescriptor.GetProperties(value).Find(segment, False)
        if descriptor is None:
            return False, None, f"{type_full_name(value)} has no property {segment}"
        declared: Type = descriptor.PropertyType
        if not may_read(PropertyDescriptor(segment, str(declared.FullName or declared.Name), None, True)):
            return True, None, "redacted"
        value = descriptor.GetValue(value)
    return True, value, ""


def _equal(current: Any, expected: Any) -> bool:
    if current is None or expected is None:
        return current is None and expected is None
    if bool(Object.Equals(current, expected)):
        return True
    # XAML leaves a DataTrigger's Value a string when it cannot know the source type.
    return str(current).lower() == str(expected).lower()


def _setters(collection: Any, may_read: MayRead) -> tuple[TriggerSetter, ...]:
    found: list[TriggerSetter] = []
    setter_base: SetterBase
    for setter_base in collection:
        if not isinstance(setter_base, Setter):
            continue
        dp: DependencyProperty | None = setter_base.Property
        if dp is None:
            continue
        declared: Type = dp.PropertyType
        name = _dp_name(dp)
        target = str(setter_base.TargetName or "") or None
        if not may_read(PropertyDescriptor(name, str(declared.FullName or declared.Name), None, True)):
            found.append(TriggerSetter(name, None, target, redacted=True))
        else:
            found.append(TriggerSetter(name, _summary(setter_base.Value), target))
    return tuple(found)


# -- behaviors -----------------------------------------------------------------------


def _describe_behavior(item: Any, kind: str, may_read: MayRead) -> BehaviorDescription:
    net_type: Type = item.GetType()
    assembly_name = str(net_type.Assembly.GetName().Name)
    values: list[tuple[str, PlainValue]] = []
    collection: PropertyDescriptorCollection = TypeDescriptor.GetProperties(item)
    net: NetPropertyDescriptor
    for net in collection:
        name = str(net.Name)
        if name in _BEHAVIOR_SKIP or len(values) >= _MAX_BEHAVIOR_PROPERTIES:
            continue
        declared: Type = net.PropertyType
        described = PropertyDescriptor(name, str(declared.FullName or declared.Name), None, bool(net.IsReadOnly))
        if not may_read(described):
            values.append((name, REDACTED))
            continue
        try:
            values.append((name, _summary(net.GetValue(item))))
        except Exception as exc:  # noqa: BLE001 - a behavior's getter may throw; show that
            error_kind, message = exception_identity(exc)
            values.append((name, f"<{error_kind}: {message}>"[:200]))
    actions = getattr(item, "Actions", None)
    names = tuple(type(a).__name__ for a in actions) if actions is not None else ()
    return BehaviorDescription(kind, str(net_type.FullName), assembly_name, tuple(values), names)
