"""One test per bug fixed, named after what broke."""

from __future__ import annotations

import gc
import weakref
from typing import Any

import pytest
from fake_toolkit import UiWorker

from wpfprobe._errors import NodeNotFoundError, ProbeError
from wpfprobe_clr._ui_thread import UiThread


class _Element:
    """Stands in for a live UI object."""


def test_error_from_the_ui_thread_does_not_keep_ui_objects_alive() -> None:
    """A traceback carried back to the caller kept the failing frame's locals, so a
    closed window that raised NODE_NOT_FOUND could never be collected."""
    worker = UiWorker().start()
    try:
        ui = UiThread(post=worker.post, check_access=worker.is_current, default_timeout=5)
        refs: list[weakref.ref[Any]] = []

        def fail() -> None:
            element = _Element()
            refs.append(weakref.ref(element))
            raise NodeNotFoundError("gone")

        with pytest.raises(ProbeError) as err:
            ui.run(fail)
        gc.collect()
        assert err.value.__traceback__ is not None, "the traceback itself is kept for debugging"
        assert refs[0]() is None, "the element held by the failing frame must be collectable"

        def fail_python() -> None:
            element = _Element()
            refs.append(weakref.ref(element))
            raise ValueError("bad")

        with pytest.raises(ProbeError) as translated:
            ui.run(fail_python)
        gc.collect()
        assert translated.value.detail["exceptionType"] == "ValueError"
        assert refs[1]() is None
    finally:
        worker.stop()
