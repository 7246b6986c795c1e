"""Bindings: what each of an element's bindings is, where it takes its value from, and its errors.

Every binding on an element (its local values, and what its style setters
bind: a style's binding is not a local value) is described as the engine shows
it: kind, path, mode and update trigger (WPF's defaults named as such),
converter, source, status, and the parts of a Multi- or PriorityBinding.
Errors come from the binding's status and from WPF's binding trace
(``_binding_trace``).
"""

from __future__ import annotations

from typing import Any

from System import Object, Type

from wpfprobe.core.protocol import BindingDescription, BindingErrorRecord, PropertyDescriptor
from wpfprobe_clr._values import type_full_name
from wpfprobe_clr.toolkits.wpf._binding_trace import _TRACE_ERRORS, _binding_error, _trace_keys
from wpfprobe_clr.toolkits.wpf._load import _WPF_LOAD_ERROR
from wpfprobe_clr.toolkits.wpf._properties import _PropertyHandle, _set_summary, _summary_text
from wpfprobe_clr.toolkits.wpf._tree import _TreeAdapter

if _WPF_LOAD_ERROR is None:
    from System.Windows import (
        DependencyObject,
        DependencyProperty,
        FrameworkContentElement,
        FrameworkElement,
        FrameworkPropertyMetadata,
        LocalValueEntry,
        LocalValueEnumerator,
        PropertyMetadata,
        PropertyPath,
        Setter,
        SetterBase,
        Style,
        TemplateBindingExpression,
        TemplateBindingExtension,
    )
    from System.Windows.Data import (
        Binding,
        BindingBase,
        BindingExpression,
        BindingExpressionBase,
        BindingMode,
        BindingOperations,
        BindingStatus,
        MultiBinding,
        MultiBindingExpression,
        PriorityBinding,
        PriorityBindingExpression,
        RelativeSource,
        RelativeSourceMode,
        UpdateSourceTrigger,
    )

    _STATUS_NAMES: dict[str, str] = {
        str(BindingStatus.Unattached): "unattached",
        str(BindingStatus.Inactive): "inactive",
        str(BindingStatus.Active): "active",
        str(BindingStatus.Detached): "detached",
        str(BindingStatus.AsyncRequestPending): "async-request-pending",
        str(BindingStatus.PathError): "path-error",
        str(BindingStatus.UpdateTargetError): "update-target-error",
        str(BindingStatus.UpdateSourceError): "update-source-error",
    }
    _DEFAULT_MODE = str(BindingMode.Default)
    _DEFAULT_TRIGGER = str(UpdateSourceTrigger.Default)
    _FIND_ANCESTOR = str(RelativeSourceMode.FindAncestor)


class _BindingsMixin(_TreeAdapter):
    """The binding methods of WpfAdapter."""

    def bindings(self, element: Any) -> list[BindingDescription]:
        if not isinstance(element, DependencyObject):
            return []
        found: list[BindingDescription] = []
        seen: set[str] = set()
        for dp in _bindable_properties(element):
            name = _dp_name(dp)
            if name.lower() in seen:
                continue
            seen.add(name.lower())
            described = _describe_dp_binding(element, dp, name)
            if described is not None:
                found.append(described)
        return found

    def binding(self, element: Any, prop: PropertyDescriptor) -> BindingDescription | None:
        handle: _PropertyHandle | None = prop.handle if isinstance(prop.handle, _PropertyHandle) else None
        if handle is None or handle.dp is None or not isinstance(element, DependencyObject):
            return None
        return _describe_dp_binding(element, handle.dp, prop.name)

    def binding_errors(self, element: Any) -> list[BindingErrorRecord]:
        if not isinstance(element, DependencyObject):
            return []
        described = {d.property_name.lower(): d for d in self.bindings(element)}
        traced: list[BindingErrorRecord] = []
        for key in _trace_keys(element, self._type_names_of(element)[0]):
            for record in _TRACE_ERRORS.get(key):
                desc = described.get((record.property_name or "").lower())
                # The trace names its target by type and name only: a record counts
                # for this element when it has that binding (same path) now.
                if desc is None or (record.path and desc.path and record.path != desc.path):
                    continue
                traced.append(record)
        seen = {(r.property_name or "").lower() for r in traced}
        live = [
            BindingErrorRecord(d.property_name, d.error, 1, "status", d.path)
            for name, d in described.items()
            if d.error is not None and name not in seen
        ]
        return live + traced

    def binding_error_count(self, element: Any) -> int:
        return len(self.binding_errors(element))


