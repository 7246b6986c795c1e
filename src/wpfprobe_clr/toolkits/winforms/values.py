"""What a value read from the app becomes before it leaves the UI thread.

Plain data (to_plain), except that a UI object becomes a reference to it. Its
own module because property readings and binding descriptions both need it,
and properties already depend on bindings.
"""

from __future__ import annotations

from typing import Any

from wpfprobe.core.protocol import PlainValue
from wpfprobe_clr._values import to_plain
from wpfprobe_clr.net.derived import is_a, type_names
from wpfprobe_clr.net.lazy import clr_namespace
from wpfprobe_clr.toolkits.winforms.kinds import is_menu

WF = clr_namespace("System.Windows.Forms")


def plain(value: Any) -> PlainValue:
    # A UI object's ToString embeds its Text (Mono's AccessibleObject too), which
    # would leak a password box through properties like ActiveControl: show a
    # reference instead, never the object's own rendering.
    if is_a(value, (WF.types.Control, WF.types.ToolStripItem)) or is_menu(value):
        name = getattr(value, "Name", None)
        kind = type_names(value)[0]
        return f"<{kind}#{name}>" if name else f"<{kind}>"
    if is_a(value, WF.types.AccessibleObject):
        return f"<{type_names(value)[0]}>"
    return to_plain(value)
