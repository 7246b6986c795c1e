"""The audit log of issue 4, point 6: every input and mutation, chained by HMAC.

One JSON object per line. Each entry names what was done (tool, target,
action or property name, outcome) and never a value typed or set: the writer
has no field that could hold one and rejects unknown fields. Each entry's
``mac`` is HMAC-SHA256 over the entry without ``mac``, and each entry carries
the previous entry's mac in ``prev``, so editing, deleting, reordering or
inserting a line breaks the chain for anyone holding the key. A sidecar
``<log>.head`` (MACed too) records the last entry, so deleting the tail is
detected as well. docs/audit.md states exactly what is and is not detected.

Files are owner-only and every append is fsynced before the head moves, so a
crash leaves a log that verifies (at worst with an incomplete last line, which
the writer never appends after: it starts a new file instead).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import logging
import os
import re
import secrets
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.alias_generators import to_camel

from wpfprobe.core.errors import ErrorCode, InvalidArgumentError, ProbeError
from wpfprobe.core.paths import home_dir

log = logging.getLogger("wpfprobe.audit")

FORMAT_VERSION = 1
KEY_FILE_NAME = "audit.key"
KEY_BYTES = 32
# Shorter keys make HMAC guessable; 16 bytes is the floor for a key someone supplies themselves.
MIN_KEY_BYTES = 16
# A locator is kept as given up to this length; beyond it the entry says how much was cut.
MAX_TARGET_CHARS = 2000
# Far above any entry this module writes (the target cap, escaped, is ~12 KB), so a
# longer line is foreign; reading stops there instead of loading a giant line.
MAX_LINE_BYTES = 64 * 1024
_MAX_HEAD_BYTES = 4096
# Rotation names tried after the given one (log.1.jsonl ...); a bound, not a limit anyone should reach.
_MAX_ROTATIONS = 100
# How long a writer waits for another process's append to finish before giving up.
_LOCK_TIMEOUT = 10.0
_WINDOWS = sys.platform == "win32"

ENTRY_FIELDS: tuple[str, ...] = (
    "v", "seq", "time", "app", "tool", "target", "action", "property", "outcome", "kid", "prev", "mac",
)  # fmt: skip
HEAD_FIELDS: tuple[str, ...] = ("v", "lastSeq", "lastMac", "kid", "mac")

# Domain separation: an entry, a head and a genesis value can never be mistaken for one another.
_ENTRY_DOMAIN = b"wpfprobe-audit-entry-v1\n"
_HEAD_DOMAIN = b"wpfprobe-audit-head-v1\n"
_GENESIS_DOMAIN = b"wpfprobe-audit-genesis-v1\n"
_KEY_ID_DOMAIN = b"wpfprobe-audit-key-id-v1"

TamperKind = Literal[
    "edited",
    "deleted",
    "reordered",
    "inserted",
    "truncated",
    "bad-json",
    "wrong-key",
    "head-missing",
    "head-mismatch",
]
HeadStatus = Literal["verified", "missing", "invalid", "unchecked"]
Outcome = Literal["ok"] | ErrorCode

_TOOL_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"  # SPEC section 3's tool-name rule
# Identifiers only: no spaces, quotes, '+' or '=' leave room to smuggle a typed value into a name.
_ACTION_PATTERN = r"^[A-Za-z][A-Za-z0-9_.-]{0,63}$"
_PROPERTY_PATTERN = r"^[A-Za-z_][A-Za-z0-9_.]{0,127}$"  # "Text", "Grid.Row", "FlatAppearance.BorderSize"
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_KEY_ID = re.compile(r"^[0-9a-f]{16}$")  # also keeps terminal escapes in a forged line out of the CLI's output
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class AuditKeyError(ProbeError):
    """The audit key file is missing, malformed, or readable by other users."""

    code: ErrorCode = "INVALID_ARGUMENT"


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


class VerifyReport(BaseModel):
    """What ``verify`` found. ``entries`` counts the intact entries before the first problem."""

    model_config = ConfigDict(frozen=True, alias_generator=to_camel, populate_by_name=True)

    path: str
    ok: bool
    entries: int
    first_bad_line: int | None = None
    """1-based; for a deleted tail, the line where the first missing entry belonged."""
    kind: TamperKind | None = None
    problem: str | None = None
    head: HeadStatus = "unchecked"
    """The ``<log>.head`` sidecar: verified, missing (allowed only when not required), invalid, or unchecked
    (the chain failed before the head mattered)."""

    def summary(self) -> str:
        """One line for a person: ``OK: 42 entries, chain intact`` or ``TAMPERED at line 17: ...``."""
        if self.ok:
            noun = "entry" if self.entries == 1 else "entries"
            caveat = "" if self.head == "verified" else " (no head file: a deleted tail would go unnoticed)"
            return f"OK: {self.entries} {noun}, chain intact{caveat}"
        if self.kind == "wrong-key":
            return f"WRONG KEY: {self.problem}"
        where = f" at line {self.first_bad_line}" if self.first_bad_line is not None else ""
        return f"TAMPERED{where}: {self.problem}"


# --------------------------------------------------------------------------- keys and paths


def audit_home() -> Path:
    """``$WPFPROBE_HOME`` (or its platform default): lasting files, never the runtime directory."""
    return home_dir()


def default_key_path() -> Path:
    """The per-user audit key, ``$WPFPROBE_HOME/audit.key``."""
    return audit_home() / KEY_FILE_NAME


def default_log_path(app_name: str) -> Path:
    """``$WPFPROBE_HOME/audit/<app name>.jsonl``: stable across restarts, so a restarted app continues its chain."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", app_name).strip(".") or "app"
    return audit_home() / "audit" / f"{safe[:100]}.jsonl"


