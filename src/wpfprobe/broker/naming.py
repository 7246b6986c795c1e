"""The names the broker shows: an id per app, and ``<appId>__<tool>`` for an app's own tools.

appIds. A probe names itself ``<name-slug>-<pid>``, which changes when the app
restarts. The broker shows the name slug alone (``orders``) when no other live app
has that name, and the probe's own id (``orders-4242``) for apps that share a name.
So a restarted app keeps its id, its custom tools keep their names, and an agent
that remembered ``app="orders"`` reaches it again without being reconfigured.

Tool names must match ``^[a-zA-Z0-9_-]{1,64}$``. A custom tool name longer than 64
characters is cut to 55 and given ``-`` plus the first 8 hex digits of the SHA-256
of the full name: deterministic, so the same app and tool always get the same name.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

from wpfprobe.apps import targets as _targets
from wpfprobe.mcp.manifest import Manifest

SEPARATOR = "__"
MAX_TOOL_NAME = 64


def exposed_name(app_id: str, tool: str) -> str:
    """``<appId>__<tool>``, valid as an MCP tool name and at most 64 characters.

    Characters outside ``[a-zA-Z0-9_-]`` become ``-``; a name that is still too long is
    cut to 55 characters plus ``-`` and 8 hex digits of the SHA-256 of the uncut name.
    """
    name = f"{_clean(app_id)}{SEPARATOR}{_clean(tool)}"
    if len(name) <= MAX_TOOL_NAME:
        return name
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]
    return f"{name[: MAX_TOOL_NAME - 9]}-{digest}"


def _clean(text: str) -> str:
    return re.sub(r"[^a-zA-Z0-9_-]", "-", text) or "x"


def broker_ids(manifests: Sequence[Manifest]) -> dict[str, str]:
    """The id the broker shows for each live app, keyed by the probe's own appId.

    The name slug when no other live app has the same slug (stable across restarts),
    else the probe's appId (``<slug>-<pid>``, unique).
    """
    slugs: dict[str, int] = {}
    for m in manifests:
        s = _targets.slug(m.app_name)
        slugs[s] = slugs.get(s, 0) + 1
    probe_ids = {m.app_id for m in manifests}
    out: dict[str, str] = {}
    for m in manifests:
        s = _targets.slug(m.app_name)
        # A slug that is some other app's probe id would make that id name two apps.
        unique = slugs[s] == 1 and (s == m.app_id or s not in probe_ids)
        out[m.app_id] = s if unique else m.app_id
    return out
