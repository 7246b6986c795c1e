"""What toolkit-mode input shares: automation peers and their pattern providers, commands, routed events.

Toolkit mode acts as a user would, through WPF's own automation peers (the
Invoke, Toggle, SelectionItem, ExpandCollapse and Value patterns: what UI
Automation clients use) and through routed input events raised on the
element, so the app's handlers, commands and bindings run as they would for
real input. Automation peers implement their pattern interfaces explicitly,
so the members are reachable only through pythonnet's interface cast:
``IInvokeProvider(provider).Invoke()`` (checked by tests/unit/wpf_surface.py
against the interface's members in wpf-api.tsv).
"""

from __future__ import annotations

from typing import Any, Protocol

from wpfprobe.core.errors import ElementNotInteractableError
from wpfprobe_clr.toolkits.wpf._load import _WPF_LOAD_ERROR
from wpfprobe_clr.toolkits.wpf._tree import _describe

if _WPF_LOAD_ERROR is None:
    from System.Windows import (
        ContentElement,
        DependencyObject,
        PresentationSource,
        RoutedEventArgs,
        UIElement,
        UIElement3D,
    )
    from System.Windows.Automation import ExpandCollapseState
    from System.Windows.Automation.Peers import (
        AutomationPeer,
        ContentElementAutomationPeer,
        PatternInterface,
        UIElementAutomationPeer,
    )
    from System.Windows.Automation.Provider import IExpandCollapseProvider
    from System.Windows.Input import RoutedCommand

    _EXPANDED = str(ExpandCollapseState.Expanded)


class _Command(Protocol):
    """System.Windows.Input.ICommand: a BCL interface (System / System.ObjectModel), not in wpf-api.tsv."""

    def CanExecute(self, parameter: object) -> bool: ...

    def Execute(self, parameter: object) -> None: ...


def _unwrap(value: Any) -> Any:
    """The object itself when pythonnet hands it back wrapped in an interface (IInputElement, ICommand)."""
    return getattr(value, "__implementation__", value)


def _peer(element: Any) -> AutomationPeer | None:
    """The element's automation peer (created on first use, as for a UI Automation client)."""
    try:
        if isinstance(element, UIElement):
            return UIElementAutomationPeer.CreatePeerForElement(element)
        if isinstance(element, ContentElement):
            return ContentElementAutomationPeer.CreatePeerForElement(element)
    except Exception:  # noqa: BLE001 - an app's OnCreateAutomationPeer may throw: then it has none
        return None
    return None


def _pattern(element: Any, pattern: PatternInterface) -> object | None:
    """The element's automation pattern provider, or None if its peer does not support it."""
    peer = _peer(element)
    if peer is None:
        return None
    try:
        provider: object | None = peer.GetPattern(pattern)
    except Exception:  # noqa: BLE001 - a custom peer may throw: then it has no such pattern
        return None
    return provider


def _flip(provider: object) -> None:
    pattern = IExpandCollapseProvider(provider)
    if str(pattern.ExpandCollapseState) == _EXPANDED:
        pattern.Collapse()
    else:
        pattern.Expand()


def _run_command(command: _Command | None, parameter: object, command_target: Any, source: Any) -> None:
    """Execute a command source's command as WPF does after a click or a key gesture."""
    if command is None:
        return
    routed = _unwrap(command)
    if isinstance(routed, RoutedCommand):
        # A routed command goes to its CommandTarget, else to the element it came from.
        target = _unwrap(command_target)
        if not isinstance(target, (UIElement, ContentElement, UIElement3D)):
            target = source
        if routed.CanExecute(parameter, target):
            routed.Execute(parameter, target)
        return
    if command.CanExecute(parameter):
        command.Execute(parameter)


def _args(*values: Any) -> tuple[Any, ...]:
    """Constructor arguments of the input event args, passed as ``T(*_args(...))``.

    Their signatures in wpf-api.tsv end in a ``: base(...)`` clause that
    tests/unit/wpf_surface.py counts as parameters (KeyEventArgs would "take
    5"), so the count is left to pythonnet; the types are still checked.
    """
    return values


def _raise(target: Any, args: RoutedEventArgs) -> None:
    if isinstance(target, UIElement):
        target.RaiseEvent(args)
    elif isinstance(target, ContentElement):
        target.RaiseEvent(args)
    elif isinstance(target, UIElement3D):
        target.RaiseEvent(args)


def _source_of(target: Any) -> PresentationSource | None:
    if isinstance(target, DependencyObject):
        return PresentationSource.FromDependencyObject(target)
    return None


def _cannot(element: Any, what: str, suggestion: str) -> ElementNotInteractableError:
    return ElementNotInteractableError(
        f"{_describe(element)} does not support {what}.",
        suggestion=suggestion,
        detail={"reason": "unsupported"},
    )