def key_id(key: bytes) -> str:
    """A short public fingerprint of a key, stored in every entry so a wrong key is named as such."""
    return hmac.new(key, _KEY_ID_DOMAIN, hashlib.sha256).hexdigest()[:16]


def load_key(path: Path | str | None = None) -> bytes:
    """Read a key file (64 hex digits); never creates one. Permissions are not enforced: reading is harmless."""
    path = Path(path) if path is not None else default_key_path()
    return _parse_key(path.read_text(encoding="ascii", errors="replace"), path)


def key_file_is_private(path: Path | str) -> bool:
    """False when other users could read or replace the key (POSIX bits); always True on Windows."""
    if sys.platform == "win32":  # ACLs of %LOCALAPPDATA% keep it private there, as for manifests
        return True
    info = Path(path).stat()
    return info.st_uid == os.getuid() and not info.st_mode & 0o077


def load_or_create_key(path: Path | str | None = None) -> bytes:
    """The writer's key: created owner-only on first use, refused if others could read it."""
    path = Path(path) if path is not None else default_key_path()
    try:
        return _read_private_key(path)
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, temp = tempfile.mkstemp(prefix=".tmp-audit-", suffix=".key", dir=path.parent)
    try:
        _owner_only(Path(temp), 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write(secrets.token_hex(KEY_BYTES) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        try:
            # A hard link publishes the complete file only if none exists: two apps starting
            # at once must end up with the same key, never one overwriting the other's.
            os.link(temp, path)
        except FileExistsError:
            pass
        except OSError:
            # No hard links on this file system: exclusive create is the next best no-clobber.
            _create_exclusive(path, Path(temp).read_bytes())
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temp)
    return _read_private_key(path)


def _create_exclusive(path: Path, data: bytes) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
    except FileExistsError:
        return
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def _read_private_key(path: Path) -> bytes:
    if not key_file_is_private(path):
        raise AuditKeyError(
            f"The audit key file {path} can be read or replaced by other users; anyone who can read it "
            "can forge an audit log.",
            suggestion=f"Run 'chmod 600 {path}' if you own it, or delete it to have a new key made "
            "(logs written so far then verify only with the old key).",
        )
    return _parse_key(path.read_text(encoding="ascii", errors="replace"), path)


def _parse_key(text: str, path: Path) -> bytes:
    # The key's content is never echoed, not even a malformed one.
    value = text.strip()
    if not _HEX64.fullmatch(value.lower()):
        raise AuditKeyError(
            f"The audit key file {path} does not hold a key (64 hexadecimal digits).",
            suggestion="Pass the key file the log was written with.",
        )
    return bytes.fromhex(value)


def _check_key(key: object) -> bytes:
    if not isinstance(key, bytes) or len(key) < MIN_KEY_BYTES:
        raise InvalidArgumentError(
            f"An audit key must be at least {MIN_KEY_BYTES} bytes.",
            suggestion="Use load_or_create_key() or load_key(path).",
        )
    return key


def _head_path(log_path: Path) -> Path:
    return log_path.with_name(log_path.name + ".head")


def _lock_path(log_path: Path) -> Path:
    return log_path.with_name(log_path.name + ".lock")


def _owner_only(path: Path, mode: int) -> None:
    if not _WINDOWS:
        os.chmod(path, mode)


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


# --------------------------------------------------------------------------- reading a log


@dataclass(frozen=True)
class _Chain:
    """How far a log has been verified: the last good entry and where the next line starts."""

    seq: int = 0
    mac: str | None = None
    line: int = 0
    offset: int = 0


@dataclass(frozen=True)
class _Problem:
    kind: TamperKind
    line: int | None
    message: str


@dataclass(frozen=True)
class _Line:
    number: int
    end: int  # file offset just after this line
    status: Literal["entry", "partial", "not-json", "not-entry"]
    fields: dict[str, Any] | None = None
    authentic: bool = False  # the MAC verifies with this key
    canonical: bool = False  # the bytes are exactly what the writer produces
    valid: bool = False  # the fields are exactly an AuditEntry
    why: str = ""

    @property
    def seq(self) -> int:
        assert self.fields is not None
        return int(self.fields["seq"])

    def get(self, name: str) -> Any:
        assert self.fields is not None
        return self.fields.get(name)


@dataclass(frozen=True)
class _Head:
    last_seq: int
    last_mac: str | None


@dataclass(frozen=True)
class _HeadState:
    head: _Head | None = None
    status: Literal["valid", "missing", "invalid"] = "missing"
    wrong_key: bool = False


def _read_line(fh: IO[bytes]) -> bytes:
    raw = fh.readline(MAX_LINE_BYTES + 1)
    if len(raw) <= MAX_LINE_BYTES or raw.endswith(b"\n"):
        return raw
    # A giant line is foreign: skip the rest of it without holding it in memory.
    while chunk := fh.readline(MAX_LINE_BYTES):
        if chunk.endswith(b"\n"):
            return raw + b"\n"
    return raw


def _examine(raw: bytes, number: int, end: int, key: bytes) -> _Line:
    if not raw.endswith(b"\n"):
        return _Line(number, end, "partial")
    body = raw[:-1]
    if len(body) >= MAX_LINE_BYTES:
        return _Line(number, end, "not-entry", why="longer than any audit entry")
    try:
        obj = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return _Line(number, end, "not-json")
    if not isinstance(obj, dict):
        return _Line(number, end, "not-entry", why=f"a JSON {type(obj).__name__}, not an object")
    seq, mac = obj.get("seq"), obj.get("mac")
    if not (isinstance(seq, int) and not isinstance(seq, bool) and isinstance(mac, str)):
        return _Line(number, end, "not-entry", why="no seq or mac")
    rest = {k: v for k, v in obj.items() if k != "mac"}
    try:
        authentic = _same(_mac(key, _ENTRY_DOMAIN, rest), mac)
    except ValueError:  # NaN or Infinity: never written by this module
        authentic = False
    canonical = set(obj) == set(ENTRY_FIELDS) and body == _layout(obj, ENTRY_FIELDS)
    try:
        AuditEntry.model_validate(obj)
        valid = True
    except ValidationError:
        valid = False
    return _Line(number, end, "entry", obj, authentic, canonical, valid)


def _read_head(path: Path, key: bytes) -> _HeadState:
    try:
        with open(path, "rb") as fh:
            data = fh.read(_MAX_HEAD_BYTES + 1)
    except FileNotFoundError:
        return _HeadState(status="missing")
    invalid = _HeadState(status="invalid")
    if len(data) > _MAX_HEAD_BYTES or not data.endswith(b"\n"):
        return invalid
    try:
        obj = json.loads(data[:-1].decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return invalid
    if not isinstance(obj, dict) or set(obj) != set(HEAD_FIELDS) or obj["v"] != FORMAT_VERSION:
        return invalid
    if obj["kid"] != key_id(key):
        return _HeadState(status="invalid", wrong_key=True)
    last_seq, last_mac = obj["lastSeq"], obj["lastMac"]
    if not (isinstance(last_seq, int) and not isinstance(last_seq, bool) and last_seq >= 0):
        return invalid
    if (last_seq == 0) != (last_mac is None) or (last_mac is not None and not _HEX64.fullmatch(str(last_mac))):
        return invalid
    try:
        authentic = _same(_mac(key, _HEAD_DOMAIN, {k: v for k, v in obj.items() if k != "mac"}), obj["mac"])
    except ValueError:
        authentic = False
    if not authentic or data[:-1] != _layout(obj, HEAD_FIELDS):
        return invalid
    return _HeadState(_Head(last_seq, last_mac), "valid")


def _plural(n: int, one: str, many: str) -> str:
    return one if n == 1 else many


def _span(lo: int, hi: int) -> str:
    return f"entry {lo}" if lo == hi else f"entries {lo}-{hi}"


class _Walker:
    """Walks a log's lines from a verified point and names the first problem, if any.

    Classification looks ahead or back in the file only once a problem is found,
    so an intact log is read once, line by line, whatever its size.
    """

    def __init__(self, fh: IO[bytes], key: bytes, head: _HeadState) -> None:
        self._fh = fh
        self._key = key
        self._kid = key_id(key)
        self._head = head

    def lines(self, offset: int, number: int) -> Iterator[_Line]:
        self._fh.seek(offset)
        while raw := _read_line(self._fh):
            number += 1
            yield _examine(raw, number, self._fh.tell(), self._key)

    def expected_prev(self, chain: _Chain, line: _Line) -> str | None:
        return _genesis(self._key, line.get("app"), line.get("time")) if chain.seq == 0 else chain.mac

    def continues(self, chain: _Chain, line: _Line) -> bool:
        return line.seq == chain.seq + 1 and line.get("prev") == self.expected_prev(chain, line)

    def walk(self, start: _Chain) -> tuple[_Chain, _Problem | None, str | None]:
        """The last good point, the first problem, and the mac of the entry the head names (if passed)."""
        head = self._head.head
        chain = start
        mac_at_head = start.mac if head is not None and head.last_seq == start.seq else None
        for line in self.lines(start.offset, start.line):
            problem = self._judge(chain, line)
            if problem is not None:
                return chain, problem, mac_at_head
            chain = _Chain(line.seq, str(line.get("mac")), line.number, line.end)
            if head is not None and head.last_seq == chain.seq:
                mac_at_head = chain.mac
        return chain, None, mac_at_head

    def _judge(self, chain: _Chain, line: _Line) -> _Problem | None:
        n = line.number
        if line.status == "partial":
            return _Problem("truncated", n, "incomplete last line (an interrupted write, or the file was cut)")
        if line.status == "not-json":
            return _Problem("bad-json", n, "line is not JSON")
        if line.status == "not-entry":
            return _Problem("bad-json", n, f"line is not an audit entry ({line.why})")
        if not line.authentic:
            if chain.seq == 0 and line.get("kid") != self._kid and self.find(0, 0, lambda x: True) is None:
                # Not one line verifies and the first names another key: a key problem, not an edit.
                kid = line.get("kid")
                shown = kid if isinstance(kid, str) and _KEY_ID.fullmatch(kid) else "unknown"
                return _Problem(
                    "wrong-key", n, f"log written with another key (key id {shown}, this key is {self._kid})"
                )
            return self._forged(chain, line)
        if not line.valid:
            return _Problem("bad-json", n, "entry has fields or values the audit format does not allow")
        if not line.canonical:
            return _Problem("edited", n, "entry reformatted (same fields, other bytes)")
        expected = chain.seq + 1
        if line.seq == expected:
            if line.get("prev") != self.expected_prev(chain, line):
                return _Problem(
                    "inserted", n, f"entry {line.seq} of another log inserted (its prev is not this chain's)"
                )
            return None
        if line.seq > expected:
            later = self.find(line.end, n, lambda x: expected <= x.seq < line.seq)
            if later is not None:
                return _Problem(
                    "reordered", n, f"entry {line.seq} out of order (entry {later.seq} is at line {later.number})"
                )
            missing = line.seq - expected
            return _Problem(
                "deleted", n, f"{_span(expected, line.seq - 1)} deleted ({missing} {_plural(missing, 'line', 'lines')})"
            )
        first = self.find(0, 0, lambda x: x.seq == line.seq)
        if first is not None and first.number < n and first.get("mac") == line.get("mac"):
            return _Problem("inserted", n, f"copy of entry {line.seq} (line {first.number}) inserted")
        return _Problem("inserted", n, f"entry {line.seq} of another log inserted (this log is past it)")

    def _forged(self, chain: _Chain, line: _Line) -> _Problem:
        """A line whose MAC fails: edited in place, or forged and inserted? The lines around it tell."""
        n = line.number
        nxt = self.find(line.end, n, lambda x: True)
        if nxt is not None and self.continues(chain, nxt):
            # The real chain resumes right after, without this line: it was added, not changed.
            what = "forged line" if nxt.number == n + 1 else f"forged lines {n}-{nxt.number - 1}"
            return _Problem("inserted", n, f"{what} inserted (mac mismatch; the chain continues without it)")
        head = self._head.head
        if nxt is None and head is not None and head.last_seq == chain.seq:
            return _Problem("inserted", n, "forged line appended after the last recorded entry (mac mismatch)")
        return _Problem("edited", n, "entry edited (mac mismatch)")

    def find(self, offset: int, number: int, match: Callable[[_Line], bool]) -> _Line | None:
        """The first authentic entry from ``offset`` on that ``match`` accepts."""
        for line in self.lines(offset, number):
            if line.status == "entry" and line.authentic and match(line):
                return line
        return None


@dataclass(frozen=True)
class _Check:
    chain: _Chain
    problem: _Problem | None
    head: HeadStatus


def _check(fh: IO[bytes], key: bytes, head: _HeadState, start: _Chain, *, require_head: bool) -> _Check:
    """Walk from ``start`` to the end, then hold the result against the head sidecar."""
    walker = _Walker(fh, key, head)
    chain, problem, mac_at_head = walker.walk(start)
    if problem is not None:
        return _Check(chain, problem, "unchecked")
    if head.status == "missing":
        if require_head:
            return _Check(chain, _Problem("head-missing", None, _HEAD_MISSING), "missing")
        return _Check(chain, None, "missing")
    if head.status == "invalid" or head.head is None:
        if head.wrong_key and chain.seq == 0:
            return _Check(chain, _Problem("wrong-key", None, "head file written with another key"), "invalid")
        return _Check(chain, _Problem("head-mismatch", None, _HEAD_MISMATCH), "invalid")
    recorded = head.head
    if recorded.last_seq > chain.seq:
        lost = recorded.last_seq - chain.seq
        return _Check(
            chain,
            _Problem(
                "truncated",
                chain.line + 1,
                f"{_span(chain.seq + 1, recorded.last_seq)} deleted from the end "
                f"({lost} {_plural(lost, 'line', 'lines')}; the head file records entry {recorded.last_seq})",
            ),
            "invalid",
        )
    if recorded.last_seq < start.seq and start.offset > 0:
        # A writer catching up from the middle never saw that entry: look it up.
        found = walker.find(0, 0, lambda x: x.seq == recorded.last_seq)
        mac_at_head = str(found.get("mac")) if found is not None else None
    if mac_at_head != recorded.last_mac:
        return _Check(chain, _Problem("head-mismatch", None, _HEAD_MISMATCH), "invalid")
    # A head behind the log is the crash window between an entry's fsync and the head's
    # update; the entries past it carry valid MACs, which nobody without the key can make.
    return _Check(chain, None, "verified")


_HEAD_MISSING = "head file missing, so deleted entries at the end cannot be ruled out"
_HEAD_MISMATCH = "head file does not match this log (edited, or another log's)"


def verify(path: Path | str, *, key: bytes | None = None, require_head: bool = True) -> VerifyReport:
    """Check a log's chain and its head sidecar; the first problem found is reported.

    ``key`` defaults to the per-user key file. ``require_head=False`` accepts a log
    copied without its ``.head`` file (a deleted tail then goes unnoticed).
    Raises OSError when the log cannot be read and AuditKeyError for a bad default key.
    """
    path = Path(path)
    key = _check_key(load_key() if key is None else key)
    with _shared_lock(_lock_path(path)):
        # The head first: a live writer moves it only after the entry is on disk,
        # so a head read before the log can never be ahead of it.
        head = _read_head(_head_path(path), key)
        with open(path, "rb") as fh:
            result = _check(fh, key, head, _Chain(), require_head=require_head)
    problem = result.problem
    return VerifyReport(
        path=str(path),
        ok=problem is None,
        entries=result.chain.seq,
        first_bad_line=problem.line if problem else None,
        kind=problem.kind if problem else None,
        problem=problem.message if problem else None,
        head=result.head,
    )


# --------------------------------------------------------------------------- cross-process locking


@contextlib.contextmanager
def _exclusive(fd: int, *, timeout: float = _LOCK_TIMEOUT, shared: bool = False) -> Iterator[None]:
    """An OS lock on the ``.lock`` file, so apps sharing a log path append one at a time.

    ``shared`` lets readers overlap on POSIX; Windows' byte-range locks have no shared form.
    """
    deadline = time.monotonic() + timeout
    if sys.platform == "win32":  # spelled out so type checkers pick the platform's module
        import msvcrt  # noqa: PLC0415

        while True:
            os.lseek(fd, 0, os.SEEK_SET)
            try:
                msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise _lock_timeout() from None
                time.sleep(0.005)
        try:
            yield
        finally:
            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
    else:
        import fcntl  # noqa: PLC0415

        while True:
            try:
                fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise _lock_timeout() from None
                time.sleep(0.005)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)


def _lock_timeout() -> ProbeError:
    return ProbeError(
        "Another process held the audit log's lock for too long.",
        code="OPERATION_TIMED_OUT",
        suggestion="Check for a hung process writing the same audit log, then retry.",
    )


@contextlib.contextmanager
def _shared_lock(path: Path) -> Iterator[None]:
    """Best effort for ``verify``: wait out a live writer's append so no half-written line is read.

    Never creates the lock file, and goes ahead unlocked if it cannot be opened
    (a copied log, another user's) or a writer holds it too long.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    except OSError:
        yield
        return
    try:
        with contextlib.ExitStack() as stack:
            with contextlib.suppress(ProbeError, OSError):
                stack.enter_context(_exclusive(fd, timeout=2.0, shared=True))
            yield
    finally:
        os.close(fd)


# --------------------------------------------------------------------------- writing a log


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class AuditLog:
    """Appends entries to a chained JSONL log; safe to call from any number of threads.

    Construction opens the log and checks it: an intact existing log is continued
    (its chain and sequence go on); one that fails verification is left untouched
    and a sibling ``<name>.<n><suffix>`` is used instead, with a warning. The file
    actually written is ``path``. Several processes may share one log path: an
    OS lock serializes their appends, and each adopts the entries the others wrote.
    """

    def __init__(self, path: Path | str, *, key: bytes, app_id: str) -> None:
        if not isinstance(app_id, str) or not app_id or len(app_id) > 200 or _CONTROL.search(app_id):
            raise InvalidArgumentError(
                "app_id must be 1 to 200 printable characters.", suggestion="Pass the probe's app id."
            )
        self._base = Path(path)
        self._key = _check_key(key)
        self._kid = key_id(key)
        self._app = app_id
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._lock_fd: int | None = None
        self._path = self._base
        self._chain = _Chain()
        self._open_first_usable()

    @property
    def path(self) -> Path:
        """The file being appended to (the given path, or a sibling if that one failed verification)."""
        return self._path

    def record(
        self,
        tool: str,
        *,
        target: str | None = None,
        action: str | None = None,
        property: str | None = None,  # noqa: A002 - the audit field's own name
        outcome: Outcome = "ok",
    ) -> AuditEntry:
        """Append one entry and return it. There is no parameter for a value, by design.

        Raises InvalidArgumentError for a malformed name (the message never repeats
        the input, which could be a value passed by mistake), OSError if the entry
        cannot be made durable, and ProbeError OPERATION_TIMED_OUT if another
        process sharing the log holds its lock for more than 10 s. It does file
        I/O and an fsync (about a millisecond), so call it off the UI thread.
        """
        what = _validated(tool=tool, target=target, action=action, property=property, outcome=outcome)
        with self._lock:
            for _ in range(3):
                if self._fd is None or self._lock_fd is None:
                    raise ProbeError("The audit log is closed.", code="INTERNAL", suggestion="Open a new AuditLog.")
                with _exclusive(self._lock_fd):
                    reason = self._follow()
                    if reason is None:
                        return self._append(what)
                log.warning("audit log %s %s; continuing in another file", self._path, reason)
                self._close_files()
                self._open_first_usable()
        raise ProbeError(
            "The audit log kept changing under this writer.",
            code="INTERNAL",
            suggestion="Check what else writes to the audit directory.",
        )

    def close(self) -> None:
        with self._lock:
            self._close_files()

    def __enter__(self) -> AuditLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"AuditLog(path={str(self._path)!r}, seq={self._chain.seq})"

    # -- internals; every method below runs with self._lock held (or from __init__)

    def _candidates(self) -> Iterator[Path]:
        yield self._base
        for n in range(1, _MAX_ROTATIONS + 1):
            yield self._base.with_name(f"{self._base.stem}.{n}{self._base.suffix}")

    def _open_first_usable(self) -> None:
        self._base.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        for candidate in self._candidates():
            reason = self._try_open(candidate)
            if reason is None:
                return
            log.warning("audit log %s %s; it is left as it is and the next name is tried", candidate, reason)
        raise ProbeError(
            f"No usable audit log file next to {self._base}: every candidate failed verification.",
            code="INTERNAL",
            suggestion="Move the damaged logs elsewhere after examining them.",
        )

    def _try_open(self, path: Path) -> str | None:
        """Open ``path`` for appending if it is new or verifies; otherwise say why not."""
        lock_fd = os.open(_lock_path(path), os.O_RDWR | os.O_CREAT | getattr(os, "O_BINARY", 0), 0o600)
        try:
            _owner_only(_lock_path(path), 0o600)
            with _exclusive(lock_fd):
                fd, chain, reason = self._open_locked(path)
        except BaseException:
            _close(lock_fd)
            raise
        if fd is None:
            _close(lock_fd)
            return reason
        self._fd, self._lock_fd, self._path, self._chain = fd, lock_fd, path, chain
        return None

    def _open_locked(self, path: Path) -> tuple[int | None, _Chain, str | None]:
        if not path.exists() and _head_path(path).exists():
            # Keep the evidence as it is: a fresh file here would bury the deletion.
            return None, _Chain(), "is missing but its head file remains (the log was deleted)"
        try:
            fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_BINARY", 0), 0o600)
        except OSError as exc:
            if not path.exists():
                raise  # a new log cannot be created at all: another name would not help
            return None, _Chain(), f"cannot be opened ({exc.strerror})"
        try:
            # Tightens a pre-existing log too: its entries name what a user did.
            _owner_only(path, 0o600)
            chain, reason = self._adopt(path, fd)
        except OSError as exc:
            _close(fd)
            return None, _Chain(), f"cannot be used ({exc.strerror})"
        except BaseException:
            _close(fd)
            raise
        if reason is not None:
            _close(fd)
            return None, chain, reason
        return fd, chain, None

    def _adopt(self, path: Path, fd: int) -> tuple[_Chain, str | None]:
        """Where an opened log's chain stands, or why it must not be continued."""
        head = _read_head(_head_path(path), self._key)
        if os.fstat(fd).st_size == 0 and head.status == "missing":
            # New, or made by a writer that died before its first head write: there is
            # nothing to protect yet (deleting the whole file would hide as much).
            self._write_head(path, _Chain())
            return _Chain(), None
        with os.fdopen(os.dup(fd), "rb") as fh:
            result = _check(fh, self._key, head, _Chain(), require_head=True)
        problem = result.problem
        if problem is not None:
            where = f" at line {problem.line}" if problem.line else ""
            return result.chain, f"failed verification ({problem.kind}{where}: {problem.message})"
        if head.head is None or head.head.last_seq != result.chain.seq:
            self._write_head(path, result.chain)  # bring a head a crash left behind up to date
        return result.chain, None

    def _follow(self) -> str | None:
        """Before appending: is the file still ours, and did another process append? None if fine."""
        assert self._fd is not None
        ours = os.fstat(self._fd)
        # On Windows an open file cannot be deleted or renamed (Python opens without
        # FILE_SHARE_DELETE), so only POSIX needs to ask whether the name still leads here.
        if not _WINDOWS:
            try:
                on_disk = os.stat(self._path)
            except FileNotFoundError:
                return "was deleted while in use"
            if (on_disk.st_dev, on_disk.st_ino) != (ours.st_dev, ours.st_ino):
                return "was moved or replaced while in use"
        if ours.st_size == self._chain.offset:
            return None
        if ours.st_size < self._chain.offset:
            return "shrank while in use (entries were deleted)"
        head = _read_head(_head_path(self._path), self._key)
        with os.fdopen(os.dup(self._fd), "rb") as fh:
            result = _check(fh, self._key, head, self._chain, require_head=True)
        if result.problem is not None:
            return f"failed verification while in use ({result.problem.kind}: {result.problem.message})"
        self._chain = result.chain
        return None

    def _append(self, what: AuditAction) -> AuditEntry:
        assert self._fd is not None
        chain = self._chain
        stamp = _now()
        fields: dict[str, Any] = {
            "v": FORMAT_VERSION,
            "seq": chain.seq + 1,
            "time": stamp,
            "app": self._app,
            "tool": what.tool,
            "target": what.target,
            "action": what.action,
            "property": what.property,
            "outcome": what.outcome,
            "kid": self._kid,
            "prev": _genesis(self._key, self._app, stamp) if chain.seq == 0 else chain.mac,
        }
        fields["mac"] = _mac(self._key, _ENTRY_DOMAIN, fields)
        line = _layout(fields, ENTRY_FIELDS) + b"\n"
        view = memoryview(line)
        while view:  # a short write (disk nearly full) must not interleave with anything
            written = os.write(self._fd, view)
            view = view[written:]
        os.fsync(self._fd)
        # The entry is durable from here: the chain moves even if the head update fails.
        self._chain = replace(
            chain, seq=fields["seq"], mac=fields["mac"], line=chain.line + 1, offset=chain.offset + len(line)
        )
        try:
            self._write_head(self._path, self._chain)
        except OSError as exc:
            # A head one entry behind still verifies; losing the entry would be worse than this.
            log.warning(
                "audit head %s not updated (%s); entry %d is on disk",
                _head_path(self._path),
                exc.strerror,
                fields["seq"],
            )
        return AuditEntry.model_validate(fields)

    def _write_head(self, path: Path, chain: _Chain) -> None:
        fields: dict[str, Any] = {"v": FORMAT_VERSION, "lastSeq": chain.seq, "lastMac": chain.mac, "kid": self._kid}
        fields["mac"] = _mac(self._key, _HEAD_DOMAIN, fields)
        target = _head_path(path)
        fd, temp = tempfile.mkstemp(prefix=".tmp-", suffix=".head", dir=path.parent)
        try:
            _owner_only(Path(temp), 0o600)
            with os.fdopen(fd, "wb") as fh:
                fh.write(_layout(fields, HEAD_FIELDS) + b"\n")
                fh.flush()
                os.fsync(fh.fileno())
            _replace(temp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise

    def _close_files(self) -> None:
        _close(self._fd, self._lock_fd)
        self._fd = self._lock_fd = None


def _close(*fds: int | None) -> None:
    for fd in fds:
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)


def _replace(temp: str, target: Path) -> None:
    # On Windows a reader holding the head open makes the rename fail for a moment; retry briefly.
    attempts = 50 if _WINDOWS else 1
    for attempt in range(attempts):
        try:
            os.replace(temp, target)
            return
        except PermissionError:
            if attempt == attempts - 1:
                raise
            time.sleep(0.01)


def _validated(**fields: object) -> AuditAction:
    try:
        return AuditAction.model_validate(fields)
    except ValidationError as exc:
        # Name the field and the rule, never the input: a value passed by mistake must not reach a log.
        rules = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}"
            for err in exc.errors(include_input=False, include_url=False)
        )
        raise InvalidArgumentError(
            f"Invalid audit entry ({rules}).",
            suggestion="tool is a tool name, action and property are identifiers, outcome is 'ok' or an error code.",
        ) from None
