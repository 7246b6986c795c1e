"""The packed form of the .NET walk (``toolkits/winforms/walker.py``), read back in Python.

Kept apart from the walker, which imports System, so that the format is
tested without a runtime. A sequence of fields, each a tag and a value:
``n`` (null), ``s<len>:<text>``, ``b0``/``b1``, ``i<digits>;``, ``*`` (a secret
not read), or ``!<len>:<type><len>:<message>`` (the read threw). A record is
fifteen fields: parent's record index (-1 for the root), depth, node id,
type, full type, Name, Text, whether the Text marks an access key with "&",
Visible, Enabled, Focused, checked (a check box's, radio button's or checked
list item's; ``n`` otherwise or for a third state), child count, whether the
node is rich (the adapter's Python reads complete it), selected and
expanded (an item's; ``n`` for a control, and for a tree node without
children).

The WPF walk (``toolkits/wpf/_walker.py``) adds a seventeenth field, the
automation id (``WPF_FIELDS``), and its access keys are WPF's: the "&" flag
means the text shows through an AccessText, which reads "_" as the marker
(``strip_wpf_access_key``). ``decode(packed, fields, marker)`` says which.

``Walked.nodes`` turns the records into the engine's ``WalkedNode``s, with
what the Python path would do to each read: the text stripped of its access
key marker, a failed state read standing for the whole state, a failed
children read for no children, and failures named in the engine's read order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from wpfprobe.core.protocol import ElementState, Naming, PropertyDescriptor, WalkedNode
from wpfprobe_clr._values import clip_text
from wpfprobe_clr.toolkits._access_keys import strip_access_key
from wpfprobe_clr.toolkits._wpf_items import strip_wpf_access_key

FIELDS = 16
#: A WPF record: the sixteen above, then the automation id.
WPF_FIELDS = FIELDS + 1
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
    #: SECRET when the text was not read (a password box).
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
    #: How the text marks its access key: "&" (WinForms) or "_" (WPF's AccessText rules).
    marker: str = "&"

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
        elif isinstance(raw, str) and raw and raw != SECRET:
            raw = clip_text(raw)
            shown, key = (raw, None) if not self.mnemonic else _strip(raw, self.marker)
            text = shown or None
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
        )


def _strip(raw: str, marker: str) -> tuple[str, str | None]:
    return strip_wpf_access_key(raw) if marker == WPF_MARKER else strip_access_key(raw, marker)


def _identity(error: ReadError) -> tuple[str, str]:
    return error.type_name, " ".join(error.message.split())[:MAX_ERROR_MESSAGE]


@dataclass(slots=True)
class Walked:
    """One walk (the adapter's ``Walk``): advanced in slices on the UI thread, decoded when ``nodes()`` is asked."""

    #: Walks on for about ``seconds`` (None: to the end) and says whether it is done; it calls ``finish`` then.
    step: Callable[[float | None, Walked], bool]
    text_property: PropertyDescriptor
    #: The walk so far, between slices (the toolkit's own objects).
    state: Any = None
    packed: str = ""
    #: Node ids of every control walked.
    ids: frozenset[str] = frozenset()
    #: (element, depth) of the rich controls, in walk order.
    incomplete: list[tuple[Any, int]] = field(default_factory=list)
    done: bool = False
    #: Fields per record and the access-key marker (``decode``): WinForms' unless a walk says otherwise.
    fields: int = FIELDS
    marker: str = "&"
    #: Every property a complete node's text may be read from, ``text_property`` first (WPF has several):
    #: the engine takes its own path when the redactor would not judge them all alike.
    text_properties: tuple[PropertyDescriptor, ...] = ()
    _nodes: list[WalkedNode] | None = field(default=None, repr=False)

    @classmethod
    def start(cls, step: Callable[[float | None, Walked], bool], text_property: PropertyDescriptor) -> Walked:
        return cls(step=step, text_property=text_property)

    def advance(self, seconds: float | None) -> bool:
        if not self.done:
            self.done = self.step(seconds, self)
        return self.done

    def finish(self, *, packed: str, ids: frozenset[str], incomplete: list[tuple[Any, int]]) -> None:
        self.packed, self.ids, self.incomplete = packed, ids, incomplete
        self.state = None  # the controls it held: let them go

    def nodes(self) -> list[WalkedNode]:
        if self._nodes is None:
            self._nodes = [control.node() for control in decode(self.packed, self.fields, self.marker)]
        return self._nodes


#: The text of a password box: never read.
SECRET = "\x00secret"


def decode(packed: str, fields: int = FIELDS, marker: str = "&") -> list[WalkedControl]:
    values: list[Any] = []
    i, n = 0, len(packed)
    while i < n:
        tag = packed[i]
        i += 1
        if tag == "n":
            values.append(None)
        elif tag == "*":
            values.append(SECRET)
        elif tag == "b":
            values.append(packed[i] == "1")
            i += 1
        elif tag == "i":
            end = packed.index(";", i)
            values.append(int(packed[i:end]))
            i = end + 1
        elif tag == "s":
            text, i = _counted(packed, i)
            values.append(text)
        elif tag == "!":
            type_name, i = _counted(packed, i)
            message, i = _counted(packed, i)
            values.append(ReadError(type_name, message))
        else:
            raise ValueError(f"bad walker output at {i - 1}: {packed[i - 1 : i + 20]!r}")
    if len(values) % fields:
        raise ValueError(f"walker output has {len(values)} fields, not a multiple of {fields}")
    pad = [None] * (WPF_FIELDS - fields)  # a WinForms record has no automation id
    make: Any = WalkedControl  # positional to the last field, which mypy cannot count through a slice
    return [make(*values[k : k + fields], *pad, marker) for k in range(0, len(values), fields)]


def _counted(packed: str, i: int) -> tuple[str, int]:
    colon = packed.index(":", i)
    length = int(packed[i:colon])
    start = colon + 1
    return packed[start : start + length], start + length
