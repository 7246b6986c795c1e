"""The CLR side of wpfprobe: the only package that touches pythonnet and System.*.

Internal to wpfprobe; its names may change between releases.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wpfprobe.core.models import RuntimeDescription
from wpfprobe_clr._runtime import RuntimeKind, clr_is_loaded, describe_clr, ensure_clr
from wpfprobe_clr._ui_thread import UiThread

__all__ = [
    "Connection",
    "RuntimeKind",
    "UiThread",
    "clr_is_loaded",
    "connect",
    "describe_clr",
    "ensure_clr",
]


@dataclass(frozen=True)
class Connection:
    """Everything the engine needs to inspect one app."""

    adapter: Any
    ui: UiThread
    objects: Any
    runtime: RuntimeDescription
    toolkit: str
    app: Any
    same: Any
    os_input: Any = None


def connect(
    app: Any = None, *, timeout: float = 5.0, runtime: RuntimeKind | None = None, test_hooks: bool = False
) -> Connection:
    """Load or find the CLR, find the app's UI if ``app`` is None, and wire an adapter to it.

    The app's exception events are hooked for ``wpf_get_app_events``; ``test_hooks`` (the probe
    was started for testing) also lets the hooks mark them handled (see ``toolkits.install_app_hooks``).
    """
    description = ensure_clr(runtime)
    from wpfprobe_clr import _os_input  # noqa: PLC0415
    from wpfprobe_clr._objects import ClrObjectTable, same_object  # noqa: PLC0415
    from wpfprobe_clr.toolkits import connect as connect_toolkit  # noqa: PLC0415
    from wpfprobe_clr.toolkits import find_app, install_app_hooks  # noqa: PLC0415

    if app is None:
        app = find_app()
    adapter, ui, kind = connect_toolkit(app, timeout=timeout)
    # The object table is created on the UI thread: it is only ever used there.
    objects = ui.run(ClrObjectTable, timeout=timeout)
    try:
        ui.run(lambda: install_app_hooks(adapter, kind, catch=test_hooks), timeout=timeout)
    except Exception:
        import logging  # noqa: PLC0415

        logging.getLogger("wpfprobe.clr").warning("could not hook the app's exception events", exc_info=True)
    return Connection(adapter, ui, objects, description, kind, app, same_object, _os_input)
