"""The locator every node carries: a name or automation id when unique in the app, else its path."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

from wpfprobe.core.protocol import Naming
from wpfprobe.engine.locators import format_segment
from wpfprobe.engine.reading import HopHost, Reader


@dataclass(frozen=True, slots=True)
class Loc:
    path: str
    anchored: str

    @property
    def locator(self) -> str:
        return self.anchored


class Locating(Reader):
    """Builds locators for the elements a hop projects, memoised per hop."""

    def __init__(self, engine: HopHost) -> None:
        super().__init__(engine)
        self._census: Counter[tuple[str, str]] | None = None
        self._locs: dict[str, Loc] = {}
        self._sibling_indexes: dict[str, dict[str, int]] = {}

    def census(self) -> Counter[tuple[str, str]]:
        """How many elements answer to each (type, #key): a key is unique if 1.

        It takes a walk of the whole app, so it is kept for a second across
        hops. A stale count is safe: a locator is re-resolved on every use, and
        a name that became ambiguous meanwhile is reported as LOCATOR_AMBIGUOUS.
        """
        if self._census is None:
            cached = self.engine.census_cache
            ttl = self.engine.settings.census_ttl
            if cached is not None and time.monotonic() - cached[0] < ttl:
                self._census = cached[1]
                return self._census
            counts: Counter[tuple[str, str]] = Counter()
            stack = list(self.adapter.roots())
            while stack:
                el = stack.pop()
                n = self.naming_of(el)
                for key in {n.name, n.automation_id} - {None, ""}:
                    counts[(n.type_name.lower(), key)] += 1  # type: ignore[index]
                stack.extend(self.children_of(el, "visual"))
            self._census = counts
            self.engine.census_cache = (time.monotonic(), counts)
        return self._census

    def _unique_key(self, naming: Naming) -> str | None:
        for key in (naming.automation_id, naming.name):
            if key and self.census()[(naming.type_name.lower(), key)] == 1:
                return key
        return None

    def child_loc(self, parent: Loc, naming: Naming, index: int) -> Loc:
        seg = format_segment(naming.type_name, index=index)
        path = f"{parent.path}/{seg}"
        key = self._unique_key(naming) if (naming.name or naming.automation_id) else None
        if key is not None:
            anchored = format_segment(naming.type_name, ident=key)
        else:
            anchored = f"{parent.anchored}/{seg}"
        return Loc(path=path, anchored=anchored)

    def locator_parts(self, el: Any) -> Loc:
        """Path and preferred locator of ``el``, memoised per node for this hop.

        Walks up only to the nearest ancestor already known, and indexes each
        parent's children once: a page of siblings costs one pass over them,
        not one pass per sibling.
        """
        node_id = self.id(el)
        known = self._locs.get(node_id)
        if known is not None:
            return known
        chain, ids = [el], [node_id]
        parent = self.parent_of(el, "visual")
        while parent is not None:
            parent_id = self.id(parent)
            known = self._locs.get(parent_id)
            if known is not None:
                break
            chain.append(parent)
            ids.append(parent_id)
            parent = self.parent_of(parent, "visual")
        chain.reverse()
        ids.reverse()
        loc = known
        for element, element_id in zip(chain, ids, strict=False):
            naming = self.naming_of(element)
            index = self._index_among_siblings(parent, element_id, naming)
            if loc is None:  # a top-level window: its index is among the roots
                seg = format_segment(naming.type_name, index=index)
                key = self._unique_key(naming) if (naming.name or naming.automation_id) else None
                loc = Loc(path=seg, anchored=format_segment(naming.type_name, ident=key) if key else seg)
            else:
                loc = self.child_loc(loc, naming, index)
            self._locs[element_id] = loc
            parent = element
        assert loc is not None
        return loc

    def _index_among_siblings(self, parent: Any | None, child_id: str, naming: Naming) -> int:
        """The child's index among its parent's children (or the roots) of the same type."""
        key = self.id(parent) if parent is not None else ""
        table = self._sibling_indexes.get(key)
        if table is None:
            pool = self.adapter.roots() if parent is None else self.children_of(parent, "visual")
            seen: Counter[str] = Counter()
            table = {}
            for sibling in pool:
                kind = self.naming_of(sibling).type_name.lower()
                table[self.id(sibling)] = seen[kind]
                seen[kind] += 1
            self._sibling_indexes[key] = table
        return table.get(child_id, 0)

    def locator_of(self, el: Any) -> str:
        return self.locator_parts(el).locator

    def path_of(self, el: Any) -> str:
        return self.locator_parts(el).path
