"""The packed form of the .NET walk (``toolkits/winforms/walker.py``, ``toolkits/wpf/_walker.py``), read back in Python.

Kept apart from the walkers, which import System, so that the format is
tested without a runtime. The walk writes JSON, so that Python parses it
with one native call per piece (``json.loads``) instead of a loop over
every field: decoding the earlier length-prefixed form was about 16 us a
node of interpreter time, and a 5,000-node snapshot held the GIL for longer
than the bare walk itself.

- The records: a JSON array per element, each followed by a comma (the
  whole is ``[`` + records + ``]`` without the last comma), of seventeen
  fields (``ROW_FIELDS``, ``wpfprobe.core.protocol``): parent's record index
  (-1 for the root), depth, node id, the index of its type in the type
  table, Name, Text, whether the Text marks an access key, Visible, Enabled,
  Focused, checked (a check box's, radio button's or checked list item's;
  null otherwise or for a third state), child count, whether it is rich (the
  adapter's Python reads complete it; its other fields are not read then, a
  password box's text above all), selected and expanded (an item's, and
  in WPF a combo box's or expander's expansion; null for another control,
  and for a tree node without children), the automation
  id (WPF's; null in a WinForms walk), and the total count of children of
  an element that lists only some (a grid's rows in view, a virtual list
  view's; null for every other element).
- A read that threw is ``[type, message]`` in its field, and the record's
  index is in the list of faulted records.
- The type table: ``[name, full name]`` per type index, each followed by a
  comma; full type names per node were half the size of the old form.
- Where every ``CHUNK_RECORDS``-th record ends (character offsets), so the
  records are parsed in pieces of a millisecond or so: one native call over
  the whole would hold the GIL as long.

The WPF walk's access keys are WPF's: the "marked" flag means the text shows
through an AccessText, which reads "_" as the marker
(``strip_wpf_access_key``); ``Walked.marker`` says which.

``Walked.node`` reads one row as the engine's node facts, with what the
Python path would do to each read: the text stripped of its access key
marker, a failed state read standing for the whole state, a failed children
read for no children, and failures named in the engine's read order. The
engine reads the rows that did not fault itself (``engine/walked.py``), in
the same way.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from wpfprobe.core.protocol import ElementState, Naming, PropertyDescriptor, WalkedNode
from wpfprobe_clr._values import MAX_TEXT, clip_text
from wpfprobe_clr.toolkits._access_keys import strip_access_key
from wpfprobe_clr.toolkits._wpf_items import strip_wpf_access_key

#: Fields per record.
FIELDS = 17
#: The marker of WPF's access keys (AccessText); "&" is WinForms'.
WPF_MARKER = "_"
#: An error message is cut here, as the engine cuts its own (``engine.reading.MAX_ERROR_MESSAGE``).
MAX_ERROR_MESSAGE = 300
#: What the engine assumes of an element whose state could not be read (``engine.reading.UNKNOWN_STATE``).
UNKNOWN_STATE = ElementState(visible=True, enabled=True, focused=False)


@dataclass(frozen=True, slots=True)
class ReadError:
    type_name: str
    message: str


#: A field's value: what was read, or the error its read raised.
Value = str | bool | int | None | ReadError


@dataclass(frozen=True, slots=True)
class WalkedControl:
    parent: int
    depth: int
    node_id: str
    type_name: str
    full_type_name: str
    name: Value
    text: Value
    mnemonic: Value
    visible: Value
    enabled: Value
    focused: Value
    checked: Value
    child_controls: Value
    rich: bool
    selected: Value = None
    expanded: Value = None
    #: WPF records only (a WinForms control has none): read with the name, as part of the naming.
    automation_id: Value = None
    #: All its children, where it lists only some (``ToolkitAdapter.child_total``); never a failed read.
    total_count: int | None = None
    #: How the text marks its access key: "&" (WinForms) or "_" (WPF's AccessText rules).
    marker: str = "&"

    @classmethod
    def of(cls, row: list[Any], types: list[tuple[str, str]], marker: str = "&") -> WalkedControl:
        """A record as parsed from JSON: a failed read (``[type, message]``) becomes a ``ReadError``."""
        if len(row) != FIELDS:
            raise ValueError(f"a walked record has {len(row)} fields, not {FIELDS}")
        parent, depth, node_id, type_index = row[:4]
        if not isinstance(type_index, int) or not 0 <= type_index < len(types):
            raise ValueError(f"a walked record names type {type_index!r}, not in its table of {len(types)}")
        type_name, full_type_name = types[type_index]
        values = [ReadError(str(v[0]), str(v[1])) if isinstance(v, list) else v for v in row[4:-1]]
        name, text, mnemonic, visible, enabled, focused, checked, kids, rich, selected, expanded, automation_id = values
        total = row[-1]
        return cls(
            int(parent), int(depth), str(node_id), type_name, full_type_name, name, text, mnemonic, visible, enabled,
            focused, checked, kids, bool(rich), selected, expanded, automation_id,
            None if total is None else int(total), marker,
        )  # fmt: skip

    def node(self) -> WalkedNode:
        """This control as the engine's node facts, read as the Python path reads them."""
        faults: list[tuple[str, str, str]] = []
        name, automation_id = self.name, self.automation_id
        failed_naming = name if isinstance(name, ReadError) else automation_id
        if isinstance(failed_naming, ReadError):
            # The engine reads the naming as one: one failed read leaves neither name.
            faults.append(("naming", *_identity(failed_naming)))
            name = automation_id = None
        kids = self.child_controls
        if isinstance(kids, ReadError):
            faults.append(("children", *_identity(kids)))
            kids = 0
        reads = (self.visible, self.enabled, self.focused, self.checked, self.selected, self.expanded)
        failed = next((r for r in reads if isinstance(r, ReadError)), None)
        if failed is not None:
            faults.append(("state", *_identity(failed)))
            state = UNKNOWN_STATE
        else:
            state = ElementState(
                visible=bool(self.visible), enabled=bool(self.enabled), focused=bool(self.focused),
                selected=None if self.selected is None else bool(self.selected),
                expanded=None if self.expanded is None else bool(self.expanded),
                checked=None if self.checked is None else bool(self.checked),
            )  # fmt: skip
        text: str | None = None
        key: str | None = None
        raw = self.text
        if isinstance(raw, ReadError):
            faults.append(("text", *_identity(raw)))
        elif isinstance(self.mnemonic, ReadError):
            faults.append(("text", *_identity(self.mnemonic)))
        elif isinstance(raw, str) and raw:
            text, key = shown_text(raw, bool(self.mnemonic), self.marker)
        return WalkedNode(
            node_id=self.node_id,
            parent=self.parent,
            depth=self.depth,
            naming=Naming(
                self.type_name,
                self.full_type_name,
                str(name) if name else None,
                str(automation_id) if automation_id else None,
            ),
            text=text,
            access_key=key,
            state=state,
            child_count=int(kids or 0),
            faults=tuple(faults),
            complete=not self.rich,
            total_count=self.total_count,
        )


