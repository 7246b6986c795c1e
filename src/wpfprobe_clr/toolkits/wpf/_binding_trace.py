"""Binding errors: what a binding expression's status says, and what WPF's binding trace reports.

A broken binding shows in its expression's status (a path error, a failed
update, a validation error) while it is live. WPF's data binding trace
(PresentationTraceSources.DataBindingSource) reports errors as they happen,
bindings that never attached included: the listener parses each trace line
into the process-wide store, keyed by the target element as the trace names
it (type and x:Name, else hash code). The listener is plain BCL
(System.Diagnostics), so it runs, and is tested, where WPF does not. It is one
of ``_hooks.SHARED``'s: the last probe's stop takes it off again (and puts
back the trace level it raised), and a later attach adds it again.
"""

from __future__ import annotations

import contextlib
import re
from typing import Any

from System.Diagnostics import SourceLevels, TraceListener

from wpfprobe_clr._binding_errors import BindingErrorStore
from wpfprobe_clr._hooks import SHARED
from wpfprobe_clr._values import to_plain, type_full_name
from wpfprobe_clr.toolkits.wpf._load import _WPF_LOAD_ERROR

if _WPF_LOAD_ERROR is None:
    from System.Diagnostics import PresentationTraceSources
    from System.Windows import DependencyObject, FrameworkContentElement, FrameworkElement
    from System.Windows.Controls import ValidationError
    from System.Windows.Data import Binding, BindingExpression, BindingExpressionBase, BindingStatus

    _BINDING_ERROR_STATUSES = frozenset(
        {
            str(BindingStatus.PathError),
            str(BindingStatus.UpdateTargetError),
            str(BindingStatus.UpdateSourceError),
        }
    )
    _PATH_ERROR = str(BindingStatus.PathError)


def _binding_error(expression: BindingExpressionBase) -> str | None:
    status = str(expression.Status)
    has_error = bool(expression.HasError)
    if status not in _BINDING_ERROR_STATUSES and not has_error:
        return None
    path = ""
    source_type = "null"
    if isinstance(expression, BindingExpression):
        binding: Binding = expression.ParentBinding
        if binding is not None and binding.Path is not None:
            path = str(binding.Path.Path)
        source_type = type_full_name(expression.DataItem) or "null"
    if status == _PATH_ERROR:
        return f"Path error: property '{path}' not found on {source_type}"
    if has_error:
        error: ValidationError | None = expression.ValidationError
        if error is not None:
            return f"Validation error on '{path}': {to_plain(error.ErrorContent)}"
    return f"{status} on '{path}' (source {source_type})"


# -- binding errors as they happen: WPF's binding trace ----------------------------

_TRACE_ERRORS = BindingErrorStore()
# "System.Windows.Data Error: 40 : ": the source's name, the level and the event id.
_TRACE_HEADER = re.compile(r"^\S+ (?P<level>\w+): (?P<code>\d+) : ")
_TRACE_TARGET = re.compile(
    r"target element is '(?P<type>[^']*)' \((?:Name='(?P<name>[^']*)'|HashCode=(?P<hash>-?\d+))\)"
)
_TRACE_PROPERTY = re.compile(r"target property is '(?P<property>[^']*)'")
_TRACE_PATH = re.compile(r"BindingExpression:Path=(?P<path>[^;]*);")
_trace_installed: list[bool] = []
_trace_pending: list[str] = []


def parse_binding_trace(text: str) -> tuple[str, str | None, str | None, str] | None:
    """(element key, target property, binding path, message) of one binding trace line, or None.

    The trace names its target element by type and x:Name, or by hash code
    when it has no name: the key is built the way ``_trace_keys`` builds it
    for a live element.
    """
    target = _TRACE_TARGET.search(text)
    if target is None:
        return None
    if target.group("hash") is not None:
        key = f"{target.group('type')}|hash={target.group('hash')}"
    else:
        key = f"{target.group('type')}|name={target.group('name')}"
    prop = _TRACE_PROPERTY.search(text)
    path = _TRACE_PATH.search(text)
    message = _TRACE_HEADER.sub("", text, count=1).strip()
    return key, prop.group("property") if prop else None, path.group("path") if path else None, message


def record_binding_trace(text: str) -> None:
    parsed = parse_binding_trace(text)
    if parsed is None:
        return
    key, prop, path, message = parsed
    _TRACE_ERRORS.add(key, prop, message, kind="trace", path=path)


def _trace_keys(element: DependencyObject, short: str) -> list[str]:
    name = ""
    if isinstance(element, FrameworkElement):
        name = str(element.Name or "")
    elif isinstance(element, FrameworkContentElement):
        name = str(element.Name or "")
    # DependencyObject.GetHashCode is sealed to object identity: what the trace prints.
    return [f"{short}|name={name}", f"{short}|hash={int(element.GetHashCode())}"]


# TraceListener comes from pythonnet, without stubs: mypy sees Any, and cannot know the base class.
class BindingTraceListener(TraceListener):  # type: ignore[misc]
    """Receives WPF's data binding trace; each finished line is parsed and recorded.

    A trace event arrives as Write(header) then WriteLine(message). It must
    never throw into the binding engine that reports it.
    """

    __namespace__ = "WpfProbe.Diagnostics"

    def Write(self, *args: Any) -> None:  # overrides TraceListener.Write
        if args:
            _trace_pending.append(str(args[0]))

    def WriteLine(self, *args: Any) -> None:  # overrides TraceListener.WriteLine
        text = "".join(_trace_pending) + (str(args[0]) if args else "")
        _trace_pending.clear()
        if not SHARED.live:
            return  # the probe stopped, and could not take the listener off (``_hooks``)
        with contextlib.suppress(Exception):  # recording an error must not become one
            record_binding_trace(text)


def install_binding_trace() -> None:
    """Listen to PresentationTraceSources.DataBindingSource, once per process.

    WPF only traces after Refresh() (or under a debugger); the level is raised
    to Warning, never lowered if the app asked for more.
    """
    if _trace_installed:
        return
    _trace_installed.append(True)
    PresentationTraceSources.Refresh()
    source = PresentationTraceSources.DataBindingSource
    switch = source.Switch
    level = switch.Level
    raised = 0 <= int(level) < int(SourceLevels.Warning)
    if raised:
        switch.Level = SourceLevels.Warning
    listener = BindingTraceListener()
    source.Listeners.Add(listener)

    def remove() -> None:
        source.Listeners.Remove(listener)
        if raised and int(switch.Level) == int(SourceLevels.Warning):
            switch.Level = level  # unless the app has set a level of its own since
        _trace_installed.clear()

    SHARED.added(remove)
