"""The facts diagnostics judge and the shapes a finding takes: an element as walked, a raw finding,
a provider, the per-run context, and the geometry the rules share."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar, get_args

from wpfprobe.core.models import FindingLevel
from wpfprobe.core.protocol import Bounds, DiagnosticFacts, Naming
from wpfprobe.engine.hop import Hop
from wpfprobe.engine.locators import format_ident

T = TypeVar("T")

#: Severity order: a page lists the most severe first.
LEVELS: dict[str, int] = {"info": 0, "warning": 1, "error": 2}
assert tuple(LEVELS) == get_args(FindingLevel)

#: An item control holding at least this many items without virtualization is reported.
LARGE_ITEM_COUNT = 100
#: At most this many controls are named in a suggestion (a tab order to set).
MAX_NAMED_IN_SUGGESTION = 12
#: A binding error's own message is cut to this many characters.
MAX_ERROR_TEXT = 300
#: Text may overflow its room by this many px before it counts as cut off: the last line's
#: leading and descenders, and what a toolkit measures differently from how it draws.
TEXT_SLACK_PX = 3

WPF = "wpf"
WINFORMS = "winforms"
BOTH = frozenset({WPF, WINFORMS})
NO_FACTS = DiagnosticFacts()


@dataclass(frozen=True, slots=True)
class Raw:
    """A finding before projection: ``index`` is the element's place in the walk."""

    index: int
    provider: str
    level: str
    message: str
    suggestion: str
    detail: dict[str, Any]


@dataclass(slots=True)
class Item:
    """One element of the walk, as plain facts (``el`` is only used on the UI thread)."""

    el: Any
    index: int
    parent: int | None
    naming: Naming
    visible: bool
    enabled: bool
    template_part: bool
    facts: DiagnosticFacts
    children: list[int]
    end: int = 0  # one past the last descendant, in walk order


class Context:
    """What providers read: the walked elements in pre-order, and lazy helpers."""

    def __init__(self, h: Hop, items: list[Item], toolkit: str, selected: frozenset[str] = frozenset()) -> None:
        self.h = h
        self.items = items
        self.toolkit = toolkit
        #: The providers of this run.
        self.selected = selected
        self._texts: dict[int, str | None] = {}
        self._tab_orders: dict[int, tuple[list[int], dict[int, int]]] = {}

    def pause(self) -> bool:
        """Whether a provider should yield a pause (None) now: its slice of the UI thread is used up."""
        return self.h.slice_due()

    def text(self, i: int) -> str | None:
        """The element's visible text, redacted as everywhere else (the engine's reader)."""
        if i not in self._texts:
            self._texts[i] = self.h.text(self.items[i].el)
        return self._texts[i]

    def describe(self, i: int) -> str:
        n = self.items[i].naming
        ident = n.name or n.automation_id
        return f"{n.type_name}#{format_ident(ident)}" if ident else n.type_name

    def short(self, i: int) -> str:
        """How a suggestion names a control: its name, else its type."""
        n = self.items[i].naming
        return n.name or n.automation_id or n.type_name

    def parent_of(self, i: int) -> int | None:
        return self.items[i].parent

    def window_of(self, i: int) -> int:
        while (p := self.items[i].parent) is not None:
            i = p
        return i

    def is_redacted(self, i: int, property_name: str | None, path: str | None = None) -> bool:
        """Whether a binding's property (or its path) holds a secret, decided without reading it."""
        redactor = self.h.redactor
        if not redactor.enabled:
            return False
        if path and redactor.name_is_secret(path):
            return True
        if not property_name:
            return False
        if redactor.name_is_secret(property_name):
            return True
        prop = self.h.adapter.find_property(self.items[i].el, property_name)
        return prop is not None and redactor.is_redacted(prop)

    def tab_sequence(self, window: int) -> tuple[list[int], dict[int, int]]:
        """The window's keyboard traversal (children by TabIndex, depth first) and each item's place in it."""
        known = self._tab_orders.get(window)
        if known is None:
            for _ in self._tab_sequence_steps(window, pausing=False):
                pass
            known = self._tab_orders[window]
        return known

    def tab_sequences(self) -> Iterator[None]:
        """Every window's ``tab_sequence`` made ahead, with a pause (None) wherever the slice is used up.

        Made on first use, a window of 5,000 controls was one piece of 10 ms and more in one slice.
        """
        for item in self.items:
            if item.parent is None and item.index not in self._tab_orders:
                yield from self._tab_sequence_steps(item.index, pausing=True)

    def _tab_sequence_steps(self, window: int, *, pausing: bool) -> Iterator[None]:
        sequence: list[int] = []
        stack = [window]
        while stack:
            if pausing and self.pause():
                yield None
            i = stack.pop()
            sequence.append(i)
            kids = sorted(
                self.items[i].children,
                key=lambda c: (self.items[c].facts.tab_index is None, self.items[c].facts.tab_index or 0, c),
            )
            stack.extend(reversed(kids))
        self._tab_orders[window] = (sequence, {i: n for n, i in enumerate(sequence)})


