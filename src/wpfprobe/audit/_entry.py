"""What one line of the log is, and how it is MACed.

One JSON object per line. Each entry names what was done (tool, target,
action or property name, outcome) and never a value typed or set: the writer
has no field that could hold one and rejects unknown fields. Each entry's
``mac`` is HMAC-SHA256 over the entry without ``mac``, and each entry carries
the previous entry's mac in ``prev``, so editing, deleting, reordering or
inserting a line breaks the chain for anyone holding the key. A sidecar
``<log>.head`` (MACed too) records the last entry, so deleting the tail is
detected as well. docs/audit.md states exactly what is and is not detected.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from wpfprobe.audit._key import _HEX64, _KEY_ID
from wpfprobe.core.errors import ErrorCode

FORMAT_VERSION = 1
# A locator is kept as given up to this length; beyond it the entry says how much was cut.
MAX_TARGET_CHARS = 2000
# Far above any entry the writer makes (the target cap, escaped, is ~12 KB), so a
# longer line is foreign; reading stops there instead of loading a giant line.
MAX_LINE_BYTES = 64 * 1024

ENTRY_FIELDS: tuple[str, ...] = (
    "v", "seq", "time", "app", "tool", "target", "action", "property", "outcome", "kid", "prev", "mac",
)  # fmt: skip
HEAD_FIELDS: tuple[str, ...] = ("v", "lastSeq", "lastMac", "kid", "mac")

# Domain separation: an entry, a head and a genesis value can never be mistaken for one another.
_ENTRY_DOMAIN = b"wpfprobe-audit-entry-v1\n"
_HEAD_DOMAIN = b"wpfprobe-audit-head-v1\n"
_GENESIS_DOMAIN = b"wpfprobe-audit-genesis-v1\n"

Outcome = Literal["ok"] | ErrorCode

_TOOL_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"  # SPEC section 3's tool-name rule
# Identifiers only: no spaces, quotes, '+' or '=' leave room to smuggle a typed value into a name.
_ACTION_PATTERN = r"^[A-Za-z][A-Za-z0-9_.-]{0,63}$"
_PROPERTY_PATTERN = r"^[A-Za-z_][A-Za-z0-9_.]{0,127}$"  # "Text", "Grid.Row", "FlatAppearance.BorderSize"


# --------------------------------------------------------------------------- models


class AuditAction(BaseModel):
    """What a caller may say about an action. There is deliberately no field for a value."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    tool: str = Field(pattern=_TOOL_PATTERN)
    target: str | None = None
    """The locator or nodeId as the caller gave it."""
    action: str | None = Field(default=None, pattern=_ACTION_PATTERN)
    property: str | None = Field(default=None, pattern=_PROPERTY_PATTERN)
    outcome: Outcome = "ok"

    @field_validator("target")
    @classmethod
    def _cap_target(cls, value: str | None) -> str | None:
        if value is None or len(value) <= MAX_TARGET_CHARS:
            return value
        return f"{value[:MAX_TARGET_CHARS]}...[{len(value) - MAX_TARGET_CHARS} more chars]"


class AuditEntry(BaseModel):
    """One line of the log, exactly; anything else on a line is refused by ``verify``."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    v: Literal[1]
    seq: int = Field(ge=1)
    time: str
    app: str
    tool: str = Field(pattern=_TOOL_PATTERN)
    target: str | None
    action: str | None = Field(pattern=_ACTION_PATTERN)
    property: str | None = Field(pattern=_PROPERTY_PATTERN)
    outcome: Outcome
    kid: str = Field(pattern=_KEY_ID.pattern)
    prev: str = Field(pattern=_HEX64.pattern)
    mac: str = Field(pattern=_HEX64.pattern)


# --------------------------------------------------------------------------- canonical form and MACs


def _canonical(fields: dict[str, Any]) -> bytes:
    """The bytes a MAC covers: sorted keys, no spaces, ASCII (lone surrogates from .NET strings survive)."""
    return json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False).encode("ascii")


def _mac(key: bytes, domain: bytes, fields: dict[str, Any]) -> str:
    return hmac.new(key, domain + _canonical(fields), hashlib.sha256).hexdigest()


def _genesis(key: bytes, app: object, created: object) -> str:
    """What the first entry's ``prev`` must be: bound to the app that created the log and when."""
    return _mac(key, _GENESIS_DOMAIN, {"app": app, "created": created})


def _layout(fields: dict[str, Any], order: tuple[str, ...]) -> bytes:
    """The line as written: fields in a fixed, readable order. ``verify`` requires exactly these bytes."""
    return json.dumps({k: fields[k] for k in order}, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def _same(a: str, b: object) -> bool:
    return isinstance(b, str) and b.isascii() and hmac.compare_digest(a, b)
