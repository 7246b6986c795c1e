"""The private X server that tests, the demo and the benchmarks run under."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys

import pytest

from wpfprobe.testing import virtual_display

pytestmark = pytest.mark.skipif(sys.platform.startswith("win"), reason="X11 only")


def test_virtual_display_accepts_a_client_right_after_the_last_one_left(monkeypatch: pytest.MonkeyPatch) -> None:
    # Mono's WinForms opens the display, closes it and opens it again while it
    # starts. Xvfb resets when its last client leaves, and refused connections
    # made during the reset, so apps under a fresh display failed now and then.
    library = ctypes.util.find_library("X11")
    assert library is not None, "libX11 is missing; ./run installs it with Xvfb and Mono"
    x11 = ctypes.CDLL(library)
    x11.XOpenDisplay.restype = ctypes.c_void_p
    x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
    x11.XCloseDisplay.argtypes = [ctypes.c_void_p]
    monkeypatch.delenv("DISPLAY", raising=False)
    refused = 0
    with virtual_display() as name:
        assert name is not None and os.environ["DISPLAY"] == name
        for _ in range(300):
            connection = x11.XOpenDisplay(None)
            if connection:
                x11.XCloseDisplay(connection)
            else:
                refused += 1
    assert refused == 0
    assert "DISPLAY" not in os.environ
