"""wpfprobe: see inside a live pythonnet WPF or WinForms UI, from inside the app.

probe = wpfprobe.attach(form)
probe.tree(max_depth=2)
probe.locator("Button#saveButton").properties(filter="Text")

Importing the package loads none of its parts: each name below is imported on
first use (PEP 562), so an app that imports wpfprobe at its top and calls
``wpfprobe.start()`` pays only for what the start needs before it returns
(docs/architecture.md, "Start-up").
"""

from __future__ import annotations

import importlib
import logging as _logging
from typing import TYPE_CHECKING, Any

# The library's etiquette (the logging HOWTO's "Configuring Logging for a Library"): a
# NullHandler on the package's logger, so that in an app that configured no logging, a
# warning of the probe's is not printed on the app's stderr by Python's last-resort
# handler. It prints nothing; records still reach whatever handlers the app installs.
# Here, not in a submodule: importing wpfprobe loads none of them.
_logging.getLogger("wpfprobe").addHandler(_logging.NullHandler())

if TYPE_CHECKING:
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


#: Where each public name lives (the module is imported the first time the name is asked for).
_HOMES = {
    "Locator": "wpfprobe.api.probe",
    "Probe": "wpfprobe.api.probe",
    "attach": "wpfprobe.api.probe",
    "ErrorCode": "wpfprobe.core.errors",
    "ProbeError": "wpfprobe.core.errors",
    "REDACTED": "wpfprobe.core.redaction",
    "ProbeSettings": "wpfprobe.core.settings",
    "__version__": "wpfprobe.core.version",
    "Target": "wpfprobe.engine.engine",
    "tool": "wpfprobe.mcp.custom",
    "ProbeHandle": "wpfprobe.mcp.server",
    "start": "wpfprobe.mcp.server",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name, "wpfprobe.core.models" if name in __all__ else None)
    if home is None:
        raise AttributeError(f"module 'wpfprobe' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # asked for once: later uses are plain lookups
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
