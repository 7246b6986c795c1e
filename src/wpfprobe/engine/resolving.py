"""Resolving a target (node id or locators) to live elements, and evaluating locators over the tree."""

from __future__ import annotations

from collections.abc import Generator, Iterable, Iterator
from typing import Any

from wpfprobe.core.errors import LocatorAmbiguousError, LocatorNotFoundError
from wpfprobe.core.protocol import Naming, TreeType
from wpfprobe.engine.locating import MAX_PATH_DEPTH, Locating
from wpfprobe.engine.locators import Compound, PathLocator, Selector, parse_locator
from wpfprobe.engine.matching import pick_nth, tests_text, value_matches
from wpfprobe.engine.target import Target

MAX_CANDIDATES_LISTED = 10


def index_key(compound: Compound) -> str | None:
    """The name or automation id every match of ``compound`` must have, if it names one exactly."""
    if compound.ident is not None:
        return compound.ident
    for attr in compound.attrs:
        if (
            attr.name.lower() in ("name", "automationid")
            and attr.op == "equals"
            and not attr.ignore_case
            and attr.value
        ):
            return attr.value
    return None


class Resolver(Locating):
    """Finds elements: by node id, by locator, or by a compound test over a subtree."""

    def resolve(self, target: Target) -> Any:
        return self._one(self.resolve_all(target), target.describe())

    def resolve_once(self, target: Target) -> Any:
        """``resolve``, memoised for the rest of this hop."""
        key = ("resolved", target)
        if key not in self._memo:
            self._memo[key] = self.resolve(target)
        return self._memo[key]

    def _one(self, matches: list[Any], described: str) -> Any:
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise LocatorNotFoundError(
                f"Nothing matches {described!r}.",
                suggestion="Check the locator with wpf_find_elements, or look at wpf_get_visual_tree.",
                detail={"locator": described, "scanned": self.scanned},
            )
        listed = [{"nodeId": self.id(m), "locator": self.locator_of(m)} for m in matches[:MAX_CANDIDATES_LISTED]]
        raise LocatorAmbiguousError(
            f"{len(matches)} elements match {described!r}; an action needs exactly one.",
            suggestion="Use one candidate's locator or nodeId, or add :nth(i) to pick one.",
            detail={"count": len(matches), "candidates": listed},
        )

    def resolve_all(self, target: Target) -> list[Any]:
        if target.node_id is not None:
            matches = [self.node(target.node_id)]
        else:
            first, *rest = target.locators
            loc = parse_locator(first)
            matches = self.evaluate(loc, self.adapter.roots(), tree_type=loc.tree_type, app_wide=True)
            for i, text in enumerate(rest):
                # Each further locator searches inside the one element found so far.
                parent = self._one(matches, " >> ".join(target.locators[: i + 1]))
                inner = parse_locator(text)
                tree: TreeType = inner.tree_type
                matches = self.evaluate(inner, self.children_of(parent, tree), tree_type=tree, anchored=parent)
        if target.nth is not None:
            try:
                return [matches[target.nth]]
            except IndexError:
                return []
        return matches

    def evaluate(
        self,
        loc: Selector | PathLocator,
        scope: list[Any],
        *,
        tree_type: TreeType,
        anchored: Any = None,
        app_wide: bool = False,
    ) -> list[Any]:
        """Elements ``loc`` finds in ``scope``; ``app_wide`` says the scope is every window (the index may answer)."""
        if isinstance(loc, PathLocator):
            return self.evaluate_path(
                loc, scope if anchored is None else [anchored], relative=anchored is not None, app_wide=app_wide
            )
        matches: list[Any] = []
        for i, (combinator, compound) in enumerate(loc.steps):
            if i == 0:
                found = self.select_compound(scope, compound, tree_type=tree_type, apply_nth=False, app_wide=app_wide)
            else:
                found = []
                # Two candidates may reach the same element (nested ancestors): keep it once, by node id,
                # so a step over a list of thousands of items stays linear.
                seen: set[str] = set()
                for cand in matches:
                    pool = (
                        self.children_of(cand, tree_type)
                        if combinator == ">"
                        else list(self.descendants(cand, tree_type))
                    )
                    for el in pool:
                        self.scanned += combinator == ">"
                        if not self.matches(el, compound):
                            continue
                        if len(matches) > 1:
                            key = self.id(el)
                            if key in seen:
                                continue
                            seen.add(key)
                        found.append(el)
            matches = pick_nth(found, compound)
        return matches

    def evaluate_path(self, loc: PathLocator, scope: list[Any], *, relative: bool, app_wide: bool = False) -> list[Any]:
        tree = loc.tree_type
        first, rest = loc.segments[0], loc.segments[1:]
        if first.ident is not None and not relative:
            # A named first segment anchors anywhere in the app, like a selector.
            compound = Compound(type_name=first.type_name, ident=first.ident)
            current = self.select_compound(scope, compound, tree_type=tree, app_wide=app_wide)
            if first.index is not None:
                current = current[first.index : first.index + 1]
            elif len(current) > 1:
                return current  # ambiguous: resolve() reports the candidates
        else:
            pool = scope if not relative else self.children_of(scope[0], tree)
            current = self._segment_pick(pool, first)
        for seg in rest:
            if len(current) != 1:
                return []
            current = self._segment_pick(self.children_of(current[0], tree), seg)
        return current

    def _segment_pick(self, pool: list[Any], seg: Any) -> list[Any]:
        compound = Compound(type_name=seg.type_name, ident=seg.ident)
        hits = []
        for el in pool:
            self.scanned += 1
            if self.matches(el, compound):
                hits.append(el)
        index = seg.index or 0
        return hits[index : index + 1]

    def select_compound(
        self,
        scope: list[Any],
        compound: Compound,
        *,
        tree_type: TreeType,
        apply_nth: bool = True,
        app_wide: bool = False,
    ) -> list[Any]:
        """Elements of ``scope`` and below matching ``compound``, in document order.

        Over the whole app (``app_wide``) a compound that names a key (``#key``,
        ``[name=...]``, ``[automationId=...]``) is answered from the name index.
        """
        key = index_key(compound) if app_wide and tree_type == "visual" else None
        if key is not None:
            found = self.indexed(key, compound)
        else:
            found = [el for el in self.walk(scope, tree_type) if self.matches(el, compound)]
        return pick_nth(found, compound) if apply_nth else found

    def select_compound_steps(
        self, scope: list[Any], compound: Compound, *, tree_type: TreeType, app_wide: bool = False
    ) -> Generator[None, None, list[Any]]:
        """``select_compound`` as slices: a search that walks the app yields when ``slice_due()``."""
        key = index_key(compound) if app_wide and tree_type == "visual" else None
        if key is not None:
            return self.select_compound(scope, compound, tree_type=tree_type, app_wide=app_wide)
        found = []
        for el in self.walk(scope, tree_type):
            if self.slice_due():
                yield  # the walk keeps its place; a change meanwhile makes the caller start again
            if self.matches(el, compound):
                found.append(el)
        return pick_nth(found, compound)

    def indexed(self, key: str, compound: Compound) -> list[Any]:
        """The elements answering to ``key`` and ``compound`` now, from the name index.

        Every hit is checked against the live element (alive, still matching,
        still under a window); when none passes, the index may have missed a
        change the toolkit did not tell of (a name set at run time), so it is
        rebuilt and asked once more: a stale index costs a walk, never a wrong answer.
        """
        index = self.name_index()
        hits = self._valid_hits(index.by_key.get(key, ()), compound, index.roots)
        if not hits and not self._census_fresh:
            index = self.name_index(rebuild=True)
            hits = self._valid_hits(index.by_key.get(key, ()), compound, index.roots)
        return hits

    def _valid_hits(self, node_ids: Iterable[str], compound: Compound, roots: tuple[str, ...]) -> list[Any]:
        hits = []
        for node_id in node_ids:
            self.scanned += 1
            el = self.objects.get(node_id)
            if el is None or not self.adapter.is_alive(el) or not self.matches(el, compound):
                continue
            if self._under_a_window(el, roots):
                hits.append(el)
        return hits

    def _under_a_window(self, el: Any, roots: tuple[str, ...]) -> bool:
        """Whether ``el``'s visual parents lead to one of the windows (it was not taken out of the tree)."""
        for _ in range(MAX_PATH_DEPTH):
            if self.id(el) in roots:
                return True
            el = self.parent_of(el, "visual")
            if el is None:
                return False
        return False

    def walk(self, scope: list[Any], tree_type: TreeType) -> Iterator[Any]:
        stack = list(reversed(scope))
        while stack:
            el = stack.pop()
            self.scanned += 1
            yield el
            stack.extend(reversed(self.children_of(el, tree_type)))

    def descendants(self, el: Any, tree_type: TreeType) -> Iterator[Any]:
        it = self.walk(self.children_of(el, tree_type), tree_type)
        yield from it

    def matches(self, el: Any, c: Compound) -> bool:
        naming: Naming | None = None
        if c.type_name is not None or c.ident is not None:
            naming = self.naming_of(el)
            if c.type_name is not None:
                wanted = c.type_name.lower()
                if naming.type_name.lower() != wanted and naming.full_type_name.lower() != wanted:
                    return False
            if c.ident is not None and c.ident not in (naming.name, naming.automation_id):
                return False
        if c.visible_only and not self.state_of(el).visible:
            return False
        if c.type_name is None and c.ident is None and tests_text(c) and self.adapter.is_template_part(el):
            return False  # the text belongs to the templated control, which matches itself
        return all(value_matches(self.attr_value(el, a.name), a) for a in c.attrs)
