"""What names a probed app: its name and its id (the manifest's file name, the broker's key).

Here, not in the engine, because ``wpfprobe.start()`` needs the id before it
returns, and the engine is made later, on a thread of its own.
"""

from __future__ import annotations

import os
import sys

__all__ = ["app_id", "default_app_name", "slug"]


def default_app_name() -> str:
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None) or (sys.argv[0] if sys.argv and sys.argv[0] else "python")
    return os.path.splitext(os.path.basename(path))[0] or "python"


def slug(text: str) -> str:
    out = "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-")
    return "-".join(p for p in out.split("-") if p)[:40] or "app"


def app_id(app_name: str) -> str:
    """The id of the app named ``app_name`` in this process."""
    return f"{slug(app_name)}-{os.getpid()}"
