"""``wpfprobe_clr._heap``: the C heap's free pages go back to the system (glibc), so what the
start-up freed stops counting in the app's RSS."""

from __future__ import annotations

import ctypes
import os
import sys

import pytest

from wpfprobe_clr._heap import return_freed_memory

BLOCK = 8 * 1024  # below glibc's mmap threshold: from the heap, as the JIT's working memory is
BLOCKS = 3000  # about 24 MiB


def rss_mib() -> float:
    with open("/proc/self/statm", encoding="ascii") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def glibc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    libc = ctypes.CDLL(None)
    return libc if hasattr(libc, "malloc_trim") else None


@pytest.mark.skipif(glibc() is None, reason="malloc_trim is glibc's: elsewhere the allocator returns memory itself")
def test_freed_heap_pages_leave_the_rss() -> None:
    libc = glibc()
    assert libc is not None
    libc.malloc.restype = ctypes.c_void_p
    libc.malloc.argtypes = [ctypes.c_size_t]
    libc.free.argtypes = [ctypes.c_void_p]
    blocks = [libc.malloc(BLOCK) for _ in range(BLOCKS)]
    assert all(blocks)
    for block in blocks:
        ctypes.memset(block, 1, BLOCK)  # touched: resident
    # The last block stays, as a live allocation above freed memory does: glibc's own trim of
    # the heap's top cannot reach what lies below it.
    for block in blocks[:-1]:
        libc.free(block)
    held = rss_mib()
    try:
        assert return_freed_memory() is True
        returned = held - rss_mib()
    finally:
        libc.free(blocks[-1])
    assert returned > BLOCK * BLOCKS / 2**20 / 2, f"only {returned:.1f} MiB left the RSS"
