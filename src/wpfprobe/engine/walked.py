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
from wpfprobe.engine.hop import Hop, json_form, node_dict
from wpfprobe.engine.locating import Loc
from wpfprobe.engine.locators import LOGICAL_PREFIX, format_segment
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


@dataclass(slots=True)
class Snapshot:
    """A tree snapshot in its JSON form (``json_form``): camelCase keys, no None values, as a tool sends it."""

    root: dict[str, Any]
    truncated: bool
    count: int
    #: Nodes with an ``error``.
    errors: int


def build(p: Prepared) -> Snapshot | None:
    """The snapshot as ``Hop.snapshot`` makes it, in its JSON form; off the UI thread.

    None when an element's name is missing from a census kept from an earlier
    hop (it appeared without an event): the engine's own path repairs the
    census, and the caller takes it.

    Interpreter time here is time the app's own Python waits for: the rows
    come parsed in pieces (``Walk.rows``), each complete row becomes its node
    in one pass with no object but the node's dict, and only rows with a
    failed read go through ``Walk.node``.
    """
    walk = p.walk
    types, faulted, marker, max_text, shown = walk.types, walk.faulted, walk.marker, walk.max_text, walk.shown_text
    redact = p.redact_text
    made: list[dict[str, Any] | None] = []  # per row: its node, None for a rich row (the engine projected it)
    row_ids: list[str] = []
    kids: list[list[int] | None] = []  # per row: its children's row indexes
    i = 0
    for piece in walk.rows():
        for row in piece:
            (
                parent, _depth, node_id, type_index, name, text, marked, visible, enabled, focused, checked, count,
                rich, selected, expanded, automation_id, total,
            ) = row  # fmt: skip
            row_ids.append(node_id)
            kids.append(None)
            if parent >= 0:
                siblings = kids[parent]
                if siblings is None:
                    kids[parent] = [i]
                else:
                    siblings.append(i)
            if rich:
                made.append(None)
            elif i in faulted:
                made.append(_node(walk.node(row), redact))
            else:
                type_name, full_type_name = types[type_index]
                node: dict[str, Any] = {"nodeId": node_id, "type": type_name, "typeName": full_type_name}
                if name:
                    node["name"] = name
                if automation_id:
                    node["automationId"] = automation_id
                if redact:
                    node["text"] = REDACTED
                elif text:
                    key = None
                    if (marked and marker in text) or len(text) > max_text:
                        text, key = shown(text, marked)
                    if text:
                        node["text"] = text
                    if key:
                        node["accessKey"] = key
                node["visible"] = visible
                node["enabled"] = enabled
                node["focused"] = focused
                if selected is not None:
                    node["selected"] = selected
                if checked is not None:
                    node["checked"] = checked
                if expanded is not None:
                    node["expanded"] = expanded
                node["childCount"] = count
                if total is not None:
                    node["totalCount"] = total
                node["locator"] = ""
                made.append(node)
            i += 1
    by_id = {node_id: n for n, node_id in enumerate(row_ids)}
    projected = {k: (json_form(node), kid_ids) for k, (node, kid_ids) in p.projected.items()}
    none: list[int] = []

    def node_of(ref: int | str) -> tuple[dict[str, Any], list[int] | list[str]] | None:
        """A child's node and its children (row indexes, or the node ids the engine listed), by row or id."""
        if type(ref) is str:
            found = projected.get(ref)
            if found is not None:
                return found
            at = by_id.get(ref)
            if at is None:
                return None  # beyond the walk's cap
            ref = at
        assert isinstance(ref, int)
        node = made[ref]
        if node is None:
            return projected.get(row_ids[ref])
        return node, kids[ref] or none

    counts, fresh = p.counts, p.census_fresh
    lower: dict[str, str] = {}
    root = node_of(p.root_id)
    if root is None:
        return None
    root_node, root_kids = root
    root_node["locator"] = p.root_loc.locator
    count, truncated, errors = 1, False, int("error" in root_node)
    cap, max_depth = p.cap, p.max_depth
    # (node, its children's refs, depth, its anchored locator, its path): tuples, a Loc per node costs more.
    queue: deque[tuple[dict[str, Any], list[int] | list[str], int, str, str]] = deque(
        [(root_node, root_kids, 0, p.root_loc.anchored, p.root_loc.path)]
    )
    while queue:
        node, kid_refs, depth, anchored, path = queue.popleft()
        if not node["childCount"]:
            continue
        if depth >= max_depth or count >= cap:
            node["childrenTruncated"] = True
            truncated = truncated or count >= cap
            continue
        children: list[dict[str, Any]] = []
        per_type: dict[str, int] = {}
        cut = False
        for ref in kid_refs:
            got = node_of(ref) if count < cap else None
            if got is None:
                if count < cap:
                    return None  # not read, yet within the cap: never expected; the engine's path decides
                cut = True
                break
            child, grand = got
            type_name = child["type"]
            kind = lower.get(type_name)
            if kind is None:
                kind = lower[type_name] = type_name.lower()
            index = per_type.get(kind, 0)
            per_type[kind] = index + 1
            key = None
            for ident in (child.get("automationId"), child.get("name")):
                if ident:
                    seen = counts.get((kind, ident), 0)
                    if seen == 0 and not fresh:
                        return None  # a name the census has not seen: the engine's own path repairs it
                    if seen == 1:
                        key = ident
                        break
            # As ``child_locator``: its own key when unique, else its parent's locator and its step.
            seg = f"{type_name}[{index}]"
            kid_anchored = format_segment(type_name, ident=key) if key else f"{anchored}/{seg}"
            child["locator"] = kid_anchored
            children.append(child)
            count += 1
            errors += "error" in child
            queue.append((child, grand, depth + 1, kid_anchored, f"{path}/{seg}"))
        node["children"] = children
        if cut or len(kid_refs) < node["childCount"]:  # the rest is beyond the walk's (or the node) cap
            node["childrenTruncated"] = True
            truncated = True
    return Snapshot(root_node, truncated, count, errors)


def _node(n: WalkedNode, redact_text: bool) -> dict[str, Any]:
    """A walked element's node, as ``Hop.project`` makes one, in its JSON form."""
    naming: Naming = n.naming
    state = n.state
    faults = n.faults
    text, key = n.text, n.access_key
    if redact_text:
        text, key = REDACTED, None
        faults = tuple(f for f in faults if f[0] != "text")  # a redacted text is never read
    node = node_dict(
        n.node_id, naming, state, text, key, child_count=n.child_count, total_count=n.total_count, locator=""
    )
    error = error_dict(faults)
    if error is not None:
        node["error"] = error
    return json_form(node)
