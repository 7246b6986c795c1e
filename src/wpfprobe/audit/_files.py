"""The files an audit log is made of, and how processes share them.

Where logs live by default, the ``<log>.head`` and ``<log>.lock`` sidecars,
owner-only permissions, and the OS lock on ``<log>.lock`` that lets several
apps append to one log (and ``verify`` read it) without ever seeing a
half-written line. Both the writer and the verifier use these.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from wpfprobe.core.errors import ProbeError
from wpfprobe.core.paths import home_dir

# How long a writer waits for another process's append to finish before giving up.
_LOCK_TIMEOUT = 10.0
_WINDOWS = sys.platform == "win32"


def audit_home() -> Path:
    """``$WPFPROBE_HOME`` (or its platform default): lasting files, never the runtime directory."""
    return home_dir()


def default_log_path(app_name: str) -> Path:
    """``$WPFPROBE_HOME/audit/<app name>.jsonl``: stable across restarts, so a restarted app continues its chain."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", app_name).strip(".") or "app"
    return audit_home() / "audit" / f"{safe[:100]}.jsonl"


def _head_path(log_path: Path) -> Path:
    return log_path.with_name(log_path.name + ".head")


def _lock_path(log_path: Path) -> Path:
    return log_path.with_name(log_path.name + ".lock")


def _owner_only(path: Path, mode: int) -> None:
    if not _WINDOWS:
        os.chmod(path, mode)


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
