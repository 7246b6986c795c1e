"""Whether the probe's pydantic models are built when first used rather than when imported.

Building a model (its core schema, validator and serializer) is most of what importing the
DTOs costs, and ``wpfprobe.start()`` imports them on its way to the first answer; a read-tier
probe never uses the input tools' models at all. With ``defer_build`` a model is built the first
time it validates, serializes or gives its JSON schema, on whichever thread does that first.

Only where pydantic makes that first build thread-safe: before its rebuild lock (2.14), a thread
that used a model while another was building it could validate with the parent class's
validator (pydantic issues 11849 and 13419), and tool calls run on many threads at once. With an
older pydantic the models are built at import, as before.
"""

from __future__ import annotations

import pydantic.main

#: ``defer_build`` for the probe's own models (``core/models.py``, the tools' arguments).
DEFER_BUILD: bool = hasattr(pydantic.main, "_rebuild_lock")
