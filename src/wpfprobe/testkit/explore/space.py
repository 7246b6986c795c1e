"""The action space: what the explorer may do on the screen it sees, in a stable order.

From the element trees of the visible windows, every element a user could act
on (visible and enabled; menu items also while their menu is closed, as a
user opens the menu to reach them), with the actions its kind takes: click
(buttons, links, menu items, radio buttons), type_text (text boxes, not
password boxes: what is typed there is redacted in the record, so it could not
be replayed), select (lists, combo boxes, tab controls), toggle (check boxes,
toggle buttons, checkable menu items), send_keys (on elements that take keys)
and scroll (PageDown/PageUp/Home/End on lists and text: there is no scroll
tool). Elements the safety policy denies are left out (and listed, for
``--dry-run``).

The list is sorted by locator, then action: the seed picks from the same list
in the same order on the same screen, whatever order the toolkit listed
children in, so the same seed makes the same choices.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from wpfprobe.core.redaction import REDACTED
from wpfprobe.testkit.explore.policy import Decision, SafetyPolicy

CLICK = frozenset(
    {"button", "toolstripbutton", "toolstripmenuitem", "menuitem", "linklabel", "hyperlink", "radiobutton",
     "toolstripsplitbutton", "toolstripdropdownbutton", "repeatbutton"}
)  # fmt: skip
TYPE = frozenset({"textbox", "richtextbox", "maskedtextbox", "numericupdown", "domainupdown"})
SELECT = frozenset({"combobox", "listbox", "checkedlistbox", "listview", "tabcontrol", "treeview"})
TOGGLE = frozenset({"checkbox", "togglebutton"})
SCROLL = frozenset({"listbox", "checkedlistbox", "listview", "treeview", "richtextbox", "datagridview", "datagrid"})
MENU = frozenset({"toolstripmenuitem", "menuitem"})
KEYS = TYPE | SELECT | frozenset({"button", "datagridview", "datagrid"})
SCROLL_KEYS = ("PageDown", "PageUp", "Home", "End")


@dataclass(frozen=True)
class Candidate:
    """One action the explorer could take now."""

    action: str
    """An MCP action (``click``...), or ``scroll`` (sent as send_keys)."""
    locator: str
    node: dict[str, Any]
    window: str
    """The title (else type) of the window the element is in."""
    top: bool
    """In the window on top (the last one opened): a modal dialog blocks the others."""

    @property
    def key(self) -> tuple[str, str]:
        return (self.locator, self.action)


@dataclass(frozen=True)
class Blocked:
    action: str
    locator: str
    node: dict[str, Any]
    decision: Decision


def _kind(node: dict[str, Any]) -> str:
    return str(node.get("type") or "").lower()


def _walk(node: dict[str, Any], *, visible: bool) -> Iterator[tuple[dict[str, Any], bool]]:
    """(node, whether it and every ancestor is visible)."""
    shown = visible and bool(node.get("visible"))
    yield node, shown
    for child in node.get("children") or []:
        if isinstance(child, dict):
            yield from _walk(child, visible=shown)


def actions_for(node: dict[str, Any]) -> list[str]:
    kind = _kind(node)
    out: list[str] = []
    if kind in CLICK:
        out.append("click")
    if kind in TYPE and node.get("text") != REDACTED:
        out.append("type_text")
    if kind in SELECT:
        out.append("select")
    if kind in TOGGLE or (kind in MENU and node.get("checked") is not None):
        out.append("toggle")
    if kind in KEYS and node.get("text") != REDACTED:
        out.append("send_keys")
    if kind in SCROLL:
        out.append("scroll")
    return out


def build(
    trees: Sequence[dict[str, Any]],
    windows: Sequence[dict[str, Any]],
    policy: SafetyPolicy,
    *,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    weights: dict[str, float] | None = None,
) -> tuple[list[Candidate], list[Blocked]]:
    """The sorted candidates on these windows, and what the policy blocked."""
    top_id = _top_window(windows)
    candidates: list[Candidate] = []
    blocked: list[Blocked] = []
    for tree in trees:
        root = tree.get("root") if isinstance(tree.get("root"), dict) else None
        if root is None:
            continue
        window = str(root.get("text") or root.get("type") or "window")
        top = root.get("nodeId") == top_id
        for node, shown in _walk(root, visible=True):
            if node is root or not node.get("enabled", True):
                continue
            if not shown and _kind(node) not in MENU:
                continue
            locator = str(node.get("locator") or "")
            if not locator or (include and not _listed(include, node)) or _listed(exclude, node):
                continue
            for action in actions_for(node):
                if weights is not None and weights.get(action, 1.0) <= 0:
                    continue
                decision = policy.decide(node, action)
                if not decision.allowed:
                    blocked.append(Blocked(action, locator, node, decision))
                    continue
                candidates.append(Candidate(action, locator, _slim(node), window, top))
    candidates.sort(key=lambda c: (c.locator, c.action))
    blocked.sort(key=lambda b: (b.locator, b.action))
    return candidates, blocked


def _top_window(windows: Sequence[dict[str, Any]]) -> str | None:
    """The window on top: the active one if the toolkit says, else the last listed (the newest dialog)."""
    if not windows:
        return None
    active = [w for w in windows if w.get("active")]
    chosen = active[0] if len(active) == 1 else windows[-1]
    node_id = chosen.get("nodeId")
    return str(node_id) if node_id is not None else None


def _listed(entries: Sequence[str], node: dict[str, Any]) -> bool:
    from wpfprobe.testkit.explore.policy import _locator_matches  # noqa: PLC0415

    return any(_locator_matches(e, node) for e in entries)


def _slim(node: dict[str, Any]) -> dict[str, Any]:
    """The node without its children: what a step and the coverage need of it."""
    return {k: v for k, v in node.items() if k != "children"}


def state_key(windows: Sequence[dict[str, Any]], candidates: Sequence[Candidate]) -> tuple[str, tuple[str, ...]]:
    """A screen as coverage counts it: the window on top, and the set of actionable elements."""
    top = _top_window(windows)
    title = next((str(w.get("title") or w.get("type") or "") for w in windows if str(w.get("nodeId")) == top), "")
    return title, tuple(sorted({c.locator for c in candidates}))
