"""Fixtures shared by the engine's unit tests."""

import os

from fake_toolkit import fake

# A few unit tests import toolkit modules directly, and their `from System import ...`
# makes pythonnet load Mono with its default thread-suspend mode, which deadlocks
# pythonnet calls from two threads during a collection. The integration tests that run
# after them in the same session then hung (test_walker_live's UI thread waiting for a
# collection while the poster thread waited for the GIL). The test process is a pythonnet
# app like any other: it starts Mono the way the README asks apps to.
os.environ.setdefault("MONO_THREADS_SUSPEND", "preemptive")

__all__ = ["fake"]
