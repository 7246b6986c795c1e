"""Screenshots made small for a trace: fitted into a box and reduced to a palette.

A trace takes a screenshot at every step; a UI screenshot has few colours, so
a 256-colour palette keeps its look at a fraction of the bytes (measured in
docs/testing.md). Used by the test kit's runner and by a recorded agent
session (``--record``), so it lives below both.
"""

from __future__ import annotations

import io

#: A trace screenshot fits in this box (a failure's is kept as taken).
MAX_SIZE = (800, 600)


def shrink_png(png: bytes, *, box: tuple[int, int] = MAX_SIZE) -> bytes:
    """The image fitted into ``box`` with a 256-colour palette; the original if that is not smaller."""
    from PIL import Image  # noqa: PLC0415 - Pillow only when a trace is taken

    try:
        opened = Image.open(io.BytesIO(png))
        opened.load()
    except Exception:  # noqa: BLE001 - an image Pillow cannot read is kept as it came
        return png
    image = opened.convert("RGB")
    image.thumbnail(box, Image.Resampling.LANCZOS)
    # The fast octree keeps a UI's flat colours and edges; it is smaller and faster here than median cut
    # (docs/testing.md, Traces), and zlib's level 9 beats PNG "optimize" at a fraction of its time.
    small = image.quantize(colors=256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    out = io.BytesIO()
    small.save(out, format="PNG", compress_level=9)
    data = out.getvalue()
    return data if len(data) < len(png) else png


__all__ = ["MAX_SIZE", "shrink_png"]
