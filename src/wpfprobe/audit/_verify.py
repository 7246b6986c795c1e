"""Reading a log back: walk the chain, hold it against the head, name the first problem.

``verify`` is what an auditor runs; the writer uses the same walk (``_check``)
before it continues an existing log, so a log it appends to is one that
verifies. An intact log is read once, line by line; only when a line fails
does the walker look around it to tell an edit from an insertion, a deletion
or a reordering.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.alias_generators import to_camel

from wpfprobe.audit._entry import (
    _ENTRY_DOMAIN,
    _HEAD_DOMAIN,
    ENTRY_FIELDS,
    FORMAT_VERSION,
    HEAD_FIELDS,
    MAX_LINE_BYTES,
    AuditEntry,
    _genesis,
    _layout,
    _mac,
    _same,
)
from wpfprobe.audit._files import _head_path, _lock_path, _shared_lock
from wpfprobe.audit._key import _HEX64, _KEY_ID, _check_key, key_id, load_key

_MAX_HEAD_BYTES = 4096

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
