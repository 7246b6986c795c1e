"""A tree snapshot from the toolkit's own walk: the UI thread walks in .NET, Python builds the nodes after.

The engine's own snapshot (``Hop.snapshot_steps``) reads every element through
the adapter, a few pythonnet calls each, all on the UI thread. Where the
adapter has a walk in .NET (``ToolkitAdapter.walk``), a snapshot is:

1. on the UI thread (``prepare_steps``, in slices): the walk, a .NET call per
   slice that reads elements to ``max_depth`` until the slice's time is up, and
   at the end hands back a packed result and the elements it could not complete (an item container, a menu owner, a
   password box, ...). Those, and the children the walk does not know (the
   items), are read the engine's way and projected as usual;
2. anywhere (``build``, on the caller's thread once the UI thread is let
   go): the packed result decoded and made into the same nodes, in the same
   breadth-first order, with the same locators, cut at the same node cap.

So the UI thread pays for the walk and for the few elements the walk leaves
out, and nothing per node in Python. The engine's own path stays the
oracle: ``toolkit_walk=False`` takes it, and the differential tests compare
the two node for node.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from wpfprobe.core.protocol import Naming, Walk, WalkedNode
from wpfprobe.core.redaction import REDACTED
from wpfprobe.engine.hop import Hop, node_dict
from wpfprobe.engine.locating import Loc, child_locator
from wpfprobe.engine.locators import LOGICAL_PREFIX
from wpfprobe.engine.reading import error_dict

#: A node the engine projected itself, and the ids of its children in the order the adapter lists them.
Projected = tuple[dict[str, Any], list[str]]


@dataclass(slots=True)
class Prepared:
    """What the UI thread gathered for one snapshot; ``build`` makes the nodes from it."""

    walk: Walk
    root_id: str
    root_loc: Loc
    #: Nodes the engine projected itself (the walk's incomplete ones, and children it does not know).
    projected: dict[str, Projected]
    #: Whether every walked text is redacted (the redactor's verdict on ``walk.text_property``).
    redact_text: bool
    #: The name census the locators are made with (the app-wide name index's counts).
    counts: Counter[tuple[str, str]]
    #: The census was made in the same hop: a name it lacks is absent, not new.
    census_fresh: bool
    max_depth: int
    cap: int


def prepare_steps(h: Hop, root: Any, *, max_depth: int, cap: int) -> Generator[None, None, Prepared | None]:
    """The walk and the engine's reads of what it leaves out, on the UI thread; None: take the engine's own path."""
    root_loc = h.locator_parts(root)
    if root_loc.path.startswith(LOGICAL_PREFIX):
        return None  # a subtree outside the visual tree: locators come element by element
    walk = h.adapter.walk(root, objects=h.objects, max_depth=max_depth, cap=cap)
    if walk is None:
        return None
    # A walk whose texts come from several properties (WPF: Title, Text, Header, Content) is taken
    # only when the redactor judges them all alike: ``redact_text`` below is one verdict for all.
    also = getattr(walk, "text_properties", ())
    if any(h.redactor.is_redacted(p) != h.redactor.is_redacted(walk.text_property) for p in also):
        return None
    while not walk.advance(h.slice_left()):
        yield  # the walk so far is kept; a change to the tree meanwhile makes the caller start again
    projected: dict[str, Projected] = {}
    queue: deque[tuple[Any, int]] = deque(walk.incomplete)
    queued = {h.id(el) for el, _ in walk.incomplete}
    # Children the walk does not know (items) are named and projected up to ``cap`` per parent: a
    # later one comes after ``cap`` of its siblings, so the node cap always cuts before it. Over all
    # parents, twice the cap at most (with so many items the engine's own path is as quick).
    budget = 2 * cap
    while queue:
        if h.slice_due():
            yield  # a change to the tree meanwhile makes the caller start again
        el, depth = queue.popleft()
        if depth:
            h.naming_of(el)  # the engine's own path reads a child's naming before its children
        kids = h.children_of(el, "visual")
        node = h.project(el, locator="", kids=kids)
        kid_ids: list[str] = []
        if depth < max_depth:
            siblings_left = cap
            for kid in kids:
                if siblings_left <= 0:
                    break  # the rest is beyond the node cap: ``build`` cuts before it, and marks the cut
                if h.slice_due():
                    yield  # a list of thousands of items is itself many slices' work
                kid_id = h.id(kid)
                kid_ids.append(kid_id)
                siblings_left -= 1
                if kid_id in walk.ids or kid_id in queued:
                    continue
                budget -= 1
                if budget < 0:
                    return None
                queued.add(kid_id)
                queue.append((kid, depth + 1))
        projected[node["nodeId"]] = (node, kid_ids)
    return Prepared(
        walk=walk,
        root_id=h.id(root),
        root_loc=root_loc,
        projected=projected,
        redact_text=h.redactor.is_redacted(walk.text_property),
        counts=h.census("visual"),
        census_fresh=h.census_fresh,
        max_depth=max_depth,
        cap=cap,
    )


class NameNotInCensus(Exception):
    """A walked element answers to a name the census has not seen: the census is out of date."""


def build(p: Prepared) -> tuple[dict[str, Any], bool, int] | None:
    """The snapshot as ``Hop.snapshot`` makes it: (root node, truncated, node count); off the UI thread.

    None when an element's name is missing from a census kept from an earlier
    hop (it appeared without an event): the engine's own path repairs the
    census, and the caller takes it.
    """
    walked = p.walk.nodes()
    by_id = {n.node_id: n for n in walked}
    kids_of: dict[str, list[str]] = {}
    for n in walked:
        if n.parent >= 0:
            kids_of.setdefault(walked[n.parent].node_id, []).append(n.node_id)

    def node_of(node_id: str) -> Projected | None:
        found = p.projected.get(node_id)
        if found is not None:
            return found
        n = by_id.get(node_id)
        if n is None:
            return None  # beyond the walk's cap
        return _node(n, p.redact_text), kids_of.get(node_id, [])

    def unique_key(node: dict[str, Any]) -> str | None:
        for key in (node.get("automationId"), node.get("name")):
            if not key:
                continue
            count = p.counts[(str(node["type"]).lower(), key)]
            if count == 0 and not p.census_fresh:
                raise NameNotInCensus(key)
            if count == 1:
                return str(key)
        return None

    root = node_of(p.root_id)
    if root is None:
        return None
    root_node, root_kids = root
    root_node["locator"] = p.root_loc.locator
    count, truncated = 1, False
    queue: deque[tuple[dict[str, Any], list[str], int, Loc]] = deque([(root_node, root_kids, 0, p.root_loc)])
    try:
        while queue:
            node, kids, depth, loc = queue.popleft()
            if not node["childCount"]:
                continue
            if depth >= p.max_depth or count >= p.cap:
                node["childrenTruncated"] = True
                truncated = truncated or count >= p.cap
                continue
            children: list[dict[str, Any]] = []
            per_type: Counter[str] = Counter()
            for kid_id in kids:
                got = node_of(kid_id) if count < p.cap else None
                if got is None:
                    if count < p.cap:
                        return None  # not read, yet within the cap: never expected; the engine's path decides
                    node["childrenTruncated"] = True
                    truncated = True
                    break
                child, grand = got
                kind = str(child["type"]).lower()
                kid_loc = child_locator(loc, str(child["type"]), per_type[kind], unique_key(child))
                per_type[kind] += 1
                child["locator"] = kid_loc.locator
                children.append(child)
                count += 1
                queue.append((child, grand, depth + 1, kid_loc))
            else:
                if len(kids) < node["childCount"]:  # the rest is beyond the walk's cap
                    node["childrenTruncated"] = True
                    truncated = True
            node["children"] = children
    except NameNotInCensus:
        return None
    return root_node, truncated, count


def _node(n: WalkedNode, redact_text: bool) -> dict[str, Any]:
    """A walked element's node, as ``Hop.project`` makes one."""
    naming: Naming = n.naming
    state = n.state
    faults = n.faults
    text, key = n.text, n.access_key
    if redact_text:
        text, key = REDACTED, None
        faults = tuple(f for f in faults if f[0] != "text")  # a redacted text is never read
    node = node_dict(n.node_id, naming, state, text, key, child_count=n.child_count, total_count=None, locator="")
    error = error_dict(faults)
    if error is not None:
        node["error"] = error
    return node
