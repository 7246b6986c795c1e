"""Opaque, signed page cursors over snapshots that expire.

A cursor names a snapshot (the ordered keys of a list as it was when the
first page was taken) and an offset. Snapshots live in memory for a TTL; a
well-formed cursor whose snapshot expired or was evicted yields the fresh
first page with ``stale=True``. A cursor that does not decode, or whose
signature does not match, is INVALID_ARGUMENT.

Only caller threads touch this store, never the UI thread; dict operations
are atomic under the GIL, so it takes no lock.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import itertools
import json
import os
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from wpfprobe.core.errors import InvalidArgumentError

MAX_TAKE = 200


@dataclass(frozen=True, slots=True)
class Snapshot:
    kind: str
    scope: str
    keys: tuple[str, ...]
    created: float


@dataclass(frozen=True, slots=True)
class Resumed:
    """Where a cursor points. ``keys`` is None when its snapshot has expired."""

    snapshot_id: int
    keys: tuple[str, ...] | None
    offset: int


class CursorStore:
    def __init__(self, *, ttl: float, max_snapshots: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl = ttl
        self.max_snapshots = max_snapshots
        self._clock = clock
        self._secret = os.urandom(16)
        self._ids = itertools.count(1)
        self._snapshots: OrderedDict[int, Snapshot] = OrderedDict()

    def decode(self, cursor: str, *, kind: str, scope: str) -> tuple[int, int]:
        """(snapshot id, offset) of a cursor, checked against the query it belongs to."""
        # Every cursor made here is ASCII; anything else would reach the HMAC comparison (which raises
        # TypeError for non-ASCII str) or the body's encoding (a lone surrogate) as a crash, not a refusal.
        if not isinstance(cursor, str) or "." not in cursor or len(cursor) > 512 or not cursor.isascii():
            raise _malformed()
        body, _, sig = cursor.rpartition(".")
        if not hmac.compare_digest(sig, self._sign(body)):
            raise _malformed()
        try:
            raw = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
            sid, offset, ckind, cscope = int(raw["s"]), int(raw["o"]), str(raw["k"]), str(raw["c"])
        except (ValueError, KeyError, TypeError, binascii.Error):
            raise _malformed() from None
        if ckind != kind or cscope != scope:
            raise InvalidArgumentError(
                "This cursor belongs to a different query.",
                suggestion="Pass the cursor only with the same tool and arguments that returned it.",
            )
        if offset < 0:
            raise _malformed()
        return sid, offset

    def resume(self, cursor: str, *, kind: str, scope: str) -> Resumed:
        sid, offset = self.decode(cursor, kind=kind, scope=scope)
        snap = self._live(sid)
        if snap is None:
            return Resumed(sid, None, 0)
        if offset > len(snap.keys):
            raise _malformed()
        return Resumed(sid, snap.keys, offset)

    def save(self, kind: str, scope: str, keys: Sequence[str]) -> int:
        sid = next(self._ids)
        self._store(sid, Snapshot(kind, scope, tuple(keys), self._clock()))
        return sid

    def cursor_for(self, sid: int, offset: int, kind: str, scope: str) -> str:
        return self._encode(sid, offset, kind, scope)

    def _live(self, sid: int) -> Snapshot | None:
        snap = self._snapshots.get(sid)
        if snap is None:
            return None
        if self._clock() - snap.created > self.ttl:
            self._snapshots.pop(sid, None)
            return None
        return snap

    def _store(self, sid: int, snap: Snapshot) -> None:
        self._snapshots[sid] = snap
        now = self._clock()
        for old_id, old in list(self._snapshots.items()):
            if now - old.created > self.ttl:
                self._snapshots.pop(old_id, None)
        while len(self._snapshots) > self.max_snapshots:
            self._snapshots.popitem(last=False)

    def _encode(self, sid: int, offset: int, kind: str, scope: str) -> str:
        raw = json.dumps({"s": sid, "o": offset, "k": kind, "c": scope}, separators=(",", ":"))
        body = base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")
        return f"{body}.{self._sign(body)}"

    def _sign(self, body: str) -> str:
        return hmac.new(self._secret, body.encode(), hashlib.sha256).hexdigest()[:16]


def check_take(take: int, *, limit: int = MAX_TAKE) -> int:
    if isinstance(take, bool) or not isinstance(take, int) or take < 1 or take > limit:
        raise InvalidArgumentError(
            f"take must be an integer from 1 to {limit}, got {take!r}.",
            suggestion=f"Use take between 1 and {limit} and follow nextCursor for more.",
        )
    return take


def _malformed() -> InvalidArgumentError:
    return InvalidArgumentError(
        "The cursor is malformed.",
        suggestion="Pass nextCursor exactly as a previous page returned it, or omit it for the first page.",
    )
