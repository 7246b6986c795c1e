"""wpfprobe: see inside a live pythonnet WPF or WinForms UI, from inside the app.

probe = wpfprobe.attach(form)
probe.tree(max_depth=2)
probe.locator("Button#saveButton").properties(filter="Text")
"""

from __future__ import annotations

from wpfprobe.api.probe import Locator, Probe, attach
from wpfprobe.core.errors import ErrorCode, ProbeError
from wpfprobe.core.models import (
    ActionResult,
    ActionState,
    Ancestor,
    AppError,
    BehaviorInfo,
    BehaviorList,
    BindingErrorInfo,
    BindingInfo,
    DiagnosticsPage,
    ElementError,
    ElementInfo,
    Finding,
    FindResult,
    FindResults,
    Node,
    Page,
    Property,
    PropertyCondition,
    Rect,
    ResourceInfo,
    ResourcePage,
    RuntimeDescription,
    Screenshot,
    SessionInfo,
    SetPropertyResult,
    Tree,
    TriggerConditionInfo,
    TriggerInfo,
    TriggerList,
    TriggerSetterInfo,
    WaitResult,
    Window,
)
from wpfprobe.core.redaction import REDACTED
from wpfprobe.core.settings import ProbeSettings
from wpfprobe.core.version import __version__
from wpfprobe.engine.engine import Target
from wpfprobe.mcp.custom import tool
from wpfprobe.mcp.server import ProbeHandle, start

__all__ = [
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
    "ErrorCode",
    "FindResult",
    "FindResults",
    "Finding",
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
