"""Where this user's wpfprobe files live, and how a private file is written.

Lasting files (profiles, the audit key and logs, launch logs) and the
runtime's session manifests each have their place; every file is written
owner-only and atomically.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any


def home_dir() -> Path:
    """Where this user's lasting wpfprobe files live (profiles, audit key and logs, launch logs).

    ``$WPFPROBE_HOME``, else ``%LOCALAPPDATA%\\wpfprobe`` on Windows, else
    ``$XDG_STATE_HOME/wpfprobe`` (``~/.local/state/wpfprobe``): never the runtime
    directory, which is emptied at logout and would take the audit key with it.
    """
    home = os.environ.get("WPFPROBE_HOME")
    if home:
        return Path(home)
    if sys.platform.startswith("win"):
        return Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local") / "wpfprobe"
    return Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state") / "wpfprobe"


def sessions_dir() -> Path:
    """``$WPFPROBE_HOME/sessions``, else the user's runtime directory (manifests die with the
    session, as the processes they describe do), else ``home_dir()/sessions``."""
    if not os.environ.get("WPFPROBE_HOME") and not sys.platform.startswith("win") and os.environ.get("XDG_RUNTIME_DIR"):
        return Path(os.environ["XDG_RUNTIME_DIR"]) / "wpfprobe" / "sessions"
    return home_dir() / "sessions"


def write_private_json(target: Path, data: Any, *, indent: int | None = None) -> None:
    """Replace ``target`` with ``data`` as JSON atomically, owner-only (0600 in a 0700 directory)
    from its first byte: readers see the old file or the new one, never a part or a
    moment when others could read it."""
    directory = target.parent
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    _owner_only(directory, 0o700)
    fd, temp = tempfile.mkstemp(prefix=".tmp-", suffix=target.suffix, dir=directory)
    try:
        _owner_only(Path(temp), 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=indent)
            fh.write("\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def _owner_only(path: Path, mode: int) -> None:
    if not sys.platform.startswith("win"):
        os.chmod(path, mode)


__all__ = ["home_dir", "sessions_dir", "write_private_json"]
