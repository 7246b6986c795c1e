"""Discovery manifests (SPEC section 7): one JSON file per live probe.

Written atomically (a private temp file renamed into place) with owner-only
permissions, by the start-up thread once the probe is all there (attached,
its UI's end hooked, its walk compiled: ``server._publish``); removed on exit. A manifest whose pid is dead, or
whose process started at another time than recorded (the pid was reused), is
stale: readers skip it and delete it.

A plain dataclass, not a pydantic model: ``start()`` imports this module
before it returns, and pydantic's import alone took longer than ``start()`` may.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import sys
from pathlib import Path
from typing import Any, Literal, get_args

from wpfprobe.core.paths import sessions_dir, write_private_json

SCHEMA_VERSION = 1
# Start times are floats from the OS; a tiny tolerance absorbs rounding.
_START_TIME_TOLERANCE = 0.05

ManifestTier = Literal["read", "interact", "mutate"]


@dataclasses.dataclass(frozen=True, repr=False)
class Manifest:
    """A manifest's fields; on disk they are camelCase (``model_dump``), read back with ``model_validate``."""

    app_id: str
    app_name: str
    pid: int
    process_start_time: float
    exe: str
    toolkit: str
    runtime: str
    url: str
    token: str
    tier: ManifestTier
    started_at: str
    version: str
    schema_version: int = SCHEMA_VERSION

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            kind = _KINDS[f.name]
            if isinstance(value, bool) or not isinstance(value, kind):
                raise ValueError(f"manifest field {_camel(f.name)} must be a {_KIND_NAMES[kind]}")
        if self.tier not in get_args(ManifestTier):
            raise ValueError("manifest field tier must be read, interact or mutate")
        if isinstance(self.process_start_time, int):
            object.__setattr__(self, "process_start_time", float(self.process_start_time))

    @classmethod
    def model_validate(cls, data: Any) -> Manifest:
        """From a JSON object, camelCase keys (or the field names); other keys are ignored.
        ValueError if it is no object, a field is missing or of the wrong type."""
        if not isinstance(data, dict):
            raise ValueError("a manifest is a JSON object")
        fields: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            for key in (_camel(f.name), f.name):
                if key in data:
                    fields[f.name] = data[key]
                    break
            else:
                if f.default is dataclasses.MISSING:
                    raise ValueError(f"manifest field {_camel(f.name)} is missing")
        return cls(**fields)

    @classmethod
    def model_validate_json(cls, text: str | bytes) -> Manifest:
        return cls.model_validate(json.loads(text))

    def model_dump(self, *, mode: str = "json", by_alias: bool = True) -> dict[str, Any]:
        """The JSON object on disk (the arguments are pydantic's, for its callers: always JSON, camelCase)."""
        return {_camel(f.name): getattr(self, f.name) for f in _ORDER}

    def __repr__(self) -> str:  # the token never reaches a log through repr
        return f"Manifest(app_id={self.app_id!r}, pid={self.pid}, url={self.url!r})"


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


_KINDS: dict[str, type | tuple[type, ...]] = {
    f.name: ((int, float) if f.name == "process_start_time" else int if f.type == "int" else str)
    for f in dataclasses.fields(Manifest)
}
_KIND_NAMES: dict[type | tuple[type, ...], str] = {int: "integer", str: "string", (int, float): "number"}
# On disk in SPEC section 7's order.
_ORDER = sorted(dataclasses.fields(Manifest), key=lambda f: f.name != "schema_version")


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
    except (OSError, ValueError, TypeError):
        return None
