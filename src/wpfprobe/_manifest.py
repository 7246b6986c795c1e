"""Discovery manifests (SPEC section 7): one JSON file per live probe.

Written atomically (a private temp file renamed into place) with owner-only
permissions, only once the server listens; removed on exit. A manifest whose
pid is dead, or whose process started at another time than recorded (the pid
was reused), is stale: readers skip it and delete it.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

SCHEMA_VERSION = 1
# Start times are floats from the OS; a tiny tolerance absorbs rounding.
_START_TIME_TOLERANCE = 0.05


class Manifest(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True, extra="ignore")

    schema_version: int = SCHEMA_VERSION
    app_id: str
    app_name: str
    pid: int
    process_start_time: float
    exe: str
    toolkit: str
    runtime: str
    url: str
    token: str = Field(repr=False)
    tier: Literal["read", "interact", "mutate"]
    started_at: str
    version: str

    def __repr__(self) -> str:  # the token never reaches a log through repr
        return f"Manifest(app_id={self.app_id!r}, pid={self.pid}, url={self.url!r})"


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


def process_start_time(pid: int) -> float | None:
    """When process ``pid`` started (seconds since the epoch), or None if it is not running."""
    import psutil  # noqa: PLC0415

    try:
        process = psutil.Process(pid)
        # A killed process its parent has not reaped yet still has a start time,
        # but it serves nothing: it is as dead as a missing one.
        if process.status() == psutil.STATUS_ZOMBIE:
            return None
        return float(process.create_time())
    except (psutil.NoSuchProcess, psutil.ZombieProcess, psutil.AccessDenied):
        return None


def write(manifest: Manifest, directory: Path | None = None) -> Path:
    target = (directory or sessions_dir()) / f"{manifest.app_id}.json"
    write_private_json(target, manifest.model_dump(mode="json", by_alias=True))
    return target


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


def remove(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


def is_live(manifest: Manifest) -> bool:
    started = process_start_time(manifest.pid)
    return started is not None and abs(started - manifest.process_start_time) <= _START_TIME_TOLERANCE


def read_all(directory: Path | None = None, *, clean: bool = True) -> list[Manifest]:
    """Live manifests; stale ones are skipped and, with ``clean``, deleted."""
    directory = directory or sessions_dir()
    if not directory.is_dir():
        return []
    found = []
    for path in sorted(directory.glob("*.json")):
        manifest = _read(path)
        if manifest is None:
            continue
        if is_live(manifest):
            found.append(manifest)
        elif clean:
            remove(path)
    return found


def _read(path: Path) -> Manifest | None:
    if not sys.platform.startswith("win"):
        try:
            info = path.stat()
        except OSError:
            return None
        # Another user's file, or one others may write, is not to be trusted.
        if info.st_uid != os.getuid() or info.st_mode & 0o077:
            return None
    try:
        return Manifest.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, ValidationError):
        return None


def _owner_only(path: Path, mode: int) -> None:
    if not sys.platform.startswith("win"):
        os.chmod(path, mode)
