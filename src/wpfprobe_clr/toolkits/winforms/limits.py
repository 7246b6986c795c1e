"""Sizes WinForms cannot draw: refused before a set, and undone after a set that made something too big.

Mono's WinForms gives every control an X11 window, and X11 measures windows in
16 bits: a control wider or taller than 32,767 pixels fails the paint that
follows (BadAlloc or BadValue from the X server, or GDI+'s GenericError for a
form), and the exception ends the app's UI thread within a second (issue 18:
``Width`` 32768, ``Bounds`` 0,0,99999,99999, ``MinimumSize`` 65535,65535, a form's
``Size``). Measured here, what does not break: a Location anywhere (±99,999),
a negative size (WinForms makes it 0), MaximumSize and Padding or Margin on
their own. The limit holds on every runtime, so a script means the same
everywhere (no screen is that large; on Windows, GDI+ draws no further either).

Two checks, both on the UI thread inside the set's hop, so no paint comes
between: ``check_value`` refuses a Size, SizeF or Rectangle with a side over
the limit, or a Width or Height over it, before anything is set;
``oversized`` then looks at every open form's controls, because a set can make
something else grow (a font on an AutoSize label, a MinimumSize of a docked
panel's child), and the caller puts the old value back when one did.
"""

from __future__ import annotations

from typing import Any

from wpfprobe.core.convert import Converted
from wpfprobe.core.errors import InvalidArgumentError
from wpfprobe.core.protocol import PropertyDescriptor
from wpfprobe_clr.net.derived import get, is_a, members_of
from wpfprobe_clr.net.lazy import clr_namespace

WF = clr_namespace("System.Windows.Forms")

MAX_PIXELS = 32_767
"""The largest width or height a control may have (X11's signed 16-bit window geometry)."""

_SUGGESTION = f"Give a width and height from 0 to {MAX_PIXELS} pixels."


def check_value(prop: PropertyDescriptor, value: Converted) -> None:
    """INVALID_ARGUMENT when ``value`` would give ``prop`` a side over MAX_PIXELS."""
    sides: tuple[Any, ...] = ()
    if value.kind == "size":
        sides = value.parts[:2]
    elif value.kind == "rect":
        sides = value.parts[2:4]
    elif value.kind in ("int", "float") and prop.name in ("Width", "Height"):
        sides = value.parts[:1]
    if any(isinstance(side, (int, float)) and side > MAX_PIXELS for side in sides):
        raise InvalidArgumentError(
            f"{prop.name} would be over {MAX_PIXELS} pixels, larger than WinForms can draw "
            "(the app's UI thread would end at its next paint); nothing was set.",
            suggestion=_SUGGESTION,
            detail={"property": prop.name, "typeName": prop.type_name, "maximum": MAX_PIXELS},
        )


def oversized() -> str | None:
    """The name of a control in an open form that is now over MAX_PIXELS wide or tall, if any."""
    pending = [f for f in members_of(WF.Application.OpenForms) if not f.IsDisposed]
    seen = 0
    while pending:
        control = pending.pop()
        seen += 1
        if int(get(control, "Width")) > MAX_PIXELS or int(get(control, "Height")) > MAX_PIXELS:
            return str(get(control, "Name") or type(control).__name__)
        pending.extend(c for c in members_of(get(control, "Controls")) if is_a(c, WF.types.Control))
    return None


def grown_error(prop: PropertyDescriptor, grown: str) -> InvalidArgumentError:
    return InvalidArgumentError(
        f"Setting {prop.name} made {grown} larger than WinForms can draw ({MAX_PIXELS} pixels); "
        "the previous value was put back.",
        suggestion="Set a smaller value (a smaller font, size or text), or set it on another element.",
        detail={"property": prop.name, "grown": grown, "maximum": MAX_PIXELS},
    )
