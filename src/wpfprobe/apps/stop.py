"""``wpfprobe stop APP``: end a running app cleanly, and make sure it is gone.

First the app is asked to close as its user would (its probe's close request:
the app's closing events run, and its own code after its UI loop, so it exits
with its own status); if it is still there after ``timeout`` seconds (it
refused, asked "save changes?", or its UI thread is blocked), it gets SIGTERM
(on Windows: terminated), which the probe in it answers by removing its
manifest and ending as SIGTERM ends a process. Then this waits until the
process is gone and removes a manifest it left (one that could not clean up:
killed, or terminated on Windows).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit, urlunsplit

import psutil

from wpfprobe.core.paths import sessions_dir
from wpfprobe.mcp import manifest as _manifest
from wpfprobe.mcp.client import owns_port
from wpfprobe.mcp.manifest import Manifest

CLOSE_PATH = "/wpfprobe/close"  # mcp.server.CLOSE_PATH; not imported, so stopping never loads the server
TERM_WAIT = 10.0
"""Seconds to wait for the process to go after SIGTERM (the probe ends it at once; an app that
set its own handler may take its time)."""

POLL = 0.05

How = Literal["closed", "terminated"]


@dataclass(frozen=True)
class Stopped:
    how: How
    """"closed": it closed when asked; "terminated": it needed SIGTERM."""
    seconds: float
    manifest_removed_here: bool
    """The app left its manifest behind and this removed it."""


class StillRunningError(Exception):
    """The app did not end within the waits; it is still running."""


def stop_app(manifest: Manifest, *, timeout: float = 10.0) -> Stopped:
    """Ask the app to close, SIGTERM it after ``timeout`` s if it is still there, and wait until
    it is gone with its manifest. Raises StillRunningError if it outlives both waits."""
    started = time.monotonic()
    how: How = "closed"
    if not (_ask_to_close(manifest) and _wait_gone(manifest, timeout)):
        how = "terminated"
        _terminate(manifest)
        if not _wait_gone(manifest, TERM_WAIT):
            raise StillRunningError(
                f"{manifest.app_name} (pid {manifest.pid}) is still running {time.monotonic() - started:.0f} s "
                "after it was asked to close and sent SIGTERM"
            )
    path = sessions_dir() / f"{manifest.app_id}.json"
    removed = _remove_if_left(path, manifest)
    return Stopped(how=how, seconds=time.monotonic() - started, manifest_removed_here=removed)


def _ask_to_close(manifest: Manifest) -> bool:
    """POST the close request with the manifest's token; False if the app cannot be asked."""
    if owns_port(manifest) is False:
        return False  # the token goes only to the process the manifest names
    parts = urlsplit(manifest.url)
    url = urlunsplit((parts.scheme, parts.netloc, CLOSE_PATH, "", ""))
    request = urllib.request.Request(
        url, data=b"", method="POST", headers={"Authorization": f"Bearer {manifest.token}"}
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as answer:
            return int(answer.status) == 202
    except urllib.error.HTTPError as refused:
        refused.close()
        # 409: its probe is stopping already (the app is closing): wait for it all the same.
        return refused.code == 409
    except (OSError, ValueError):
        return False


def _wait_gone(manifest: Manifest, timeout: float) -> bool:
    """Whether the app's process ended within ``timeout`` s (exited and not reaped yet counts as
    ended: only its parent can reap it; a pid used again by another process is not the app)."""
    deadline = time.monotonic() + timeout
    while _manifest.is_live(manifest):
        if time.monotonic() >= deadline:
            return False
        time.sleep(POLL)
    return True


def _terminate(manifest: Manifest) -> None:
    if not _manifest.is_live(manifest):
        return  # gone meanwhile, or its pid is another process's now
    try:
        if sys.platform == "win32":
            psutil.Process(manifest.pid).terminate()
        else:
            os.kill(manifest.pid, signal.SIGTERM)
    except (ProcessLookupError, psutil.NoSuchProcess):
        pass


def _remove_if_left(path: Path, manifest: Manifest) -> bool:
    """Remove the app's manifest if it is still there (only this app's: same pid, not live)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if data.get("pid") != manifest.pid or _manifest.is_live(manifest):
        return False
    _manifest.remove(path)
    return True
