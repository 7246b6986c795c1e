"""Give the C heap's free pages back to the system once the probe's start-up has freed them.

Compiling the .NET walk is one large JIT job: Mono (and CoreCLR) take
about 11 MiB of working memory from the C heap for it and free it when the
compile ends, and the imports and reflection of the start-up free more. glibc
keeps what was freed inside its arenas, so the app's RSS kept all of it for
good (the start-up's idle memory, issue 22, measured in
docs/benchmarks-mcp.md). ``malloc_trim(0)`` returns the free pages; it takes
about 1 ms in a 170 MiB app here, on the compile's thread, never the UI
thread. Elsewhere (Windows' heap, musl, macOS) there is nothing to call and
nothing is done: those allocators return memory on their own terms.
"""

from __future__ import annotations

import logging
import sys

__all__ = ["return_freed_memory"]


def return_freed_memory() -> bool:
    """Ask glibc to give its free heap pages back to the system; False where there is no glibc."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes  # noqa: PLC0415 - only where it is used, once per start-up

    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # not glibc (musl has no malloc_trim)
        return False
    try:
        trim(0)
    except OSError:  # pragma: no cover - a C call that cannot fail on glibc
        logging.getLogger("wpfprobe.clr").debug("malloc_trim failed", exc_info=True)
        return False
    return True
