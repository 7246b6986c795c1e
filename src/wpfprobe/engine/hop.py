"""``Hop``: everything one UI-thread hop does, and the projection of elements to plain dicts."""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Generator, Sequence
from typing import Any

from wpfprobe.core.protocol import ElementState, Naming, PlainValue, TreeType
from wpfprobe.core.redaction import REDACTED
from wpfprobe.engine.locating import Loc, run_whole
from wpfprobe.engine.locators import LOGICAL_PREFIX
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
        naming = self.naming_of(el)
        state = self.state_of(el)
        if kids is None:
            kids = self.children_of(el, tree_type)
        node_id = self.id(el)
        text, access_key = self.text_and_key(el)
        node = node_dict(
            node_id, naming, state, text, access_key,
            child_count=len(kids),
            total_count=self.child_total_of(el),
            locator=locator if locator is not None else self.locator_of(el),
        )  # fmt: skip
        if props:
            values: dict[str, PlainValue] = {}
            for pname in props:
                prop = self.adapter.find_property(el, pname)
                if prop is None:
                    continue
                if self.redactor.is_redacted(prop):
                    values[prop.name] = REDACTED
                    continue
                try:
                    values[prop.name] = self.read_value(el, prop)
                except Exception as exc:  # noqa: BLE001 - one property's getter failing costs one value
                    self.fault(el, f"property {prop.name}", exc)
                    values[prop.name] = None
            node["properties"] = values
        error = self.error_of(node_id)
        if error is not None:
            node["error"] = error
        return node

    def snapshot(
        self, root: Any, *, max_depth: int, tree_type: TreeType, props: Sequence[str], cap: int
    ) -> tuple[dict[str, Any], bool, int]:
        """Breadth first, so the node cap cuts whole levels, not one deep branch; in this hop."""
        return run_whole(self.snapshot_steps(root, max_depth=max_depth, tree_type=tree_type, props=props, cap=cap))

    def snapshot_steps(
        self, root: Any, *, max_depth: int, tree_type: TreeType, props: Sequence[str], cap: int
    ) -> Generator[None, None, tuple[dict[str, Any], bool, int]]:
        """``snapshot`` as slices: it yields whenever ``slice_due()`` says the UI thread should be let go.

        The caller resumes it on the UI thread (``EngineBase.sliced``); it returns the snapshot.
        """
        root_loc = self.locator_parts(root)
        # A visual child's path extends its parent's, unless the parent's own path is a logical one.
        use_paths = tree_type == "visual" and not root_loc.path.startswith(LOGICAL_PREFIX)
        root_kids = self.children_of(root, tree_type)
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
                if self.slice_due():
                    yield  # the listed kids stay valid: a change meanwhile makes the caller start again
                if count >= cap:
                    node["childrenTruncated"] = True
                    truncated = True
                    break
                naming = self.naming_of(kid)
                t = naming.type_name.lower()
                kid_loc = self.child_loc(loc, naming, per_type[t]) if use_paths else self.locator_parts(kid)
                per_type[t] += 1
                grand = self.children_of(kid, tree_type)
                child = self.project(kid, tree_type=tree_type, locator=kid_loc.locator, props=props, kids=grand)
                children.append(child)
                count += 1
                queue.append((child, grand, depth + 1, kid_loc))
            node["children"] = children
        return root_node, truncated, count


def node_dict(
    node_id: str,
    naming: Naming,
    state: ElementState,
    text: str | None,
    access_key: str | None,
    *,
    child_count: int,
    total_count: int | None,
    locator: str,
) -> dict[str, Any]:
    """A projected node's fields, in the order every projection gives them (``Hop.project``, ``walked``)."""
    return {
        "nodeId": node_id,
        "type": naming.type_name,
        "typeName": naming.full_type_name,
        "name": naming.name,
        "automationId": naming.automation_id,
        "text": text,
        "accessKey": access_key,
        "visible": state.visible,
        "enabled": state.enabled,
        "focused": state.focused,
        "selected": state.selected,
        "checked": state.checked,
        "expanded": state.expanded,
        "childCount": child_count,
        "totalCount": total_count,
        "locator": locator,
    }


def json_form(node: dict[str, Any]) -> dict[str, Any]:
    """A projected node as its model dumps it to JSON (``exclude_none``): the same keys, without None values.

    Shallow but for ``error`` (whose ``reads`` may be None): a property's None value stays, as pydantic
    keeps it; children are expected in JSON form already.
    """
    out = {k: v for k, v in node.items() if v is not None}
    error = out.get("error")
    if isinstance(error, dict):
        out["error"] = {k: v for k, v in error.items() if v is not None}
    return out


def json_tree(root: dict[str, Any]) -> dict[str, Any]:
    """A projected tree (``Hop.snapshot``) in its JSON form, every node as ``json_form`` makes it."""
    out = json_form(root)
    stack = [out]
    while stack:
        node = stack.pop()
        children = node.get("children")
        if children:
            node["children"] = [json_form(c) for c in children]
            stack.extend(node["children"])
    return out


def rect(bounds: Any) -> dict[str, int] | None:
    """A ``Rect``'s fields, plain: read inside a hop, validated after it (no model is made, or
    built, on the UI thread)."""
    if bounds is None:
        return None
    return {"x": bounds.x, "y": bounds.y, "width": bounds.width, "height": bounds.height}


def count_errors(node: dict[str, Any]) -> int:
    """Nodes of a projected tree (or one node) that carry an ``error``."""
    total, stack = 0, [node]
    while stack:
        current = stack.pop()
        total += "error" in current
        stack.extend(current.get("children") or ())
    return total
