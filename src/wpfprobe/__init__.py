"""wpfprobe: see inside a live pythonnet WPF or WinForms UI, from inside the app.

    probe = wpfprobe.attach(form)
    probe.tree(max_depth=2)
    probe.locator("Button#saveButton").properties(filter="Text")
"""

from __future__ import annotations

from ._api import Locator, Probe, attach
from ._custom import tool
from ._engine import Target
from ._errors import ErrorCode, ProbeError
from ._models import (
    ActionResult,
    ActionState,
    Ancestor,
    AppError,
    BehaviorInfo,
    BehaviorList,
    BindingErrorInfo,
    BindingInfo,
    DiagnosticsPage,
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
from ._redaction import REDACTED
from ._server import ProbeHandle, start
from ._settings import ProbeSettings

__version__ = "0.1.0"

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
