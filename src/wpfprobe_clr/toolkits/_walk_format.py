"""The packed form of the .NET walk (``toolkits/winforms/walker.py``), read back in Python.

Kept apart from the walker, which imports System, so that the format is
tested without a runtime. A sequence of fields, each a tag and a value:
``n`` (null), ``s<len>:<text>``, ``b0``/``b1``, ``i<digits>;``, ``*`` (a secret
not read), or ``!<len>:<type><len>:<message>`` (the read threw). A record is
nine fields: parent's record index (-1 for the root), type, full type, Name,
Text, Visible, Enabled, Focused, child control count.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

FIELDS = 9


@dataclass(frozen=True, slots=True)
class ReadError:
    type_name: str
    message: str


#: A field's value: what was read, or the error its read raised.
Value = str | bool | int | None | ReadError


@dataclass(frozen=True, slots=True)
class WalkedControl:
    parent: int
    type_name: str | ReadError
    full_type_name: str | ReadError
    name: Value
    #: SECRET when the text was not read (a password box).
    text: Value
    visible: Value
    enabled: Value
    focused: Value
    child_controls: Value


#: The text of a password box: never read.
SECRET = "\x00secret"


def decode(packed: str) -> list[WalkedControl]:
    values: list[Any] = []
    i, n = 0, len(packed)
    while i < n:
        tag = packed[i]
        i += 1
        if tag == "n":
            values.append(None)
        elif tag == "*":
            values.append(SECRET)
        elif tag == "b":
            values.append(packed[i] == "1")
            i += 1
        elif tag == "i":
            end = packed.index(";", i)
            values.append(int(packed[i:end]))
            i = end + 1
        elif tag == "s":
            text, i = _counted(packed, i)
            values.append(text)
        elif tag == "!":
            type_name, i = _counted(packed, i)
            message, i = _counted(packed, i)
            values.append(ReadError(type_name, message))
        else:
            raise ValueError(f"bad walker output at {i - 1}: {packed[i - 1 : i + 20]!r}")
    if len(values) % FIELDS:
        raise ValueError(f"walker output has {len(values)} fields, not a multiple of {FIELDS}")
    return [WalkedControl(*values[k : k + FIELDS]) for k in range(0, len(values), FIELDS)]


def _counted(packed: str, i: int) -> tuple[str, int]:
    colon = packed.index(":", i)
    length = int(packed[i:colon])
    start = colon + 1
    return packed[start : start + length], start + length
