"""What every item kind answers: the ``Item`` base class, item facts, and screen geometry.

An item is something a user sees and picks inside a control that is not a
control itself: a list box's string, a tree node, a list view row, a grid cell.
Each kind of item is one ``Item`` subclass, stateless, chosen once per Python
type (see ``items/__init__``); its methods take the item element and read it
live. A control that shows the item is its ``owner``: what hides, disables or
covers the owner does so to the item too.

Facts are the properties an item has that TypeDescriptor cannot list (a list
box's string has no properties at all): a name and a getter, read on demand
like any property, and never settable.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import clr
from System import Array, EventArgs, Object
from System.Reflection import BindingFlags

from wpfprobe.core.errors import ElementNotInteractableError
from wpfprobe.core.protocol import ActionKind, Blocker, Bounds, ElementState, InputMode, Naming, PlainValue
from wpfprobe_clr.net.lazy import clr_namespace
from wpfprobe_clr.toolkits.winforms.delivery import protected

WF = clr_namespace("System.Windows.Forms")

#: Where an item's facts come from, as a property row's valueSource (shown without includeDefaults).
FACT_SOURCE = "item"


@dataclass(frozen=True, slots=True)
class Fact:
    """A property of an item read through a getter of the probe's own (the handle of its descriptor)."""

    name: str
    type_name: str
    read: Callable[[Any], Any]