@dataclass(frozen=True, slots=True)
class Provider:
    name: str
    toolkits: frozenset[str]
    summary: str
    #: The findings; a None among them is a pause, where a slice may end (it is no finding).
    run: Callable[[Context], Iterator[Raw | None]]
    #: Reads ``diagnostic_facts`` for every element (the binding providers do not).
    needs_facts: bool = True


# -- geometry and reading order ---------------------------------------------------


def is_zero(b: Bounds | None) -> bool:
    return b is not None and (b.width <= 0 or b.height <= 0)


def size(b: Bounds | None) -> str:
    return f"{b.width}x{b.height} px" if b is not None else ""


def contains(outer: Bounds, inner: Bounds) -> bool:
    return (
        outer.x <= inner.x and outer.y <= inner.y
        and inner.x + inner.width <= outer.x + outer.width and inner.y + inner.height <= outer.y + outer.height
    )  # fmt: skip


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def unique(values: list[str]) -> list[str]:
    return list(dict.fromkeys(values))


def reading_order(members: list[int], ctx: Context) -> list[int]:
    """Top to bottom in rows, left to right within a row.

    A row is led by its topmost control; a control whose vertical centre lies
    above the leader's bottom edge belongs to the leader's row.
    """
    boxes = {c: ctx.items[c].facts.bounds for c in members}
    placed = [c for c in members if boxes[c] is not None]
    unplaced = [c for c in members if boxes[c] is None]
    placed.sort(key=lambda c: (boxes[c].y, boxes[c].x, c))  # type: ignore[union-attr]
    rows: list[list[int]] = []
    bottom = None
    for c in placed:
        b = boxes[c]
        assert b is not None
        if rows and bottom is not None and b.y + b.height / 2 < bottom:
            rows[-1].append(c)
        else:
            rows.append([c])
            bottom = b.y + b.height
    ordered = [c for row in rows for c in sorted(row, key=lambda c: (boxes[c].x, boxes[c].y, c))]  # type: ignore[union-attr]
    return ordered + unplaced


def longest_increasing(values: list[int]) -> set[int]:
    """Positions of one longest strictly increasing subsequence of ``values``."""
    tails: list[int] = []
    tail_pos: list[int] = []
    prev = [-1] * len(values)
    for pos, v in enumerate(values):
        k = bisect_left(tails, v)
        if k == len(tails):
            tails.append(v)
            tail_pos.append(pos)
        else:
            tails[k] = v
            tail_pos[k] = pos
        prev[pos] = tail_pos[k - 1] if k else -1
    keep: set[int] = set()
    pos = tail_pos[-1] if tail_pos else -1
    while pos >= 0:
        keep.add(pos)
        pos = prev[pos]
    return keep


def label_before(ctx: Context, i: int) -> bool:
    """WinForms' own naming rule: walking back in tab order, a Label (with text) comes before any visible tab stop."""
    sequence, place = ctx.tab_sequence(ctx.window_of(i))
    for j in reversed(sequence[: place[i]]):
        other = ctx.items[j]
        if other.facts.is_label:
            return bool(ctx.text(j))
        if other.visible and other.facts.tab_stop:
            return False
    return False


def label_left(ctx: Context, i: int) -> bool:
    """A visible sibling Label on the same row, to the left, whose caption ends with ':'."""
    parent = ctx.items[i].parent
    b = ctx.items[i].facts.bounds
    if parent is None or b is None:
        return False
    mid = b.y + b.height / 2
    for j in ctx.items[parent].children:
        other = ctx.items[j]
        lb = other.facts.bounds
        if j == i or not other.facts.is_label or not other.visible or lb is None:
            continue
        if lb.x + lb.width <= b.x + 2 and lb.y <= mid <= lb.y + lb.height:
            text = (ctx.text(j) or "").rstrip()
            if text.endswith(":"):
                return True
    return False
