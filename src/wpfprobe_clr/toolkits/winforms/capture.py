"""Screenshots of an element: the screen's pixels under its bounds, as BGRA rows.

The pixels are copied from the screen, not drawn by the control: Mono's
DrawToBitmap leaves children unpainted. So an element must be visible, have a
size, and lie (at least partly) on the screen; the part on it is what is taken.

Only the area is decided on the UI thread. The copy itself (60-130 ms for a
1200x900 window under Xvfb, most of it ``CopyFromScreen``) needs nothing of
it, so it is the capture's ``later``, run by the engine on the caller's
thread; copies are made one at a time (System.Drawing keeps one connection
to the display for them).
"""

from __future__ import annotations

import sys
import threading
from functools import partial
from typing import Any

from wpfprobe.core.errors import ElementNotRenderableError
from wpfprobe.core.protocol import Bounds, Capture
from wpfprobe_clr.net.derived import get, is_a
from wpfprobe_clr.net.lazy import clr_namespace
from wpfprobe_clr.toolkits.winforms.tree import bounds, state

Drawing = clr_namespace("System.Drawing")
Imaging = clr_namespace("System.Drawing.Imaging")
WF = clr_namespace("System.Windows.Forms")


def capture(element: Any) -> Capture:
    if not state(element).visible:
        raise ElementNotRenderableError(
            "The element is hidden, so it has no pixels on screen.",
            suggestion="Capture a visible element, or its window.",
        )
    box = _capture_rect(element)
    if box is None or box.width <= 0 or box.height <= 0:
        raise ElementNotRenderableError(
            "The element has no size or position on screen.",
            suggestion="Capture a visible element with a size, or its window.",
            detail={"bounds": None if box is None else [box.x, box.y, box.width, box.height]},
        )
    screen = WF.SystemInformation.VirtualScreen
    left, top = max(box.x, int(screen.X)), max(box.y, int(screen.Y))
    right = min(box.x + box.width, int(screen.X) + int(screen.Width))
    bottom = min(box.y + box.height, int(screen.Y) + int(screen.Height))
    if right <= left or bottom <= top:
        raise ElementNotRenderableError(
            "The element lies outside the screen.",
            suggestion="Move its window onto the screen first.",
        )
    width, height = right - left, bottom - top
    return Capture(width, height, "BGRA", b"", later=partial(_copy_screen, left, top, width, height))


_copying = threading.Lock()


def _copy_screen(left: int, top: int, width: int, height: int) -> Capture:
    """The screen's pixels in that rectangle; off the UI thread, one copy at a time."""
    with _copying:
        return _copy_locked(left, top, width, height)


def _copy_locked(left: int, top: int, width: int, height: int) -> Capture:
    # Mono's DrawToBitmap leaves children unpainted, so copy the screen instead.
    bmp = Drawing.Bitmap(width, height, Imaging.PixelFormat.Format32bppArgb)
    try:
        g = Drawing.Graphics.FromImage(bmp)
        try:
            g.CopyFromScreen(left, top, 0, 0, Drawing.Size(width, height))
        finally:
            g.Dispose()
        data = bmp.LockBits(
            Drawing.Rectangle(0, 0, width, height), Imaging.ImageLockMode.ReadOnly, Imaging.PixelFormat.Format32bppArgb
        )
        try:
            import ctypes  # noqa: PLC0415

            stride = int(data.Stride)
            pixels = ctypes.string_at(int(data.Scan0.ToInt64()), stride * height)
        finally:
            bmp.UnlockBits(data)
    finally:
        bmp.Dispose()
    return Capture(width, height, "BGRA", pixels, stride)


def _capture_rect(element: Any) -> Bounds | None:
    if is_a(element, WF.types.Form) and get(element, "Parent") is None and not sys.platform.startswith("win"):
        # Mono's Form.Bounds includes a frame that only a window manager draws;
        # the client area is where the pixels certainly are.
        r = element.RectangleToScreen(element.ClientRectangle)
        return Bounds(int(r.X), int(r.Y), int(r.Width), int(r.Height))
    return bounds(element)
