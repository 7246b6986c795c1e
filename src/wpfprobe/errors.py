"""Every error wpfprobe raises on purpose; match on ``code`` or on the class."""

from __future__ import annotations

from ._errors import (
    AppNotAvailableError,
    ClrUnavailableError,
    DispatcherBusyError,
    ElementNotRenderableError,
    ErrorCode,
    InvalidArgumentError,
    LocatorAmbiguousError,
    LocatorNotFoundError,
    NodeNotFoundError,
    OperationTimedOutError,
    ProbeError,
    PropertyNotFoundError,
    PropertyRedactedError,
    UiThreadError,
)

__all__ = [
    "AppNotAvailableError",
    "ClrUnavailableError",
    "DispatcherBusyError",
    "ElementNotRenderableError",
    "ErrorCode",
    "InvalidArgumentError",
    "LocatorAmbiguousError",
    "LocatorNotFoundError",
    "NodeNotFoundError",
    "OperationTimedOutError",
    "ProbeError",
    "PropertyNotFoundError",
    "PropertyRedactedError",
    "UiThreadError",
]
