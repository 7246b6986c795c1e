"""``Hop``: everything one UI-thread hop does, and the projection of elements to plain dicts."""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Sequence
from typing import Any

from wpfprobe.core.models import Rect
from wpfprobe.core.protocol import PlainValue, TreeType
from wpfprobe.core.redaction import REDACTED
from wpfprobe.engine.locating import Loc
from wpfprobe.engine.resolving import Resolver


class Hop(Resolver):
    """A hop's reader, locator builder and resolver, plus node projection and tree snapshots."""

    def project(
        self,
        el: Any,
        *,
        tree_type: TreeType = "visual",
        locator: str | None = None,
        props: Sequence[str] = (),
        kids: list[Any] | None = None,
    ) -> dict[str, Any]:
        naming = self.adapter.naming(el)
        state = self.adapter.state(el)
        if kids is None:
            kids = self.adapter.children(el, tree_type)
        node: dict[str, Any] = {
            "nodeId": self.id(el),
            "type": naming.type_name,
            "typeName": naming.full_type_name,
            "name": naming.name,
            "automationId": naming.automation_id,
            "text": self.text(el),
            "visible": state.visible,
            "enabled": state.enabled,
            "focused": state.focused,
            "childCount": len(kids),
            "locator": locator if locator is not None else self.locator_of(el),
        }
        if props:
            values: dict[str, PlainValue] = {}
            for pname in props:
                prop = self.adapter.find_property(el, pname)
                if prop is not None:
                    values[prop.name] = REDACTED if self.redactor.is_redacted(prop) else self.read_value(el, prop)
            node["properties"] = values
        return node

    def snapshot(
        self, root: Any, *, max_depth: int, tree_type: TreeType, props: Sequence[str], cap: int
    ) -> tuple[dict[str, Any], bool, int]:
        """Breadth first, so the node cap cuts whole levels, not one deep branch."""
        use_paths = tree_type == "visual"
        root_loc = self.locator_parts(root)
        root_kids = self.adapter.children(root, tree_type)
        root_node = self.project(root, tree_type=tree_type, locator=root_loc.locator, props=props, kids=root_kids)
        count, truncated = 1, False
        queue: deque[tuple[dict[str, Any], list[Any], int, Loc]] = deque([(root_node, root_kids, 0, root_loc)])
        while queue:
            node, kids, depth, loc = queue.popleft()
            if not kids:
                continue
            if depth >= max_depth or count >= cap:
                node["childrenTruncated"] = True
                truncated = truncated or count >= cap
                continue
            children: list[dict[str, Any]] = []
            per_type: Counter[str] = Counter()
            for kid in kids:
                if count >= cap:
                    node["childrenTruncated"] = True
                    truncated = True
                    break
                naming = self.adapter.naming(kid)
                t = naming.type_name.lower()
                kid_loc = self.child_loc(loc, naming, per_type[t]) if use_paths else self.locator_parts(kid)
                per_type[t] += 1
                grand = self.adapter.children(kid, tree_type)
                child = self.project(kid, tree_type=tree_type, locator=kid_loc.locator, props=props, kids=grand)
                children.append(child)
                count += 1
                queue.append((child, grand, depth + 1, kid_loc))
            node["children"] = children
        return root_node, truncated, count


def rect(bounds: Any) -> Rect | None:
    if bounds is None:
        return None
    return Rect(x=bounds.x, y=bounds.y, width=bounds.width, height=bounds.height)
