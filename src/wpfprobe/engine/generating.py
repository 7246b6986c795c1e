"""The locator worth keeping: the most stable one that finds exactly this element now.

Every node carries a locator already (its unique name, else its path), made
to re-find it in this run. A locator a person keeps in a test has to survive
more: a new button above it, a renamed panel, another window open. So the
candidates are tried from the most stable to the least, each checked by
resolving it here, on the UI thread, in the same hop:

1. its name (``Button#saveButton``), unique in the app;
2. its automation id, written the same way (``#`` matches either);
3. its text inside its nearest uniquely named container
   (``Panel#formPanel Button[text="Save"]``), or in the whole app when no
   container has a name; never for elements whose text is what the user typed
   or picked (a text box's text names nothing);
4. its path (the node's own locator), only as a last resort.

A candidate counts only if it finds exactly this element. Counting the text
candidate's matches walks the container's subtree, so that walk stops after
``TEXT_SCAN_BUDGET`` elements: a container too large to check (a list of
thousands of items) falls through to the path rather than hold the UI thread.
"""

from __future__ import annotations

from typing import Any

from wpfprobe.core.errors import ProbeError
from wpfprobe.core.protocol import TreeType
from wpfprobe.core.redaction import REDACTED
from wpfprobe.core.trace import quote, text_names_it
from wpfprobe.engine.hop import Hop
from wpfprobe.engine.locators import LOGICAL_PREFIX, format_segment
from wpfprobe.engine.target import Target

#: Elements a text candidate's container may hold before the candidate is given up (not checked).
TEXT_SCAN_BUDGET = 2000
#: Texts longer than this do not make a locator a person would keep.
MAX_TEXT = 200
KINDS = ("name", "automationId", "text", "path")


def generate(h: Hop, el: Any, *, all_candidates: bool = False) -> dict[str, Any]:
    """``{locator, kind, alternatives}`` for ``el``; run on the UI thread, inside a hop.

    Stops at the first unique candidate unless ``all_candidates`` (then every
    candidate is listed with how many elements it matched).
    """
    alternatives: list[dict[str, Any]] = []
    chosen: dict[str, Any] | None = None
    for kind, locator, scope in _candidates(h, el):
        if any(a["locator"] == locator for a in alternatives):
            continue
        matches = _matches(h, el, locator, scope)
        unique = matches == 1
        alternatives.append({"locator": locator, "kind": kind, "matches": matches, "unique": unique})
        if unique and chosen is None:
            chosen = alternatives[-1]
            if not all_candidates:
                break
    if chosen is None:
        # Nothing checked out (an element its own path cannot reach again): its own locator is all there is.
        own = h.locator_of(el)
        chosen = {"locator": own, "kind": "path", "matches": 0, "unique": False}
    return {"locator": chosen["locator"], "kind": chosen["kind"], "alternatives": alternatives}


def _candidates(h: Hop, el: Any) -> list[tuple[str, str, str | None]]:
    """(kind, locator, the container a text candidate searches: None for the whole app) in order of preference."""
    naming = h.naming_of(el)
    prefix = LOGICAL_PREFIX if _tree_of(h, el) == "logical" else ""
    out: list[tuple[str, str, str | None]] = []
    if naming.name:
        out.append(("name", prefix + format_segment(naming.type_name, ident=naming.name), None))
    if naming.automation_id and naming.automation_id != naming.name:
        out.append(("automationId", prefix + format_segment(naming.type_name, ident=naming.automation_id), None))
    text = _text_of(h, el)
    if text is not None and text_names_it(naming.type_name):
        container = _named_container(h, el)
        step = f"{naming.type_name}[text={quote(text)}]"
        out.append(("text", f"{container} {step}" if container else prefix + step, container or ""))
    out.append(("path", h.locator_of(el), None))
    return out


def _tree_of(h: Hop, el: Any) -> TreeType:
    return "logical" if h.locator_of(el).startswith(LOGICAL_PREFIX) else "visual"


def _text_of(h: Hop, el: Any) -> str | None:
    try:
        text = h.text(el)
    except Exception:  # noqa: BLE001 - an element whose text cannot be read is named another way
        return None
    if not text or text == REDACTED or len(text) > MAX_TEXT or "\n" in text or text != text.strip():
        return None
    return text


def _named_container(h: Hop, el: Any) -> str | None:
    """The locator of the nearest ancestor that a unique name finds (``Panel#formPanel``), if any."""
    parent = h.display_parent(el)
    depth = 0
    while parent is not None and depth < 100:
        own = h.locator_of(parent)
        bare = own.removeprefix(LOGICAL_PREFIX)
        if "#" in bare and "/" not in bare and "[" not in bare:
            return own
        parent = h.display_parent(parent)
        depth += 1
    return None


def _matches(h: Hop, el: Any, locator: str, scope: str | None) -> int:
    """How many elements ``locator`` finds (0 also when it does not find ``el`` itself, or is given up).

    ``scope`` (a text candidate's): the container whose subtree the locator searches, "" for the whole app.
    """
    if scope is not None and not _small_enough(h, el, scope):
        return 0
    try:
        found = h.resolve_all(Target(locators=(locator,)))
    except ProbeError:
        return 0
    if not any(h.same(f, el) for f in found):
        return 0
    return len(found)


def _small_enough(h: Hop, el: Any, container: str) -> bool:
    """Whether the container (a locator; "" for the whole app) holds few enough elements to search now."""
    tree = _tree_of(h, el)
    if not container:
        scope = list(h.adapter.roots())
    else:
        try:
            scope = h.resolve_all(Target(locators=(container,)))
        except ProbeError:
            return False
    seen = 0
    stack = list(scope)
    while stack:
        seen += 1
        if seen > TEXT_SCAN_BUDGET:
            return False
        stack.extend(h.children_of(stack.pop(), tree))
    return True


__all__ = ["KINDS", "TEXT_SCAN_BUDGET", "generate"]
