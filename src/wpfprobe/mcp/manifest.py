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
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from wpfprobe.core.paths import sessions_dir, write_private_json

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
        if path.name.startswith("."):
            continue  # a manifest being written (write_private_json's temporary file)
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
