"""The audit key: the per-user secret every entry's HMAC is made with.

Created once, owner-only, and shared by every app of the user (two apps
starting at once end up with the same key); refused when other users could
read or replace it, since whoever holds it can forge a log. Its content is
never echoed, not even a malformed one. ``key_id`` is its public fingerprint,
stored in every entry so that a log checked with the wrong key says so.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import re
import secrets
import sys
import tempfile
from pathlib import Path

from wpfprobe.audit._files import _owner_only, audit_home
from wpfprobe.core.errors import ErrorCode, InvalidArgumentError, ProbeError

KEY_FILE_NAME = "audit.key"
KEY_BYTES = 32
# Shorter keys make HMAC guessable; 16 bytes is the floor for a key someone supplies themselves.
MIN_KEY_BYTES = 16
# Its own domain, apart from the entry, head and genesis MACs of _entry.
_KEY_ID_DOMAIN = b"wpfprobe-audit-key-id-v1"

# A key as stored, and every MAC: 64 lowercase hex digits.
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_KEY_ID = re.compile(r"^[0-9a-f]{16}$")  # also keeps terminal escapes in a forged line out of the CLI's output


class AuditKeyError(ProbeError):
    """The audit key file is missing, malformed, or readable by other users."""

    code: ErrorCode = "INVALID_ARGUMENT"


def default_key_path() -> Path:
    """The per-user audit key, ``$WPFPROBE_HOME/audit.key``."""
    return audit_home() / KEY_FILE_NAME


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
