"""Pins the public names of wpfprobe and wpfprobe.errors, and the typing marker."""

from __future__ import annotations

import importlib
from pathlib import Path

import wpfprobe
import wpfprobe.errors

WPFPROBE_ALL = [
    "REDACTED",
    "ActionResult",
    "ActionState",
    "Ancestor",
    "AppError",
    "BehaviorInfo",
    "BehaviorList",
    "BindingErrorInfo",
    "BindingInfo",
    "DiagnosticsPage",
    "ElementError",
    "ElementInfo",
    "Finding",
    "ErrorCode",
    "FindResult",
    "FindResults",
    "Locator",
    "Node",
    "Page",
    "Probe",
    "ProbeError",
    "ProbeHandle",
    "ProbeSettings",
    "Property",
    "PropertyCondition",
    "Rect",
    "ResourceInfo",
    "ResourcePage",
    "RuntimeDescription",
    "Screenshot",
    "SessionInfo",
    "SetPropertyResult",
    "Target",
    "Tree",
    "TriggerConditionInfo",
    "TriggerInfo",
    "TriggerList",
    "TriggerSetterInfo",
    "WaitResult",
    "Window",
    "__version__",
    "attach",
    "start",
    "tool",
]

ERRORS_ALL = [
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


def test_wpfprobe_all_is_pinned() -> None:
    assert sorted(wpfprobe.__all__) == sorted(WPFPROBE_ALL)
    assert len(set(wpfprobe.__all__)) == len(wpfprobe.__all__)


def test_wpfprobe_names_are_importable() -> None:
    module = importlib.import_module("wpfprobe")
    for name in WPFPROBE_ALL:
        assert getattr(module, name) is not None, name
    namespace: dict[str, object] = {}
    exec("from wpfprobe import *", namespace)
    assert set(WPFPROBE_ALL) <= set(namespace)


def test_errors_all_is_pinned() -> None:
    assert sorted(wpfprobe.errors.__all__) == sorted(ERRORS_ALL)
    assert len(set(wpfprobe.errors.__all__)) == len(wpfprobe.errors.__all__)


def test_errors_names_are_importable_and_are_probe_errors() -> None:
    for name in ERRORS_ALL:
        value = getattr(wpfprobe.errors, name)
        if name.endswith("Error"):
            assert issubclass(value, wpfprobe.ProbeError), name
    namespace: dict[str, object] = {}
    exec("from wpfprobe.errors import *", namespace)
    assert set(ERRORS_ALL) <= set(namespace)


def test_error_classes_carry_their_spec_codes() -> None:
    e = wpfprobe.errors
    assert {
        e.NodeNotFoundError.code,
        e.LocatorNotFoundError.code,
        e.LocatorAmbiguousError.code,
        e.InvalidArgumentError.code,
        e.DispatcherBusyError.code,
        e.OperationTimedOutError.code,
        e.PropertyNotFoundError.code,
        e.PropertyRedactedError.code,
        e.ElementNotRenderableError.code,
        e.AppNotAvailableError.code,
        e.ElementNotInteractableError.code,
        e.InputDisabledError.code,
        e.MutationDisabledError.code,
        e.PropertyReadOnlyError.code,
        e.TypeConversionFailedError.code,
        e.UnsupportedPropertyTypeError.code,
    } == {
        "NODE_NOT_FOUND", "LOCATOR_NOT_FOUND", "LOCATOR_AMBIGUOUS", "INVALID_ARGUMENT", "DISPATCHER_BUSY",
        "OPERATION_TIMED_OUT", "PROPERTY_NOT_FOUND", "PROPERTY_REDACTED", "ELEMENT_NOT_RENDERABLE",
        "APP_NOT_AVAILABLE", "ELEMENT_NOT_INTERACTABLE", "INPUT_DISABLED", "MUTATION_DISABLED",
        "PROPERTY_READ_ONLY", "TYPE_CONVERSION_FAILED", "UNSUPPORTED_PROPERTY_TYPE",
    }  # fmt: skip


def test_py_typed_marker_exists() -> None:
    package_dir = Path(wpfprobe.__file__).parent
    assert (package_dir / "py.typed").is_file()
    repo_marker = Path(__file__).resolve().parents[2] / "src" / "wpfprobe" / "py.typed"
    assert repo_marker.is_file()


def test_importing_wpfprobe_does_not_load_the_clr() -> None:
    import subprocess
    import sys

    code = (
        "import sys, wpfprobe, wpfprobe.errors, wpfprobe.audit; print('clr' in sys.modules, 'pythonnet' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "False False"


def test_wpfprobe_testing_all_is_pinned() -> None:
    import wpfprobe.testing

    assert wpfprobe.testing.__all__ == ["virtual_display"]
    assert callable(wpfprobe.testing.virtual_display)


AUDIT_ALL = ["AuditKeyError", "TamperKind", "VerifyReport", "default_key_path", "load_key", "verify"]


def test_wpfprobe_audit_all_is_pinned() -> None:
    import wpfprobe.audit

    assert sorted(wpfprobe.audit.__all__) == sorted(AUDIT_ALL)
    namespace: dict[str, object] = {}
    exec("from wpfprobe.audit import *", namespace)
    assert set(AUDIT_ALL) <= set(namespace)