class Item(ABC):
    """One kind of item. Every method reads the live item; none keeps state between calls."""

    #: The role shown as the type of items that have no .NET object of their own (``ItemRef``).
    role: tuple[str, str] | None = None
    #: How messages name this kind of item ("a tree node does not support ...").
    kind_label = "item"

    # -- the tree ------------------------------------------------------------
    @abstractmethod
    def owner(self, el: Any) -> Any:
        """The control that shows the item."""

    def parent(self, el: Any) -> Any:
        return self.owner(el)

    def children(self, el: Any) -> list[Any]:
        return []

    @abstractmethod
    def is_alive(self, el: Any) -> bool:
        """Whether the item is still in its owner (and the owner still open)."""

    def naming(self, el: Any, type_names: Any) -> Naming:
        """``type_names.of(el)`` is the element's .NET (short, full) type name, read once per type."""
        if self.role is not None:
            return Naming(self.role[0], self.role[1], None, None)
        short, full = type_names.of(el)
        name = getattr(el, "Name", None)
        return Naming(short, full, str(name) if name else None, None)

    @abstractmethod
    def state(self, el: Any) -> ElementState:
        """Visible, enabled, focused, and the item's own selected, checked, expanded."""

    def describe(self, el: Any) -> str:
        """How a message names the item: its type and, briefly, its text."""
        kind = self.role[0] if self.role is not None else type(el).__name__
        try:
            text = self.text(el)
        except Exception:  # noqa: BLE001 - a message must not fail on the text it quotes
            text = None
        return f'{kind} "{text[:40]}"' if text else kind

    def client_rect(self, el: Any) -> Any | None:
        """The item's rectangle in its owner's client coordinates, or None while it is not shown."""
        return None

    def bounds(self, el: Any) -> Bounds | None:
        rect = self.client_rect(el)
        if rect is None:
            return None
        owner = self.owner(el)
        if not owner.IsHandleCreated:
            return None
        r = owner.RectangleToScreen(rect)
        return Bounds(int(r.X), int(r.Y), int(r.Width), int(r.Height))

    def click_point(self, el: Any) -> tuple[int, int] | None:
        box = self.bounds(el)
        if box is None or box.width <= 0 or box.height <= 0:
            return None
        return box.x + box.width // 2, box.y + box.height // 2

    # -- text and properties -------------------------------------------------
    def text(self, el: Any) -> str | None:
        return None

    def facts(self, el: Any) -> list[Fact]:
        """Properties beyond TypeDescriptor's (all of them, for an item with no object of its own)."""
        return []

    def data_type(self, el: Any) -> str | None:
        """The type of the data object behind the item (a bound row), if any."""
        return None

    # -- input ---------------------------------------------------------------
    def unsupported(self, el: Any, action: ActionKind) -> str | None:
        """Why the item cannot take ``action`` at all, or None."""
        if action in ("click", "select", "focus", "keys"):
            return None
        if action == "toggle":
            return f"It is a {self.kind_label} without a check box."
        return f"A {self.kind_label} takes no typed text."

    def blocker(self, el: Any, action: ActionKind, mode: InputMode) -> Blocker | None:
        """What about the item itself (beyond its owner) stops the action now."""
        return None

    def pointer_free(self, el: Any) -> bool:
        """Whether the toolkit reaches the item without a visible click point (scrolling or opening for it)."""
        return True

    def action_state(self, el: Any) -> dict[str, PlainValue]:
        st = self.state(el)
        out: dict[str, PlainValue] = {}
        for key in ("selected", "checked", "expanded"):
            value = getattr(st, key)
            if value is not None:
                out[key] = value
        return out

    def click(self, el: Any, *, button: str, count: int) -> None:
        """A click as a user makes it: a left click picks the item, then the owner hears the click."""
        if button == "left":
            self.pick(el)
        self.mouse(el, button, count)

    def pick(self, el: Any) -> None:
        """What a plain left click on the item does (select it)."""
        self.select(el)

    def select(self, el: Any) -> None:
        # Kinds that cannot be selected say so in unsupported(), so the engine refuses before this.
        raise cannot(self.kind_label, "select", "Click it instead.")

    def toggle(self, el: Any, state: bool | None) -> None:
        raise cannot(self.kind_label, "toggle", "Only checkable items and tree nodes toggle.")

    def typing_target(self, el: Any) -> Any:
        """The control that takes typed characters for the item (an editing control it opens)."""
        raise cannot(self.kind_label, "typed text", "Type into a text box or a grid cell.")

    def typed(self, el: Any) -> None:  # noqa: B027 - most items have nothing to commit
        """After the characters: commit what was typed, as leaving the item would."""

    def mouse(self, el: Any, button: str, count: int) -> None:
        """The owner's click events at the item, as the pointer would raise them after the selection.

        Mouse down and up are left out: Mono's list controls select on them
        themselves, so the item would be picked twice (a check box would flip back).
        """
        owner = self.owner(el)
        rect = self.client_rect(el)
        x, y = (rect.X + rect.Width // 2, rect.Y + rect.Height // 2) if rect is not None else (0, 0)
        which = {"left": WF.MouseButtons.Left, "right": WF.MouseButtons.Right, "middle": WF.MouseButtons.Middle}[button]
        for n in range(1, count + 1):
            args = WF.MouseEventArgs(which, n, x, y, 0)
            if button == "left":
                protected(owner, "OnClick", EventArgs.Empty)
            protected(owner, "OnMouseClick", args)
            if n == 2:
                if button == "left":
                    protected(owner, "OnDoubleClick", EventArgs.Empty)
                protected(owner, "OnMouseDoubleClick", args)


def visible_in(owner: Any, rect: Any) -> bool:
    """Whether any of ``rect`` (owner client coordinates) lies in the owner's client area."""
    return bool(owner.ClientRectangle.IntersectsWith(rect))


def cannot(what: str, action: str, suggestion: str) -> ElementNotInteractableError:
    return ElementNotInteractableError(
        f"A {what} does not support {action}.", suggestion=suggestion, detail={"reason": "unsupported"}
    )


def checked_of(state: Any) -> bool | None:
    """A CheckState as ``checked``: None for indeterminate."""
    name = str(state)
    if name == "Indeterminate":
        return None
    return name == "Checked"


_INSTANCE = BindingFlags.Instance | BindingFlags.NonPublic | BindingFlags.Public
#: Protected members found once per process: (declaring type, name, arity) -> MethodInfo.
_members: dict[tuple[str, str, int], Any] = {}


def call_protected(target: Any, declaring: type, name: str, *args: Any) -> Any:
    """Call a protected member that ``declaring`` defines (OnColumnClick, OnNodeMouseClick...), as the control would."""
    key = (declaring.__name__, name, len(args))
    method = _members.get(key)
    if method is None:
        candidates = [
            m
            for m in clr.GetClrType(declaring).GetMethods(_INSTANCE)
            if m.Name == name and len(m.GetParameters()) == len(args)
        ]
        if not candidates:
            raise AttributeError(f"{declaring.__name__} has no method {name} taking {len(args)} arguments")
        method = _members[key] = candidates[0]
    return method.Invoke(target, Array[Object](list(args)))
