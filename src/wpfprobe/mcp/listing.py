"""The built-in tools' Tool objects, as tools/list sends them, made once and shipped (``listing.json``).

Making them from the tools' models (``catalog.tool_object``: each tool's argument model and JSON
schemas, which build every pydantic model the schemas name) cost more than anything else in the
catalog, and a client lists the tools before or right after its first call: it was on the way to
every probe's first answer. They depend on nothing but ``tools.py`` and ``core/models.py``, so they
are made here, at development time, and read back (a few milliseconds). An app's own tools are
still made from their models when added.

After changing a built-in tool (its arguments, output, description, title or tier), write the file
again::

    python -m wpfprobe.mcp.write_listing

tests/unit/test_listing.py fails until it is what the tools make, byte for byte.
"""

from __future__ import annotations

import json
import logging
import threading
from pathlib import Path
from typing import Any

log = logging.getLogger("wpfprobe.server")

PATH = Path(__file__).with_name("listing.json")

_lock = threading.Lock()
_shipped: dict[str, dict[str, Any]] | None = None


def shipped() -> dict[str, dict[str, Any]]:
    """The shipped Tool objects by tool name (read once; shared: read them, never change them).
    Empty when the file cannot be read: the catalog then makes them from the models."""
    global _shipped
    with _lock:
        if _shipped is None:
            try:
                loaded = json.loads(PATH.read_bytes())
                _shipped = loaded if isinstance(loaded, dict) else {}
            except (OSError, ValueError):
                log.debug("the shipped tools' listing could not be read; it is made from the models", exc_info=True)
                _shipped = {}
        return _shipped
