"""Turn live .NET values into plain Python data (toolkit-neutral CLR knowledge)."""

from __future__ import annotations

import ctypes
from typing import Any, cast

from wpfprobe.core.protocol import PlainValue

MAX_TEXT = 256


def type_full_name(value: Any) -> str | None:
    if value is None:
        return None
    get_type = getattr(value, "GetType", None)
    if get_type is None:
        return _PY_TO_NET.get(type(value), type(value).__name__)
    return str(get_type().FullName)


_PY_TO_NET: dict[type, str] = {
    bool: "System.Boolean",
    int: "System.Int32",
    float: "System.Double",
    str: "System.String",
}


def to_plain(value: Any) -> PlainValue:
    """A JSON-ready rendering of ``value``: primitives as themselves, the rest as text.

    Never raises: a value whose ToString throws renders as its type name.
    """
    if value is None or isinstance(value, (bool, int, float)):
        return cast(PlainValue, value)
    if isinstance(value, str):
        return clip_text(value)
    try:
        text = str(value.ToString()) if hasattr(value, "ToString") else str(value)
    except Exception:  # noqa: BLE001 - an app's ToString may throw; show the type instead
        text = ""
    full = type_full_name(value) or ""
    if not text or text == full:
        # The default Object.ToString says nothing beyond the type.
        return f"<{full.rsplit('.', 1)[-1]}>"
    return clip_text(text)


def clip_text(text: str) -> str:
    """``text`` cut to MAX_TEXT characters, as every value the probe shows is."""
    if len(text) <= MAX_TEXT:
        return text
    return text[: MAX_TEXT - 1] + "…"


def net_bytes(array: Any) -> bytes:
    """Copy a .NET byte[] into Python bytes in one memcpy (no per-item marshalling)."""
    from System.Runtime.InteropServices import GCHandle, GCHandleType  # noqa: PLC0415

    length = int(array.Length)
    if length == 0:
        return b""
    handle = GCHandle.Alloc(array, GCHandleType.Pinned)
    try:
        return ctypes.string_at(int(handle.AddrOfPinnedObject().ToInt64()), length)
    finally:
        handle.Free()