def _dp_name(dp: DependencyProperty) -> str:
    return str(dp.Name)


def _style_of(element: DependencyObject) -> Style | None:
    if isinstance(element, FrameworkElement):
        return element.Style
    if isinstance(element, FrameworkContentElement):
        return element.Style
    return None


def _bindable_properties(element: DependencyObject) -> list[DependencyProperty]:
    """Local values, plus what the element's style setters set: a style's binding is not a local value."""
    found: list[DependencyProperty] = []
    entries: LocalValueEnumerator = element.GetLocalValueEnumerator()
    while entries.MoveNext():
        entry: LocalValueEntry = entries.Current
        found.append(entry.Property)
    style = _style_of(element)
    setter_base: SetterBase
    while style is not None:
        for setter_base in style.Setters:
            if isinstance(setter_base, Setter) and isinstance(setter_base.Value, BindingBase):
                found.append(setter_base.Property)
        style = style.BasedOn
    return found


def _describe_dp_binding(element: DependencyObject, dp: DependencyProperty, name: str) -> BindingDescription | None:
    declared: Type = dp.PropertyType
    type_name = str(declared.FullName or declared.Name)
    expression = BindingOperations.GetBindingExpressionBase(element, dp)
    if expression is not None:
        return _describe_expression(element, dp, name, type_name, expression)
    local = element.ReadLocalValue(dp)
    if isinstance(local, TemplateBindingExpression):
        extension: TemplateBindingExtension = local.TemplateBindingExtension
        source: DependencyProperty | None = extension.Property
        parent: DependencyObject | None = element.TemplatedParent if isinstance(element, FrameworkElement) else None
        return BindingDescription(
            property_name=name,
            property_type_name=type_name,
            kind="TemplateBinding",
            path=_dp_name(source) if source is not None else None,
            mode="OneWay",
            converter_type=type_full_name(extension.Converter),
            converter_parameter=_summary_text(extension.ConverterParameter),
            source_kind="RelativeSource",
            source_description="TemplatedParent",
            source_type_name=type_full_name(parent),
            status="active" if parent is not None else "inactive",
        )
    return None


