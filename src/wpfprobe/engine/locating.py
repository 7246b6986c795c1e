"""The locator every node carries: a name or automation id when unique in the app, else its path.

A path is built in the tree the element lives in. Most elements are in the
visual tree under a top-level window, and their path is a visual one. Some
are only in the logical tree (WPF: the items of a closed submenu, the nodes
under a collapsed tree node, a data item a list has not made a container
for, what an open popup shows): their visual parents do not lead to a
window, so their path is a logical one, written ``logical:Window[0]/...``
and evaluated in the logical tree. A path is trusted only if every step is
among its parent's children in that tree: a toolkit may name a parent of an
element that does not list it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from wpfprobe.core.protocol import ROW_FIELDS, Naming, TreeType, Walk
from wpfprobe.engine.locators import LOGICAL_PREFIX, format_segment
from wpfprobe.engine.name_index import NameIndex
from wpfprobe.engine.reading import HopHost, Reader

T = TypeVar("T")


def run_whole(steps: Generator[None, None, T]) -> T:
    """Run a sliced piece of work to its end without letting go of the UI thread."""
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return cast("T", done.value)


#: How far up a tree a locator's walk goes at most: a guard against a parent cycle.
MAX_PATH_DEPTH = 1000
#: Depth and node cap of the name index's walk: the whole tree (the largest Int32, as the walk counts).
_WHOLE = 2**31 - 1
#: Where a walked row (``ROW_FIELDS``) holds what the name index reads.
_PARENT, _ID, _TYPE, _NAME, _RICH, _AUTOMATION_ID = (
    ROW_FIELDS.index(f) for f in ("parent", "node_id", "type", "name", "rich", "automation_id")
)


@dataclass(frozen=True, slots=True)
class Loc:
    path: str
    anchored: str

    @property
    def locator(self) -> str:
        return self.anchored


def child_locator(parent: Loc, type_name: str, index: int, key: str | None) -> Loc:
    """A child's Loc: its path below ``parent``'s, anchored at its own ``key`` when that is unique."""
    seg = format_segment(type_name, index=index)
    anchored = format_segment(type_name, ident=key) if key is not None else f"{parent.anchored}/{seg}"
    return Loc(path=f"{parent.path}/{seg}", anchored=anchored)


class Locating(Reader):
    """Builds locators for the elements a hop projects, memoised per hop."""

    def __init__(self, engine: HopHost) -> None:
        super().__init__(engine)
        #: The name index was built in this hop (not kept from an earlier one).
        self._census_fresh = False
        #: The kept name index was found current in this hop.
        self._index_checked = False
        self._logical_census: Counter[tuple[str, str]] | None = None
        # Per tree: node id -> its Loc (logical ones without the prefix, added on the way out).
        self._locs: dict[TreeType, dict[str, Loc]] = {"visual": {}, "logical": {}}
        # Per tree: parent id ("" for the roots) -> {child id: index among its siblings of its type}.
        self._sibling_indexes: dict[TreeType, dict[str, dict[str, int]]] = {"visual": {}, "logical": {}}
        # Ids whose visual parents do not lead to a window through listed children.
        self._off_visual: set[str] = set()

    def census(self, tree_type: TreeType = "visual") -> Counter[tuple[str, str]]:
        """How many elements answer to each (type, #key) in a tree: a key is unique if 1.

        The visual one comes from the app-wide name index (``name_index.py``),
        kept across hops while the tree is known not to have changed; the
        logical one, needed only for elements outside the visual tree, is
        counted for this hop. A stale count is safe: a locator is re-resolved
        on every use, and a name that became ambiguous meanwhile is reported
        as LOCATOR_AMBIGUOUS.
        """
        if tree_type == "logical":
            if self._logical_census is None:
                self._logical_census = self._count_keys("logical")
            return self._logical_census
        return self.name_index().counts

    def name_index(self, *, rebuild: bool = False) -> NameIndex:
        """The app-wide name index: the kept one if still current, else a new one from one walk.

        ``rebuild`` asks for a new one (a repair), at most once per hop.
        """
        return run_whole(self.name_index_steps(rebuild=rebuild))

    def name_index_steps(self, *, rebuild: bool = False) -> Generator[None, None, NameIndex]:
        """``name_index`` as slices: a rebuild's walk yields when ``slice_due()`` (see EngineBase.sliced)."""
        index = self.engine.name_index
        if index is not None and (self._census_fresh or (self._index_checked and not rebuild)):
            return index  # checked (or built) once in this hop: a hop does not change the tree
        roots = self.adapter.roots()
        root_ids = tuple(self.id(r) for r in roots)
        settings = self.engine.settings
        if (
            not rebuild
            and index is not None
            and (self._census_fresh or index.is_current(
                self.adapter.structure_version(), root_ids,
                ttl=settings.name_index_ttl, census_ttl=settings.census_ttl,
            ))
        ):  # fmt: skip
            self._index_checked = True
            return index
        index = yield from self._build_index(roots, root_ids)
        self.engine.name_index = index
        self._census_fresh = True
        return index

    def _build_index(self, roots: list[Any], root_ids: tuple[str, ...]) -> Generator[None, None, NameIndex]:
        watched = True
        entries: list[tuple[str, str, set[str]]] = []
        # Document order (pre-order, children left to right), as a walk of the scope meets them.
        for root in roots:
            walk = self._index_walk(root)
            if walk is None:
                whole = yield from self._index_below(root, entries)
            else:
                whole = yield from self._index_walked(walk, root, entries)
            watched = watched and whole
        # Read after the walk: the walk itself changes nothing, and containers met on the way are watched now.
        version = self.adapter.structure_version() if watched else None
        index = NameIndex(version=version, roots=root_ids)
        for node_id, type_name, keys in entries:
            index.add(node_id, type_name, keys)
        return index

    def _index_walk(self, root: Any) -> Walk | None:
        """The toolkit's walk of ``root``'s whole subtree, watching what it meets; None: the engine walks it.

        The engine's own walk read each element through the adapter, a few
        pythonnet calls each: 0.5 s of the UI thread (in slices) for a
        5,000-control form after every change, about 1 s for a 5,000-row list view.
        """
        if not self.engine.settings.toolkit_walk:
            return None
        try:
            return self.adapter.walk(root, objects=self.objects, max_depth=_WHOLE, cap=_WHOLE, watch=True)
        except Exception:  # noqa: BLE001 - a walk that cannot start: the engine's own reads do it
            return None

    def _index_walked(
        self, walk: Walk, root: Any, entries: list[tuple[str, str, set[str]]]
    ) -> Generator[None, None, bool]:
        """Index ``root``'s subtree from ``walk`` (in slices); what it left incomplete is read the engine's way."""
        whole = self._watch(root)  # WPF watches its windows (the walk watches the rest); a no-op where hooked
        while not walk.advance(self.slice_left()):
            yield  # the walk so far is kept; a change meanwhile makes the caller start again
        rows: list[list[Any]] = []
        for piece in walk.rows():
            rows.extend(piece)
            if self.slice_due():
                yield
        kids: list[list[int] | None] = [None] * len(rows)
        rich_rows: list[int] = []
        for i, row in enumerate(rows):
            parent = row[_PARENT]
            if parent >= 0:
                siblings = kids[parent]
                if siblings is None:
                    kids[parent] = [i]
                else:
                    siblings.append(i)
            if row[_RICH]:  # rich: the engine reads it, and the children the walk does not know
                rich_rows.append(i)
        rich = dict(zip(rich_rows, (el for el, _depth in walk.incomplete), strict=True))
        by_id = {row[_ID]: i for i, row in enumerate(rows)} if rich else {}
        types = walk.types
        stack: list[Any] = [0] if rows else []  # a row's index, or an element the walk did not read
        while stack:
            if self.slice_due():
                yield
            top = stack.pop()
            if type(top) is not int:
                whole = (yield from self._index_below(top, entries)) and whole
                continue
            row = rows[top]
            el = rich.get(top)
            if el is None:
                keys = {k for k in (row[_NAME], row[_AUTOMATION_ID]) if k and isinstance(k, str)}
                if keys:
                    entries.append((row[_ID], types[row[_TYPE]][0], keys))
                stack.extend(reversed(kids[top] or ()))
                continue
            naming = self.naming_of(el)
            keys = {k for k in (naming.name, naming.automation_id) if k}
            if keys:
                entries.append((row[_ID], naming.type_name, keys))
            below: list[Any] = []
            for kid in self.children_of(el, "visual"):
                at = by_id.get(self.id(kid))
                below.append(at if at is not None and rows[at][_PARENT] == top else kid)
            stack.extend(reversed(below))
        return whole and walk.watched

    def _index_below(self, start: Any, entries: list[tuple[str, str, set[str]]]) -> Generator[None, None, bool]:
        """Index ``start``'s subtree the engine's way, each element read through the adapter; whether all is watched."""
        watched = True
        stack = [start]
        while stack:
            if self.slice_due():
                yield  # a container already met is watched: a change to it meanwhile is counted
            el = stack.pop()
            if not self._watch(el):
                watched = False
            n = self.naming_of(el)
            keys = {k for k in (n.name, n.automation_id) if k}
            if keys:
                entries.append((self.id(el), n.type_name, keys))
            stack.extend(reversed(self.children_of(el, "visual")))
        return watched

    def _watch(self, el: Any) -> bool:
        try:
            return self.adapter.watch_structure(el)
        except Exception:  # noqa: BLE001 - an element that cannot be watched only makes the index short-lived
            return False

    def _count_keys(self, tree_type: TreeType) -> Counter[tuple[str, str]]:
        counts: Counter[tuple[str, str]] = Counter()
        stack = list(self.adapter.roots())
        while stack:
            el = stack.pop()
            n = self.naming_of(el)
            for key in {n.name, n.automation_id} - {None, ""}:
                counts[(n.type_name.lower(), key)] += 1  # type: ignore[index]
            stack.extend(self.children_of(el, tree_type))
        return counts

    def _unique_key(self, naming: Naming, tree_type: TreeType = "visual") -> str | None:
        for key in (naming.automation_id, naming.name):
            if not key:
                continue
            count = self.census(tree_type)[(naming.type_name.lower(), key)]
            if count == 0 and tree_type == "visual" and not self._census_fresh:
                # The element is right here, so an index that never saw it is stale (it
                # was kept from before the element appeared): walk again, once per hop.
                count = self.name_index(rebuild=True).counts[(naming.type_name.lower(), key)]
            if count == 1:
                return key
        return None

    def child_loc(self, parent: Loc, naming: Naming, index: int, tree_type: TreeType = "visual") -> Loc:
        key = self._unique_key(naming, tree_type) if (naming.name or naming.automation_id) else None
        return child_locator(parent, naming.type_name, index, key)

    @property
    def census_fresh(self) -> bool:
        """Whether the name index was built in this hop (a name it lacks is then truly absent)."""
        return self._census_fresh

    def locator_parts(self, el: Any) -> Loc:
        """Path and preferred locator of ``el``, memoised per node for this hop.

        Walks up only to the nearest ancestor already known, and indexes each
        parent's children once: a page of siblings costs one pass over them,
        not one pass per sibling. An element the visual tree does not reach
        from a window gets a logical path; one that neither tree reaches keeps
        its visual path, the best there is.
        """
        node_id = self.id(el)
        if node_id not in self._off_visual:
            found = self._build(el, node_id, "visual")
            if found is not None:
                return found
            self._off_visual.add(node_id)
        logical = self._build(el, node_id, "logical")
        if logical is not None:
            return Loc(path=LOGICAL_PREFIX + logical.path, anchored=LOGICAL_PREFIX + logical.anchored)
        return self._build(el, node_id, "visual", trusted=False) or Loc(path="", anchored="")

    def _build(self, el: Any, node_id: str, tree_type: TreeType, *, trusted: bool = True) -> Loc | None:
        """``el``'s Loc in ``tree_type``, or None if its parents there do not lead to a window through listed children.

        ``trusted=False`` builds the path whatever it leads to (the last resort).
        """
        memo = self._locs[tree_type]
        known = memo.get(node_id)
        if known is not None:
            return known
        chain, ids = [el], [node_id]
        parent = self.parent_of(el, tree_type)
        while parent is not None and len(chain) < MAX_PATH_DEPTH:
            parent_id = self.id(parent)
            if tree_type == "visual" and trusted and parent_id in self._off_visual:
                return None
            known = memo.get(parent_id)
            if known is not None:
                break
            chain.append(parent)
            ids.append(parent_id)
            parent = self.parent_of(parent, tree_type)
        chain.reverse()
        ids.reverse()
        # Each step's index among its siblings; None where the parent does not list it.
        indexes: list[int | None] = []
        namings: list[Naming] = []
        above = parent if known is not None else None
        for element, element_id in zip(chain, ids, strict=True):
            naming = self.naming_of(element)
            namings.append(naming)
            indexes.append(self._index_among_siblings(above, element_id, naming, tree_type))
            above = element
        if trusted and None in indexes:
            if tree_type == "visual":
                # From the first step its parent does not list, down to el: the steps above are fine.
                self._off_visual.update(ids[indexes.index(None) :])
            return None
        loc = known
        for element_id, naming, index in zip(ids, namings, indexes, strict=True):
            if loc is None:  # a top-level window: its index is among the roots
                seg = format_segment(naming.type_name, index=index or 0)
                key = self._unique_key(naming, tree_type) if (naming.name or naming.automation_id) else None
                loc = Loc(path=seg, anchored=format_segment(naming.type_name, ident=key) if key else seg)
            else:
                loc = self.child_loc(loc, naming, index or 0, tree_type)
            if trusted:
                memo[element_id] = loc
        assert loc is not None
        return loc

    def _index_among_siblings(
        self, parent: Any | None, child_id: str, naming: Naming, tree_type: TreeType
    ) -> int | None:
        """The child's index among its parent's children (or the roots) of the same type; None if not among them."""
        key = self.id(parent) if parent is not None else ""
        tables = self._sibling_indexes[tree_type]
        table = tables.get(key)
        if table is None:
            pool = self.adapter.roots() if parent is None else self.children_of(parent, tree_type)
            seen: Counter[str] = Counter()
            table = {}
            for sibling in pool:
                kind = self.naming_of(sibling).type_name.lower()
                table[self.id(sibling)] = seen[kind]
                seen[kind] += 1
            tables[key] = table
        return table.get(child_id)

    def display_parent(self, el: Any) -> Any | None:
        """The parent a user is shown: the visual one, else (for an element outside the visual tree) the logical one."""
        parent = self.parent_of(el, "visual")
        if parent is not None:
            return parent
        if any(self.same(el, root) for root in self.adapter.roots()):
            return None
        return self.parent_of(el, "logical")

    def locator_of(self, el: Any) -> str:
        return self.locator_parts(el).locator

    def path_of(self, el: Any) -> str:
        return self.locator_parts(el).path
