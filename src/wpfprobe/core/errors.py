"""The error contract of SPEC section 5: every failure is a ProbeError with a code."""

from __future__ import annotations

from typing import Any, Literal

ErrorCode = Literal[
    "NODE_NOT_FOUND",
    "LOCATOR_NOT_FOUND",
    "LOCATOR_AMBIGUOUS",
    "INVALID_ARGUMENT",
    "DISPATCHER_BUSY",
    "OPERATION_TIMED_OUT",
    "PROPERTY_NOT_FOUND",
    "PROPERTY_REDACTED",
    "PROPERTY_READ_ONLY",
    "UNSUPPORTED_PROPERTY_TYPE",
    "TYPE_CONVERSION_FAILED",
    "MUTATION_DISABLED",
    "INPUT_DISABLED",
    "ELEMENT_NOT_INTERACTABLE",
    "ELEMENT_NOT_RENDERABLE",
    "APP_NOT_AVAILABLE",
    "APP_AMBIGUOUS",
    "ATTACH_REFUSED",
    "INTERNAL",
]


class ProbeError(Exception):
    """Base of every error wpfprobe raises on purpose.

    ``code`` is one of SPEC section 5's codes, ``suggestion`` names what to do
    next, ``detail`` carries structured facts (never a redacted value).
    """

    code: ErrorCode = "INTERNAL"

    def __init__(
        self,
        message: str,
        *,
        suggestion: str = "",
        detail: dict[str, Any] | None = None,
        code: ErrorCode | None = None,
    ) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.message = message
        self.suggestion = suggestion
        self.detail: dict[str, Any] = dict(detail or {})

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "message": self.message,
            "suggestion": self.suggestion,
            "detail": self.detail,
        }

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, message={self.message!r})"


class NodeNotFoundError(ProbeError):
    code: ErrorCode = "NODE_NOT_FOUND"


class LocatorNotFoundError(ProbeError):
    code: ErrorCode = "LOCATOR_NOT_FOUND"


class LocatorAmbiguousError(ProbeError):
    code: ErrorCode = "LOCATOR_AMBIGUOUS"


class InvalidArgumentError(ProbeError):
    code: ErrorCode = "INVALID_ARGUMENT"


class DispatcherBusyError(ProbeError):
    code: ErrorCode = "DISPATCHER_BUSY"


class OperationTimedOutError(ProbeError):
    code: ErrorCode = "OPERATION_TIMED_OUT"


class PropertyNotFoundError(ProbeError):
    code: ErrorCode = "PROPERTY_NOT_FOUND"


class PropertyRedactedError(ProbeError):
    code: ErrorCode = "PROPERTY_REDACTED"


class PropertyReadOnlyError(ProbeError):
    code: ErrorCode = "PROPERTY_READ_ONLY"


class MutationDisabledError(ProbeError):
    code: ErrorCode = "MUTATION_DISABLED"


class InputDisabledError(ProbeError):
    code: ErrorCode = "INPUT_DISABLED"


class ElementNotInteractableError(ProbeError):
    """The element cannot take the action now; ``detail["reason"]`` says why (a BlockReason)."""

    code: ErrorCode = "ELEMENT_NOT_INTERACTABLE"


class ElementNotRenderableError(ProbeError):
    code: ErrorCode = "ELEMENT_NOT_RENDERABLE"


class AppNotAvailableError(ProbeError):
    code: ErrorCode = "APP_NOT_AVAILABLE"


class AttachRefusedError(ProbeError):
    """``wpfprobe attach`` will not enter this process: another user's, not a pythonnet app,
    or tracing is not permitted (SPEC section 10). The message says which, the suggestion how to fix it."""

    code: ErrorCode = "ATTACH_REFUSED"


class ClrUnavailableError(ProbeError):
    """No CLR could be found or loaded; the message names what is missing."""

    code: ErrorCode = "APP_NOT_AVAILABLE"


class UiThreadError(ProbeError):
    """Code that ran on the UI thread raised; ``detail`` has the original type."""

    code: ErrorCode = "INTERNAL"
