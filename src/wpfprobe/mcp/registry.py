"""The tools an app registered with ``@wpfprobe.tool``, and the running probe they also go to.

Apart from ``custom`` (which defines a tool from a function, with pydantic)
so that ``wpfprobe.start()`` can point new registrations at its probe before
it returns without loading any of that.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Protocol

from wpfprobe.core.errors import InvalidArgumentError


class _Tool(Protocol):
    """What the registry reads of a ``custom.CustomTool`` (which imports this module)."""

    @property
    def name(self) -> str: ...
    @property
    def fn(self) -> Callable[..., Any]: ...


__all__ = ["register", "registered", "serve_registrations", "unregister"]

_lock = threading.Lock()
_registry: dict[str, _Tool] = {}
#: Where a tool registered later goes: the running probe's ``add_custom_tool``, set
#: by the server while it runs (the server imports this module, not the reverse).
_serving: Callable[[Any], None] | None = None


def serve_registrations(add: Callable[[Any], None] | None) -> None:
    """Send tools registered from now on to ``add`` (None: keep them for the next probe only)."""
    global _serving
    with _lock:
        _serving = add


def registered() -> list[_Tool]:
    """The tools ``@wpfprobe.tool`` registered, in registration order."""
    with _lock:
        return list(_registry.values())


def unregister(name: str) -> None:
    """Forget a registered tool (probes already running keep it)."""
    with _lock:
        _registry.pop(name, None)


def register(custom: _Tool) -> None:
    with _lock:
        known = _registry.get(custom.name)
        if known is not None and not _same_function(known.fn, custom.fn):
            raise InvalidArgumentError(
                f"A tool named {custom.name!r} is already registered.",
                suggestion="Pick another name= for one of the two tools.",
            )
        # The same function defined again (a module or notebook cell run twice) replaces it.
        _registry[custom.name] = custom
    with _lock:
        serving = _serving
    if serving is not None:
        serving(custom)


def _same_function(a: Callable[..., Any], b: Callable[..., Any]) -> bool:
    return a is b or (
        getattr(a, "__module__", None) == getattr(b, "__module__", None)
        and getattr(a, "__qualname__", None) == getattr(b, "__qualname__", None)
    )