def shown_text(raw: str, marked: bool, marker: str) -> tuple[str | None, str | None]:
    """What a user reads of a walked text: clipped as every value is, then its access key marker taken out."""
    raw = clip_text(raw)
    if not marked:
        return raw, None
    shown, key = strip_wpf_access_key(raw) if marker == WPF_MARKER else strip_access_key(raw, marker)
    return shown or None, key


def _identity(error: ReadError) -> tuple[str, str]:
    return error.type_name, " ".join(error.message.split())[:MAX_ERROR_MESSAGE]


@dataclass(slots=True)
class Walked:
    """One walk (the adapter's ``Walk``): advanced in slices on the UI thread, parsed when ``rows()`` is asked."""

    #: Walks on for about ``seconds`` (None: to the end) and says whether it is done; it calls ``finish`` then.
    step: Callable[[float | None, Walked], bool]
    text_property: PropertyDescriptor
    #: The walk so far, between slices (the toolkit's own objects).
    state: Any = None
    packed: str = ""
    #: (element, depth) of the rich controls, in walk order.
    incomplete: list[tuple[Any, int]] = field(default_factory=list)
    done: bool = False
    #: The access-key marker (``shown_text``): WinForms' unless a walk says otherwise.
    marker: str = "&"
    #: Texts longer than this are clipped by ``shown_text``.
    max_text: int = MAX_TEXT
    #: Every property a complete node's text may be read from, ``text_property`` first (WPF has several):
    #: the engine takes its own path when the redactor would not judge them all alike.
    text_properties: tuple[PropertyDescriptor, ...] = ()
    #: Whether every container walked was watched (a walk asked to watch: ``ToolkitAdapter.walk``).
    watched: bool = True
    #: Comma-terminated lists as the walk wrote them: parsed when first asked for, off the UI thread.
    id_list: str = ""
    faulted_list: str = ""
    types_list: str = ""
    chunk_list: str = ""
    _ids: frozenset[str] | None = field(default=None, repr=False)
    _types: list[tuple[str, str]] | None = field(default=None, repr=False)
    _faulted: frozenset[int] | None = field(default=None, repr=False)

    @classmethod
    def start(cls, step: Callable[[float | None, Walked], bool], text_property: PropertyDescriptor) -> Walked:
        return cls(step=step, text_property=text_property)

    def advance(self, seconds: float | None) -> bool:
        if not self.done:
            self.done = self.step(seconds, self)
        return self.done

    def finish(
        self, *, packed: str, id_list: str, incomplete: list[tuple[Any, int]], faulted: str = "", types: str = "",
        chunks: str = "",
    ) -> None:  # fmt: skip
        self.packed, self.id_list, self.incomplete = packed, id_list, incomplete
        self.faulted_list, self.types_list, self.chunk_list = faulted, types, chunks
        self.state = None  # the controls it held: let them go

    @property
    def ids(self) -> frozenset[str]:
        """Node ids of every element walked."""
        if self._ids is None:
            self._ids = frozenset(i for i in self.id_list.split(",") if i)
        return self._ids

    @property
    def types(self) -> list[tuple[str, str]]:
        """(type name, full type name) by the index a row names."""
        if self._types is None:
            self._types = [(str(a), str(b)) for a, b in json.loads("[" + self.types_list[:-1] + "]")]
        return self._types

    @property
    def faulted(self) -> frozenset[int]:
        """Indexes of the rows with a read that threw: ``node`` reads them."""
        if self._faulted is None:
            self._faulted = frozenset(int(i) for i in self.faulted_list.split(",") if i)
        return self._faulted

    def rows(self) -> Iterator[list[list[Any]]]:
        """The records, breadth first, in pieces (one ``json.loads`` each: each a short hold of the GIL)."""
        yield from parse_rows(self.packed, self.chunk_list)

    def node(self, row: list[Any]) -> WalkedNode:
        return WalkedControl.of(row, self.types, self.marker).node()

    def shown_text(self, raw: str, marked: bool) -> tuple[str | None, str | None]:
        return shown_text(raw, marked, self.marker)

    def nodes(self) -> list[WalkedNode]:
        """Every row as node facts (``node``): for tests and tools, the engine reads ``rows()``."""
        return [self.node(row) for chunk in self.rows() for row in chunk]


def parse_rows(packed: str, chunk_list: str = "") -> Iterator[list[list[Any]]]:
    """The records of ``packed`` (each followed by a comma), parsed piece by piece at the offsets in ``chunk_list``."""
    start = 0
    ends = [int(e) for e in chunk_list.split(",") if e]
    ends.append(len(packed))
    for end in ends:
        if end <= start:
            continue
        piece = json.loads("[" + packed[start : end - 1] + "]")
        # The engine unpacks rows by position: a walk of another layout must fail here, not misread.
        if not isinstance(piece, list) or not piece or not isinstance(piece[0], list) or len(piece[0]) != FIELDS:
            raise ValueError(f"walker output between {start} and {end} is not records of {FIELDS} fields")
        yield piece
        start = end


def decode(packed: str, types: list[tuple[str, str]], marker: str = "&") -> list[WalkedControl]:
    """Every record of ``packed`` as a ``WalkedControl`` (tests and tools; the engine reads rows)."""
    return [WalkedControl.of(row, types, marker) for chunk in parse_rows(packed) for row in chunk]
