"""Writing the log: ``AuditLog`` appends chained entries, safe across threads and processes.

Files are owner-only and every append is fsynced before the head moves, so a
crash leaves a log that verifies (at worst with an incomplete last line, which
the writer never appends after: it starts a new file instead).
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from wpfprobe.audit._entry import (
    _ENTRY_DOMAIN,
    _HEAD_DOMAIN,
    ENTRY_FIELDS,
    FORMAT_VERSION,
    HEAD_FIELDS,
    AuditAction,
    AuditEntry,
    Outcome,
    _genesis,
    _layout,
    _mac,
)
from wpfprobe.audit._files import _WINDOWS, _exclusive, _head_path, _lock_path, _owner_only
from wpfprobe.audit._key import _check_key, key_id
from wpfprobe.audit._verify import _Chain, _check, _read_head
from wpfprobe.core.errors import InvalidArgumentError, ProbeError

log = logging.getLogger("wpfprobe.audit")

# Rotation names tried after the given one (log.1.jsonl ...); a bound, not a limit anyone should reach.
_MAX_ROTATIONS = 100
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


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
