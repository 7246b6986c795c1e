"""Every error wpfprobe raises on purpose; match on ``code`` or on the class."""

from __future__ import annotations

from wpfprobe.core.convert import TypeConversionFailedError, UnsupportedPropertyTypeError
from wpfprobe.core.errors import (
    AppNotAvailableError,
    AttachRefusedError,
    ClrUnavailableError,
    DispatcherBusyError,
    ElementNotInteractableError,
    ElementNotRenderableError,
    ErrorCode,
    InputDisabledError,
    InvalidArgumentError,
    LocatorAmbiguousError,
    LocatorNotFoundError,
    MutationDisabledError,
    NodeNotFoundError,
    OperationTimedOutError,
    ProbeError,
    PropertyNotFoundError,
    PropertyReadOnlyError,
    PropertyRedactedError,
    UiThreadError,
)

__all__ = [
    "AppNotAvailableError",
    "AttachRefusedError",
    "ClrUnavailableError",
    "DispatcherBusyError",
    "ElementNotInteractableError",
    "ElementNotRenderableError",
    "ErrorCode",
    "InputDisabledError",
    "InvalidArgumentError",
    "LocatorAmbiguousError",
    "LocatorNotFoundError",
    "MutationDisabledError",
    "NodeNotFoundError",
    "OperationTimedOutError",
    "ProbeError",
    "PropertyNotFoundError",
    "PropertyReadOnlyError",
    "PropertyRedactedError",
    "TypeConversionFailedError",
    "UiThreadError",
    "UnsupportedPropertyTypeError",
]
