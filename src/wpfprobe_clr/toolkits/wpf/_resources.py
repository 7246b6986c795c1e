"""Resources: every resource dictionary an element's lookups go through, in WPF's lookup order.

From the element (its own Resources, its style's, its template's) up through
its ancestors and window to the Application's; in each dictionary its own keys
first, then its merged dictionaries, the last merged first. A value is read
only when asked for: reading a deferred resource loads it, as the app's own
first lookup would.
"""

from __future__ import annotations

from typing import Any

from System import Object, Type

from wpfprobe.core.protocol import ItemRef, PlainValue, ResourceEntry
from wpfprobe_clr._values import type_full_name
from wpfprobe_clr.toolkits.wpf._items import _ItemsAdapter
from wpfprobe_clr.toolkits.wpf._load import _WPF_LOAD_ERROR
from wpfprobe_clr.toolkits.wpf._properties import _summary
from wpfprobe_clr.toolkits.wpf._tree import _describe

if _WPF_LOAD_ERROR is None:
    from System.Windows import (
        DependencyObject,
        FrameworkContentElement,
        FrameworkElement,
        LogicalTreeHelper,
        ResourceDictionary,
        Style,
        Window,
    )
    from System.Windows.Controls import Control, ControlTemplate
    from System.Windows.Media import Visual, VisualTreeHelper
    from System.Windows.Media.Media3D import Visual3D


class _ResourcesMixin(_ItemsAdapter):
    """The resource methods of WpfAdapter."""

    def resources(self, element: Any | None) -> list[ResourceEntry]:
        found: list[ResourceEntry] = []
        # A data item looks resources up where its container would: from its list.
        current: Any = self._items_control_of(element) if isinstance(element, ItemRef) else element
        first = True
        while current is not None:
            label = _describe(current)
            kind = "element" if first else ("window" if isinstance(current, Window) else "ancestor")
            if isinstance(current, FrameworkElement):
                _add_dictionary(found, current.Resources, f"{label} Resources", kind, current, [])
                _add_style_resources(found, current.Style, label, current)
                if isinstance(current, Control):
                    template: ControlTemplate | None = current.Template
                    if template is not None:
                        _add_dictionary(found, template.Resources, f"Template of {label}", "template", current, [])
            elif isinstance(current, FrameworkContentElement):
                _add_dictionary(found, current.Resources, f"{label} Resources", kind, current, [])
                _add_style_resources(found, current.Style, label, current)
            first = False
            current = _resource_parent(current)
        app = self._application()
        if app is not None:
            _add_dictionary(found, app.Resources, "Application Resources", "application", None, [])
        return found

    def resource_value_type(self, entry: ResourceEntry) -> str | None:
        return type_full_name(_resource_value(entry))

    def resource_summary(self, entry: ResourceEntry) -> PlainValue:
        return _summary(_resource_value(entry))


def _resource_key(key: Any) -> tuple[str, str]:
    """(display, identity) of a resource key: a Type key is an implicit style or template."""
    if isinstance(key, str):
        return key, f"s:{key}"
    if isinstance(key, Type):
        full = str(key.FullName)
        return f"{{x:Type {key.Name}}}", f"t:{full}"
    text = str(key)
    return text, f"{type_full_name(key)}:{text}"


def _add_dictionary(
    found: list[ResourceEntry],
    dictionary: ResourceDictionary | None,
    origin: str,
    kind: str,
    owner: Any,
    visited: list[ResourceDictionary],
) -> None:
    """Its own keys, then its merged dictionaries, the last merged first (WPF's lookup order)."""
    if dictionary is None or any(Object.ReferenceEquals(dictionary, d) for d in visited):
        return
    visited.append(dictionary)
    key: Object
    for key in dictionary.Keys:
        shown, ident = _resource_key(key)
        found.append(ResourceEntry(shown, ident, None, origin, kind, owner, (dictionary, key)))
    merged: list[ResourceDictionary] = list(dictionary.MergedDictionaries)
    for index in range(len(merged) - 1, -1, -1):
        part: ResourceDictionary = merged[index]
        source = part.Source
        name = str(source) if source is not None else f"#{index}"
        merged_kind = "merged" if kind in ("application", "merged") else kind
        _add_dictionary(found, part, f"{origin} > merged {name}", merged_kind, owner, visited)


def _add_style_resources(found: list[ResourceEntry], style: Style | None, label: str, owner: Any) -> None:
    level = 0
    while style is not None:
        origin = f"Style of {label}" if not level else f"Style of {label} (BasedOn, {level} up)"
        _add_dictionary(found, style.Resources, origin, "style", owner, [])
        style = style.BasedOn
        level += 1


def _resource_value(entry: ResourceEntry) -> Any:
    dictionary: ResourceDictionary = entry.handle[0]
    # Reading it loads a deferred resource, as the app's own first lookup would.
    return dictionary[entry.handle[1]]


def _resource_parent(element: Any) -> Any | None:
    """Where a resource lookup goes next: the logical parent, else the templated or visual parent."""
    if not isinstance(element, DependencyObject):
        return None
    parent = LogicalTreeHelper.GetParent(element)
    if parent is not None:
        return parent
    if isinstance(element, FrameworkElement) and element.TemplatedParent is not None:
        return element.TemplatedParent
    if isinstance(element, (Visual, Visual3D)):
        return VisualTreeHelper.GetParent(element)
    return None


def _find_resource(element: Any, key: object) -> object | None:
    found: object | None = None
    if isinstance(element, FrameworkElement):
        found = element.TryFindResource(key)
    elif isinstance(element, FrameworkContentElement):
        found = element.TryFindResource(key)
    return found
