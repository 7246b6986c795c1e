"""Diagnostic facts: what the audit rules need to know about one element.

Its bounds and client area, the layout slot it is cut to, whether it
scrolls, its place in the tab order, whether it has an accessible name, how
many items it shows and whether its panel virtualizes them, and the
DynamicResource keys set on it that find nothing.
"""

from __future__ import annotations

import math
from typing import Any

from System import Type
from System.Reflection import PropertyInfo

from wpfprobe.core.protocol import Bounds, DiagnosticFacts
from wpfprobe_clr._values import type_full_name
from wpfprobe_clr.toolkits.wpf._items import _ItemsAdapter
from wpfprobe_clr.toolkits.wpf._load import _WPF_LOAD_ERROR
from wpfprobe_clr.toolkits.wpf._resources import _find_resource

if _WPF_LOAD_ERROR is None:
    from System.Windows import (
        DependencyObject,
        DependencyProperty,
        FrameworkContentElement,
        FrameworkElement,
        LocalValueEntry,
        LocalValueEnumerator,
        Point,
        PresentationSource,
        Rect,
        UIElement,
        Window,
    )
    from System.Windows.Automation import AutomationProperties
    from System.Windows.Controls import (
        ItemCollection,
        ItemsControl,
        ScrollContentPresenter,
        ScrollViewer,
        VirtualizingPanel,
    )
    from System.Windows.Controls.Primitives import LayoutInformation
    from System.Windows.Input import KeyboardNavigation
    from System.Windows.Media import VisualTreeHelper


class _DiagnosticsMixin(_ItemsAdapter):
    """WpfAdapter.diagnostic_facts and what it is made of."""

    def diagnostic_facts(self, element: Any, memo: dict[Any, Any]) -> DiagnosticFacts:
        if not isinstance(element, UIElement):
            return DiagnosticFacts(unresolved_resources=self._unresolved_resources(element))
        bounds = self.bounds(element)
        item_count: int | None = None
        virtualized: bool | None = None
        if isinstance(element, ItemsControl):
            items: ItemCollection = element.Items
            item_count = int(items.Count)
            virtualized = self._virtualizes(element)
        return DiagnosticFacts(
            bounds=bounds,
            client_area=bounds if bool(element.ClipToBounds) or isinstance(element, Window) else None,
            clip=self._layout_clip(element),
            scrolls=isinstance(element, (ScrollContentPresenter, ScrollViewer)),
            tab_index=int(KeyboardNavigation.GetTabIndex(element)),
            tab_stop=bool(KeyboardNavigation.GetIsTabStop(element)) and bool(element.Focusable),
            has_accessible_name=bool(str(AutomationProperties.GetName(element) or "")),
            item_count=item_count,
            virtualized=virtualized,
            unresolved_resources=self._unresolved_resources(element),
        )

    def _virtualizes(self, control: ItemsControl) -> bool | None:
        """Whether the control's items panel creates containers only for what shows; None before it has one."""
        host = self._items_host(control)
        if host is None:
            return None
        if not isinstance(host, VirtualizingPanel):
            return False
        if control.IsGrouping and not VirtualizingPanel.GetIsVirtualizingWhenGrouping(control):
            return False
        return bool(VirtualizingPanel.GetIsVirtualizing(control)) and bool(ScrollViewer.GetCanContentScroll(control))

    def _layout_clip(self, element: UIElement) -> Bounds | None:
        """The layout slot the element is cut to when it is larger than the space it was given (screen px)."""
        if not isinstance(element, FrameworkElement) or LayoutInformation.GetLayoutClip(element) is None:
            return None
        parent = VisualTreeHelper.GetParent(element)
        if not isinstance(parent, UIElement):
            return None
        if PresentationSource.FromVisual(parent) is None:
            return None
        slot: Rect = LayoutInformation.GetLayoutSlot(element)
        if slot.IsEmpty:
            return None
        try:
            top_left: Point = parent.PointToScreen(slot.TopLeft)
            bottom_right: Point = parent.PointToScreen(slot.BottomRight)
        except Exception:  # noqa: BLE001 - the source can go away between the check and the call
            return None
        x, y = math.floor(top_left.X + 0.5), math.floor(top_left.Y + 0.5)
        return Bounds(x, y, math.floor(bottom_right.X + 0.5) - x, math.floor(bottom_right.Y + 0.5) - y)

    def _unresolved_resources(self, element: Any) -> tuple[tuple[str, str], ...]:
        """(property, key) of each DynamicResource set on the element whose key finds nothing."""
        if not isinstance(element, (FrameworkElement, FrameworkContentElement)):
            return ()
        owner: DependencyObject = element
        found: list[tuple[str, str]] = []
        entries: LocalValueEnumerator = owner.GetLocalValueEnumerator()
        while entries.MoveNext():
            entry: LocalValueEntry = entries.Current
            value: Any = entry.Value
            if value is None or type_full_name(value) != "System.Windows.ResourceReferenceExpression":
                continue
            # The expression type is internal; its ResourceKey property is public.
            reflected: Type = value.GetType()
            info: PropertyInfo | None = reflected.GetProperty("ResourceKey")
            key = info.GetValue(value, None) if info is not None else None
            if key is not None and _find_resource(element, key) is None:
                dp: DependencyProperty = entry.Property
                found.append((str(dp.Name), str(key)[:200]))
        return tuple(found)
