"""Toolkit detection: which adapter serves an app object. Adapters import lazily."""

from __future__ import annotations

from typing import Any, Literal

from wpfprobe.core.errors import AppNotAvailableError, InvalidArgumentError

ToolkitName = Literal["wpf", "winforms"]

_WPF_BASES = ("System.Windows.Application", "System.Windows.DependencyObject")
_WINFORMS_BASES = ("System.Windows.Forms.Control",)


def _base_names(obj: Any) -> set[str]:
    get_type = getattr(obj, "GetType", None)
    if get_type is None:
        return set()
    names = set()
    t = get_type()
    while t is not None:
        names.add(str(t.FullName))
        t = t.BaseType
    return names


def toolkit_of(app: Any) -> ToolkitName:
    bases = _base_names(app)
    if bases & set(_WINFORMS_BASES):
        return "winforms"
    if bases & set(_WPF_BASES):
        return "wpf"
    raise InvalidArgumentError(
        f"{type(app).__name__} is neither a WPF Application/Window nor a WinForms Form/Control.",
        suggestion="Pass the WPF Application or main Window, or the WinForms main Form, or None to detect it.",
    )


def find_app(*, shown: bool = False) -> Any:
    """The running UI of this process: WPF's Application.Current, else a WinForms open form
    (with ``shown``, only one that is visible and has its window handle)."""
    import System  # noqa: PLC0415

    loaded = {str(a.GetName().Name) for a in System.AppDomain.CurrentDomain.GetAssemblies()}
    if "PresentationFramework" in loaded:
        from wpfprobe_clr.toolkits.wpf import find_app as find_wpf  # noqa: PLC0415

        app = find_wpf()
        if app is not None:
            return app
    if "System.Windows.Forms" in loaded:
        from wpfprobe_clr.toolkits.winforms import find_app as find_winforms  # noqa: PLC0415

        app = find_winforms(shown=shown)
        if app is not None:
            return app
    raise AppNotAvailableError(
        "No WPF Application or open WinForms form was found in this process.",
        suggestion="Pass the app object to attach(), or attach after the first window is shown.",
    )


def connect(app: Any, *, timeout: float) -> tuple[Any, Any, ToolkitName]:
    """(adapter, UiThread, toolkit name) for ``app``."""
    kind = toolkit_of(app)
    adapter: Any
    ui: Any
    if kind == "winforms":
        from wpfprobe_clr.toolkits.winforms import connect as connect_winforms  # noqa: PLC0415

        adapter, ui = connect_winforms(app, timeout=timeout)
    else:
        from wpfprobe_clr.toolkits.wpf import connect as connect_wpf  # noqa: PLC0415

        adapter, ui = connect_wpf(app, timeout=timeout)
    return adapter, ui, kind


def install_app_hooks(adapter: Any, kind: ToolkitName, *, catch: bool) -> list[str]:
    """Hook the app's exception events (on the UI thread) for wpf_get_app_events; the hooks now in place.

    ``catch``: the probe was started for testing, and may mark the exceptions
    handled so the app goes on (each toolkit's module says what that changes).
    """
    if kind == "winforms":
        from wpfprobe_clr.toolkits.winforms.app_events import install as install_winforms  # noqa: PLC0415

        return install_winforms(catch=catch)
    from wpfprobe_clr.toolkits.wpf._app_events import install as install_wpf  # noqa: PLC0415

    return install_wpf(adapter.dispatcher, catch=catch)
