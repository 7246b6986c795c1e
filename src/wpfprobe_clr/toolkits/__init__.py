"""Toolkit detection: which adapter serves an app object. Adapters import lazily."""

from __future__ import annotations

from collections.abc import Callable
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
        suggestion=(
            "Pass the app to wpfprobe.start() or attach() (the WPF Application or main Window, or the "
            "WinForms main Form), or call it once the first window is shown."
        ),
    )


def ui_thread_marshal(app: Any, kind: ToolkitName) -> Any:
    """What must be made on the UI thread itself, made now if the caller is that thread (WinForms'
    hidden control: ``winforms.ui_loop``), else None. WPF needs nothing: its Dispatcher takes
    calls from any thread."""
    if kind != "winforms":
        return None
    from wpfprobe_clr.toolkits.winforms.ui_loop import ui_thread_marshal as winforms_marshal  # noqa: PLC0415

    return winforms_marshal(app)


def preload(kind: str) -> None:
    """Import the modules ``connect`` and ``app_hooks`` use for toolkit ``kind`` ("winforms" or
    "wpf"), without a call to the UI thread."""
    if kind == "winforms":
        from wpfprobe_clr.toolkits.winforms import app_events, connect  # noqa: F401, PLC0415
    elif kind == "wpf":
        from wpfprobe_clr.toolkits.wpf import _adapter, _app_events  # noqa: F401, PLC0415


def connect(
    app: Any, *, timeout: float, marshal: Any = None, first_wait: float | None = None
) -> tuple[Any, Any, ToolkitName]:
    """(adapter, UiThread, toolkit name) for ``app``; ``marshal``: what ``ui_thread_marshal`` made;
    ``first_wait``: how long a first call to the UI thread may wait for it, if one is made here."""
    kind = toolkit_of(app)
    adapter: Any
    ui: Any
    if kind == "winforms":
        from wpfprobe_clr.toolkits.winforms.connect import connect as connect_winforms  # noqa: PLC0415

        adapter, ui = connect_winforms(app, timeout=timeout, marshal=marshal, first_wait=first_wait)
    else:
        from wpfprobe_clr.toolkits.wpf._adapter import connect as connect_wpf  # noqa: PLC0415

        adapter, ui = connect_wpf(app, timeout=timeout)
    return adapter, ui, kind


def prepare_walk(kind: ToolkitName) -> None:
    """Compile the toolkit's .NET walk (once per process; ``wpfprobe_clr._compiling`` says on which thread)."""
    if kind == "winforms":
        from wpfprobe_clr.toolkits.winforms.walker import prepare  # noqa: PLC0415
    else:
        from wpfprobe_clr.toolkits.wpf._walker import prepare  # noqa: PLC0415
    prepare()


def app_hooks(adapter: Any, kind: ToolkitName, *, catch: bool) -> Callable[[], list[str]]:
    """The call that hooks the app's exception events for wpf_get_app_events, to run on the UI thread
    (it answers the hooks now in place). Its modules are imported here, first: an import on the UI
    thread would hold it, and may wait there for a lock another thread holds.

    ``catch``: the probe was started for testing, and may mark the exceptions
    handled so the app goes on (each toolkit's module says what that changes).
    """
    if kind == "winforms":
        from wpfprobe_clr.toolkits.winforms.app_events import install as install_winforms  # noqa: PLC0415

        return lambda: install_winforms(catch=catch)
    from wpfprobe_clr.toolkits.wpf._app_events import install as install_wpf  # noqa: PLC0415

    return lambda: install_wpf(adapter.dispatcher, catch=catch)
