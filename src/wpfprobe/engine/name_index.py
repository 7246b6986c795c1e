"""The app-wide index of names and automation ids, kept across hops.

Resolving ``TextBox#saveName`` or finding by name used to walk the whole app
on every call, and so did the census that decides whether a name is unique
(and so whether a node's locator is ``Type#name`` or a path). The index is one
walk's worth of (key -> node ids, in document order) and ((type, key) ->
count), kept on the engine until it may be out of date:

- the structure changed: the adapter counts its containers' child-added and
  child-removed events (``structure_version``; containers are watched as the
  index walk meets them), and the top-level windows are compared on use;
- a change the toolkit does not event (a Name set at run time, an item added
  to a collection with no event) cannot be seen; so every hit is validated on
  use (the element is alive, still answers to the key and type, and its
  parents still lead to a window), and a key with no valid hit makes the hop
  walk once more and look again (a repair). Only one case is left: an
  element that took, without an event, a name another live element already
  had; the index is rebuilt after ``name_index_ttl`` seconds at the latest,
  and a generated locator that became ambiguous meanwhile is reported as
  LOCATOR_AMBIGUOUS when used, as with the census before it.
- an adapter that cannot count its changes (``structure_version`` None, or a
  container it could not watch) gets the old census rule: the index is kept
  ``census_ttl`` seconds.

Only the visual tree is indexed; the logical census stays per hop.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field


@dataclass(slots=True)
class NameIndex:
    """One walk's names: built and read on the UI thread only, replaced whole."""

    #: Adapter's structure version when built; None: the adapter cannot tell (TTL only).
    version: int | None
    #: Node ids of the top-level windows when built, in order.
    roots: tuple[str, ...]
    built_at: float = field(default_factory=time.monotonic)
    #: Name or automation id -> node ids answering to it, in document order.
    by_key: dict[str, list[str]] = field(default_factory=dict)
    #: (lower-case type name, key) -> how many elements answer to it.
    counts: Counter[tuple[str, str]] = field(default_factory=Counter)

    def add(self, node_id: str, type_name: str, keys: set[str]) -> None:
        for key in keys:
            self.by_key.setdefault(key, []).append(node_id)
            self.counts[(type_name.lower(), key)] += 1

    def is_current(self, version: int | None, roots: tuple[str, ...], *, ttl: float, census_ttl: float) -> bool:
        """Whether this index may still be used as it is (hits are validated on use either way)."""
        if roots != self.roots:
            return False
        age = time.monotonic() - self.built_at
        if self.version is None or version is None:
            return age < census_ttl
        return version == self.version and age < ttl
