"""Helpers for running a probed app where there is no screen (Linux CI)."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator

__all__ = ["virtual_display"]


@contextlib.contextmanager
def virtual_display(*, width: int = 1280, height: int = 1024, depth: int = 24) -> Iterator[str | None]:
    """Make sure a display exists for the block, and yield its name.

    On Windows, or when DISPLAY is already set, nothing is started. Otherwise
    a private Xvfb is started (it picks a free display number itself), DISPLAY
    is set for the block, and both are undone afterwards.
    """
    if sys.platform.startswith("win") or os.environ.get("DISPLAY"):
        yield os.environ.get("DISPLAY")
        return
    proc, name = _start_xvfb(width=width, height=height, depth=depth)
    try:
        os.environ["DISPLAY"] = name
        yield name
    finally:
        os.environ.pop("DISPLAY", None)
        _stop(proc)


NO_XVFB = "No display and no Xvfb: install it (Debian/Ubuntu: apt-get install xvfb) or set DISPLAY."


def _start_xvfb(
    *, width: int = 1280, height: int = 1024, depth: int = 24, tied: bool = False
) -> tuple[subprocess.Popen[bytes], str]:
    """Start a private Xvfb; its process and display name (``:N``).

    ``tied``: it lives exactly as long as this process, not as long as its terminal session: it is in a
    session of its own (a Ctrl+C meant for the app does not take the display from under it while the app
    shuts down) and Linux ends it when this process ends, however it ends (``PR_SET_PDEATHSIG``).
    """
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        raise RuntimeError(NO_XVFB)
    read_fd, write_fd = os.pipe()
    # -noreset: by default the server resets when its last client disconnects,
    # and a connection attempted during that reset is refused. Mono's WinForms
    # connects, disconnects and connects again while it starts, so without it
    # an app under a fresh Xvfb failed to open the display now and then.
    proc = subprocess.Popen(
        [xvfb, "-displayfd", str(write_fd), "-screen", "0", f"{width}x{height}x{depth}", "-nolisten", "tcp", "-noreset"],
        pass_fds=(write_fd,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=tied, preexec_fn=_die_with_parent if tied else None,
    )  # fmt: skip
    os.close(write_fd)
    try:
        with os.fdopen(read_fd) as pipe:
            number = pipe.readline().strip()
        if not number:
            raise RuntimeError(f"Xvfb exited (code {proc.poll()}) without reporting a display number.")
    except BaseException:
        _stop(proc)
        raise
    return proc, f":{number}"


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    import ctypes  # noqa: PLC0415
    import signal  # noqa: PLC0415

    pr_set_pdeathsig = 1
    ctypes.CDLL(None).prctl(pr_set_pdeathsig, signal.SIGTERM)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)