def _describe_expression(
    element: DependencyObject, dp: DependencyProperty, name: str, type_name: str, expression: BindingExpressionBase
) -> BindingDescription:
    status = _STATUS_NAMES.get(str(expression.Status), str(expression.Status).lower())
    if status == "active" and bool(expression.HasValidationError):
        status = "validation-error"
    context: Any = None
    has_context = False
    if isinstance(element, FrameworkElement):
        context, has_context = element.DataContext, True
    elif isinstance(element, FrameworkContentElement):
        context, has_context = element.DataContext, True
    common: dict[str, Any] = {
        "property_name": name,
        "property_type_name": type_name,
        "status": status,
        "error": _binding_error(expression),
        "data_context_is_null": (context is None) if has_context else None,
        "data_context_type": type_full_name(context),
    }
    child: BindingExpressionBase
    if isinstance(expression, BindingExpression):
        binding: Binding = expression.ParentBinding
        kind, description = _binding_source(binding)
        path: PropertyPath | None = binding.Path
        path_text = str(path.Path) if path is not None else ""
        if binding.XPath:
            path_text = f"{path_text} XPath={binding.XPath}".strip()
        return BindingDescription(
            kind="Binding",
            path=path_text or None,
            mode=_mode(element, dp, binding.Mode),
            update_trigger=_update_trigger(element, dp, binding.UpdateSourceTrigger),
            converter_type=type_full_name(binding.Converter),
            converter_parameter=_summary_text(binding.ConverterParameter),
            string_format=str(binding.StringFormat or "") or None,
            fallback_value=_set_summary(binding.FallbackValue),
            target_null_value=_set_summary(binding.TargetNullValue),
            source_kind=kind,  # type: ignore[arg-type]
            source_description=description,
            source_type_name=type_full_name(expression.DataItem),
            **common,
        )
    if isinstance(expression, MultiBindingExpression):
        multi: MultiBinding = expression.ParentMultiBinding
        parts = []
        for child in expression.BindingExpressions:
            parts.append(_describe_expression(element, dp, name, type_name, child))
        return BindingDescription(
            kind="MultiBinding",
            mode=_mode(element, dp, multi.Mode),
            update_trigger=_update_trigger(element, dp, multi.UpdateSourceTrigger),
            converter_type=type_full_name(multi.Converter),
            converter_parameter=_summary_text(multi.ConverterParameter),
            string_format=str(multi.StringFormat or "") or None,
            fallback_value=_set_summary(multi.FallbackValue),
            children=tuple(parts),
            **common,
        )
    if isinstance(expression, PriorityBindingExpression):
        priority: PriorityBinding = expression.ParentPriorityBinding
        active: BindingExpressionBase | None = expression.ActiveBindingExpression
        parts = []
        active_index: int | None = None
        for index, child in enumerate(expression.BindingExpressions):
            if active is not None and Object.ReferenceEquals(child, active):
                active_index = index
            parts.append(_describe_expression(element, dp, name, type_name, child))
        chosen = f"part {active_index} is active" if active_index is not None else "no part has a value yet"
        return BindingDescription(
            kind="PriorityBinding",
            fallback_value=_set_summary(priority.FallbackValue),
            source_description=chosen,
            children=tuple(parts),
            **common,
        )
    return BindingDescription(kind=str(expression.GetType().Name), **common)


def _binding_source(binding: Binding) -> tuple[str, str]:
    if binding.ElementName:
        return "ElementName", f"ElementName={binding.ElementName}"
    relative: RelativeSource | None = binding.RelativeSource
    if relative is not None:
        mode = str(relative.Mode)
        if mode == _FIND_ANCESTOR:
            ancestor: Type | None = relative.AncestorType
            kind = ancestor.Name if ancestor is not None else "?"
            return "RelativeSource", f"FindAncestor {kind}, level {int(relative.AncestorLevel)}"
        return "RelativeSource", mode
    if binding.Source is not None:
        return "Source", f"Source={type_full_name(binding.Source)}"
    return "DataContext", "the DataContext (set on the element or inherited from an ancestor)"


def _mode(element: DependencyObject, dp: DependencyProperty, mode: BindingMode) -> str:
    text = str(mode)
    if text != _DEFAULT_MODE:
        return text
    metadata: PropertyMetadata = dp.GetMetadata(element.DependencyObjectType)
    two_way = isinstance(metadata, FrameworkPropertyMetadata) and bool(metadata.BindsTwoWayByDefault)
    return "TwoWay (default)" if two_way else "OneWay (default)"


def _update_trigger(element: DependencyObject, dp: DependencyProperty, trigger: UpdateSourceTrigger) -> str:
    text = str(trigger)
    if text != _DEFAULT_TRIGGER:
        return text
    metadata: PropertyMetadata = dp.GetMetadata(element.DependencyObjectType)
    if isinstance(metadata, FrameworkPropertyMetadata):
        return f"{metadata.DefaultUpdateSourceTrigger} (default)"
    return "PropertyChanged (default)"
