"""The one protocol between the toolkit-agnostic engine and a toolkit adapter.

Every method is called ON the UI thread, by the engine, inside a single hop.
Elements are the live toolkit objects, opaque to the engine. What an adapter
returns is plain Python data (``PlainValue`` and the dataclasses below), so
nothing live leaves the UI thread.

Redaction contract: ``properties``, ``text_property`` and ``find_property``
only *describe* properties (name, declared type, flags) and must never run a
getter. The engine decides redaction from that description and only then
calls ``read_property`` for what it may read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

if TYPE_CHECKING:
    # Only for annotations: importing convert.values runs convert/__init__, which needs Toolkit from here.
    from wpfprobe.core.convert.values import Converted, EnumSpec

T = TypeVar("T")

TreeType = Literal["visual", "logical"]
Toolkit = Literal["wpf", "winforms"]
PlainValue = str | int | float | bool | None

#: How input reaches the app: through the toolkit's own APIs (automation
#: peers, PerformClick, character messages), or as real OS input events.
InputMode = Literal["toolkit", "os"]
ActionKind = Literal["click", "type", "keys", "select", "toggle", "focus", "set"]
MouseButton = Literal["left", "right", "middle"]
Modifier = Literal["ctrl", "shift", "alt", "meta"]
#: Why an element cannot take an action (ELEMENT_NOT_INTERACTABLE's ``reason``).
BlockReason = Literal[
    "disabled",  # the element or an ancestor is disabled
    "hidden",  # the element or an ancestor is not visible
    "zero-size",  # no area to click
    "offscreen",  # its click point is outside every screen
    "covered",  # another element is on top of its click point
    "modal",  # a modal dialog blocks its window
    "read-only",  # text input into a read-only box
    "unsupported",  # the element has no such action (select on a Button)
]


@dataclass(frozen=True, slots=True)
class WalkedNode:
    """One element as a toolkit's own walk read it (``ToolkitAdapter.walk``): what its tree node shows.

    ``text`` and ``access_key`` are as the user reads them, unredacted: the walk
    never reads a secret (an element whose text could be one is not
    ``complete``), and the engine applies the redactor to ``Walk.text_property``.
    """

    node_id: str
    #: Index in the walk of the parent; -1 for the walk's root.
    parent: int
    #: 0 for the walk's root.
    depth: int
    naming: Naming
    text: str | None
    access_key: str | None
    state: ElementState
    #: All its children (a walk to ``max_depth`` lists none below that depth).
    child_count: int
    #: Reads that failed, in the order the engine's own reads would make them: (read, type, message).
    faults: tuple[tuple[str, str, str], ...]
    #: False: the engine reads this element through the adapter (it is in ``Walk.incomplete``).
    complete: bool
    #: All its children where it lists only some (a grid's rows in view, ``ToolkitAdapter.child_total``).
    total_count: int | None = None


#: The fields of a row of a walk (``Walk.rows``), in order. ``type`` is an index into ``Walk.types``;
#: ``text`` is as read (``Walk.shown_text`` makes what a user reads of it; ``text_marked``: it may mark
#: an access key); ``checked``, ``selected`` and ``expanded`` are None where they do not apply; a
#: ``rich`` row's other fields are not read (the engine reads the element, ``Walk.incomplete``); its
#: ``total_count`` is the adapter's ``child_total`` (None: it lists all its children). A row in
#: ``Walk.faulted`` has a read that threw: ``Walk.node`` reads it.
ROW_FIELDS = (
    "parent", "depth", "node_id", "type", "name", "text", "text_marked", "visible", "enabled", "focused",
    "checked", "child_count", "rich", "selected", "expanded", "automation_id", "total_count",
)  # fmt: skip


class Walk(Protocol):
    """A walk from ``ToolkitAdapter.walk``: advanced in slices on the UI thread, its rows read anywhere.

    Its rows are plain lists (``ROW_FIELDS``), not objects: the engine makes a
    snapshot of thousands of them off the UI thread, and every object made per
    row is interpreter time the app's own Python waits for.
    """

    #: The property every complete node's ``text`` was read from, for the redactor.
    text_property: PropertyDescriptor
    #: (element, depth) of each node that is not complete, in walk order; once done.
    incomplete: list[tuple[Any, int]]
    #: Texts up to this long and not ``text_marked`` are shown as they are (else ``shown_text``).
    max_text: int
    #: The access-key marker a marked text may hold (else it is shown as it is).
    marker: str
    #: A walk asked to watch (``ToolkitAdapter.walk``): whether every element met is watched; once done.
    watched: bool

    @property
    def ids(self) -> frozenset[str]:
        """Node ids of every element walked; once done."""

    @property
    def types(self) -> list[tuple[str, str]]:
        """(type name, full type name) by a row's ``type``; once done."""

    @property
    def faulted(self) -> frozenset[int]:
        """Indexes (in walk order) of the rows with a read that threw; once done."""

    def advance(self, seconds: float | None) -> bool:
        """Walk on for about ``seconds`` (None: to the end), on the UI thread; True once the walk is done."""

    def rows(self) -> Iterator[list[list[Any]]]:
        """Every element walked, breadth first, as rows (``ROW_FIELDS``) in pieces; for any thread (call it off
        the UI thread). Each piece is parsed in one short call."""

    def node(self, row: list[Any]) -> WalkedNode:
        """One row as node facts, with its failed reads named: for the rows in ``faulted``."""

    def shown_text(self, raw: str, marked: bool) -> tuple[str | None, str | None]:
        """(text, access key) a user reads of a row's non-empty ``text``."""


@dataclass(frozen=True, slots=True)
class Bounds:
    """A rectangle in physical screen pixels."""

    x: int
    y: int
    width: int
    height: int


@dataclass(frozen=True, slots=True)
class Naming:
    """What locators are built from: cheap to read, never secret."""

    type_name: str
    full_type_name: str
    name: str | None
    automation_id: str | None


@dataclass(frozen=True, slots=True)
class ElementState:
    """What a user sees of an element's state; the last three only where they apply (else None).

    ``selected``: an item chosen in its list, tree, grid or tab control;
    ``checked``: a check box, a checked-list item, a checkable menu item, a
    tree node in a tree with check boxes; ``expanded``: a tree node, a menu
    with items, a combo box's drop-down.
    """

    visible: bool
    enabled: bool
    focused: bool
    selected: bool | None = None
    checked: bool | None = None
    expanded: bool | None = None


@dataclass(frozen=True, slots=True, eq=False)
class ItemRef:
    """An item of a container that has no UI object of its own: a ListBox's string, a ComboBox entry.

    Items that are objects of their own (a TreeNode, a ListViewItem, a grid
    row) are elements as they are; an item that is only a value in its
    container's list is named by the container and its position, so its node
    id is the container's id and the index (see ``ObjectTable``). Two refs are
    the same element when their owners are the same object and the indexes
    are equal.
    """

    owner: Any
    index: int


@dataclass(frozen=True, slots=True)
class PropertyDescriptor:
    """A property as described without reading it.

    ``secret`` is the adapter's element-level knowledge that this property
    holds a secret (a password box's text); ``handle`` is the adapter's own.
    """

    name: str
    type_name: str
    category: str | None
    read_only: bool
    secret: bool = False
    handle: Any = None


@dataclass(frozen=True, slots=True)
class PropertyReading:
    value: PlainValue
    value_type_name: str | None
    value_source: str
    is_locally_set: bool
    is_data_bound: bool
    binding_error: str | None = None


@dataclass(frozen=True, slots=True)
class Capture:
    """Raw pixels captured on the UI thread; PNG encoding happens off it.

    ``later``, where set, copies the pixels (``data`` is empty until then):
    the engine calls it after the hop, off the UI thread. A copy from the
    screen needs nothing of the UI thread once the area is known, and takes
    tens of milliseconds for a large window.
    """

    width: int
    height: int
    mode: Literal["BGRA", "PNG"]
    data: bytes
    stride: int = 0
    later: Callable[[], Capture] | None = None


@dataclass(frozen=True, slots=True)
class KeyChord:
    """One key pressed with modifiers held: ``Ctrl+Shift+S`` is (("ctrl", "shift"), "S").

    ``key`` is a canonical name from ``wpfprobe.core.keys.KEY_NAMES``: "A".."Z",
    "0".."9", "F1".."F24", "Enter", "Tab", "Escape", "Backspace", "Delete",
    "Insert", "Home", "End", "PageUp", "PageDown", "Left", "Right", "Up",
    "Down", "Space".
    """

    modifiers: tuple[Modifier, ...]
    key: str


@dataclass(frozen=True, slots=True)
class Blocker:
    """Why an element cannot take an action now; ``by`` is the element in the way, if any."""

    reason: BlockReason
    message: str
    by: Any = None


@dataclass(frozen=True, slots=True)
class DiagnosticFacts:
    """What wpf_run_diagnostics judges an element by, read in one adapter call.

    Plain layout and accessibility facts, never a property's value. Rectangles
    are physical screen pixels like ``Bounds``. The providers in
    ``wpfprobe.engine.diagnostics`` hold the rules; the adapter only answers what the
    toolkit knows:

    - ``client_area``: where the element shows its children (they are cut off
      outside it); None when it does not clip them or has no such area.
    - ``clip``: the area the element itself is cut to, when the toolkit gives
      it less room than it takes (a WPF layout slot smaller than the element).
    - ``scrolls``: its children may extend past ``client_area`` on purpose.
    - ``free_layout``: the app places its children at positions of its own
      (WinForms Panel, GroupBox, Form); False where a layout arranges them or
      they are the control's own parts.
    - ``docked``: placed by docking in its parent, not by position.
    - ``tab_index`` / ``tab_stop``: its place in keyboard order, and whether Tab
      stops on it (visible-independent: the providers check visibility).
    - ``is_input``: takes input a user must be told the meaning of (text box,
      combo box, list, up-down; a check box only with ``names_itself``).
    - ``names_itself``: its own text is its accessible name (check box, radio button).
    - ``has_accessible_name``: an accessible name is set explicitly.
    - ``is_label``: a caption for the control after it (WinForms Label).
    - ``item_count`` / ``virtualized``: for item controls; ``virtualized`` is
      None where it does not apply (the toolkit draws the items natively).
    - ``unresolved_resources``: (property, resource key) pairs of dynamic
      resource references whose key resolves to nothing.
    - ``zero_size_expected``: a zero width or height is normal for it (a separator).
    - ``text_room``: (width, height) in px the element has for its text: its
      client area less its padding and its own parts (a button's border, a
      check box's glyph). None when it shows no text, sizes itself to its text
      (WinForms AutoSize), plainly has room for it, or the toolkit does not
      measure it.
    - ``text_size``: (width, height) its text takes as the element lays it out
      at that width (wrapped to it where the element wraps text; a word longer
      than the width makes it wider).
    - ``text_line``: (width, height) its text takes on one line.
    - ``text_ellipsis``: the element shows "…" where it cuts its text (AutoEllipsis).
    """

    bounds: Bounds | None = None
    client_area: Bounds | None = None
    clip: Bounds | None = None
    scrolls: bool = False
    free_layout: bool = False
    docked: bool = False
    tab_index: int | None = None
    tab_stop: bool = False
    is_input: bool = False
    names_itself: bool = False
    has_accessible_name: bool = False
    is_label: bool = False
    item_count: int | None = None
    virtualized: bool | None = None
    unresolved_resources: tuple[tuple[str, str], ...] = ()
    zero_size_expected: bool = False
    text_room: tuple[int, int] | None = None
    text_size: tuple[int, int] | None = None
    text_line: tuple[int, int] | None = None
    text_ellipsis: bool = False


# -- "why is my UI wrong": bindings, binding errors, resources, triggers, behaviors

#: Where a binding's source comes from, as a Snoop user names it. WinForms
#: bindings always read a ``DataSource``.
BindingSourceKind = Literal["ElementName", "RelativeSource", "Source", "DataContext", "DataSource"]
#: A binding's state now. WPF: active, inactive, detached, unattached,
#: path-error, update-target-error, update-source-error, async-request-pending,
#: validation-error. WinForms: active, error (its last BindingComplete or
#: Format/Parse failed), no-current-item (the source has no current row, so the
#: property shows nothing), suspended, inactive (not bound yet).
BindingStatusName = str


@dataclass(frozen=True, slots=True)
class BindingDescription:
    """One data binding on one property, described without reading any value.

    Fields that do not apply to a toolkit (or to this kind of binding) are None.
    ``data_context_*`` is WPF's DataContext of the target element; WinForms has
    none (``source_type_name`` is its DataSource's type). ``has_current_item``
    is the WinForms analogue of a null DataContext: False when the source is a
    list with no current item (a BindingSource that is empty or at position -1).
    ``children`` are the parts of a MultiBinding or PriorityBinding.
    """

    property_name: str
    property_type_name: str
    kind: str  # "Binding", "MultiBinding", "PriorityBinding", "TemplateBinding"...
    path: str | None = None
    mode: str | None = None
    update_trigger: str | None = None  # WPF UpdateSourceTrigger; WinForms DataSourceUpdateMode
    control_update_mode: str | None = None  # WinForms ControlUpdateMode
    converter_type: str | None = None
    converter_parameter: str | None = None  # a short summary, never an element's text
    string_format: str | None = None  # WPF StringFormat; WinForms FormatString
    formatting_enabled: bool | None = None  # WinForms
    fallback_value: str | None = None
    target_null_value: str | None = None  # WPF TargetNullValue; WinForms NullValue
    source_kind: BindingSourceKind | None = None
    source_description: str | None = None
    source_type_name: str | None = None  # the object the path is read from, when known
    data_context_is_null: bool | None = None
    data_context_type: str | None = None
    has_current_item: bool | None = None
    status: BindingStatusName = "active"
    error: str | None = None
    children: tuple[BindingDescription, ...] = ()


@dataclass(frozen=True, slots=True)
class BindingErrorRecord:
    """A binding error the toolkit reported while the app ran, attributed to one element.

    ``kind`` is where it came from: "trace" (WPF's binding trace), "complete"
    (WinForms BindingComplete with an error state), "format" / "parse" (a
    WinForms Format or Parse that threw), "status" (the binding's live status).
    ``count`` is how often the same message repeated; times are ``time.time()``.
    """

    property_name: str | None
    message: str
    count: int = 1
    kind: str = "trace"
    path: str | None = None
    first_seen: float | None = None
    last_seen: float | None = None


@dataclass(frozen=True, slots=True)
class Unsupported:
    """The toolkit has no such concept (WinForms has no resource dictionaries); ``reason`` says so."""

    reason: str


@dataclass(frozen=True, slots=True)
class ResourceEntry:
    """One key of one resource dictionary on the lookup path, in lookup order.

    ``key_id`` identifies the key across dictionaries (a closer one shadows a
    farther one with the same ``key_id``). ``value_type_name`` is the stored
    value's type when known without loading it (else None: the engine asks
    ``resource_value_type``); the value itself is only summarised by
    ``resource_summary`` once the engine has decided it may be shown.
    ``owner`` is the element whose dictionary it is (None for the application
    or a merged dictionary); ``handle`` is the adapter's own.
    """

    key: str
    key_id: str
    value_type_name: str | None
    origin: str
    origin_kind: str  # "element", "style", "template", "ancestor", "window", "application", "merged"
    owner: Any = None
    handle: Any = None


@dataclass(frozen=True, slots=True)
class TriggerCondition:
    """One condition: ``property`` (Trigger) or ``binding`` (DataTrigger) equals ``value``.

    ``current`` is the live value it was compared with; ``met`` is None when it
    could not be evaluated (``note`` says why) and ``redacted`` when the
    property or path names a secret, so nothing was read.
    """

    property: str | None
    binding: str | None
    value: PlainValue
    current: PlainValue = None
    met: bool | None = None
    source_name: str | None = None
    redacted: bool = False
    note: str | None = None


@dataclass(frozen=True, slots=True)
class TriggerSetter:
    property: str
    value: PlainValue
    target_name: str | None = None
    redacted: bool = False


@dataclass(frozen=True, slots=True)
class TriggerDescription:
    """A trigger that applies to the element: where it comes from, whether it is active now."""

    kind: str  # "Trigger", "DataTrigger", "EventTrigger", "MultiTrigger", "MultiDataTrigger"
    source: str  # "style", "template", "element"
    origin: str  # which style or template, e.g. "Style for TextBlock (BasedOn of ...)"
    is_active: bool | None
    conditions: tuple[TriggerCondition, ...] = ()
    setters: tuple[TriggerSetter, ...] = ()
    event: str | None = None  # EventTrigger's routed event
    actions: tuple[str, ...] = ()  # type names of enter/exit/event actions


@dataclass(frozen=True, slots=True)
class BehaviorDescription:
    """An attached behavior or interaction trigger (Microsoft.Xaml.Behaviors, System.Windows.Interactivity)."""

    kind: str  # "behavior" or "trigger"
    type_name: str
    assembly_name: str
    properties: tuple[tuple[str, PlainValue], ...] = ()
    actions: tuple[str, ...] = ()


#: Asked by an adapter before it reads a value it found while describing
#: (a trigger's live property, a behavior's property): True if it may be read.
#: The engine answers from the name and declared type, so redaction stays its call.
MayRead = Callable[[PropertyDescriptor], bool]


class ToolkitAdapter(Protocol):
    toolkit: Toolkit
    #: Human-readable name of the runtime + toolkit, for session info.
    capabilities: tuple[str, ...]

    def roots(self) -> list[Any]:
        """Top-level windows of this UI thread, main window first, hidden included."""

    def children(self, element: Any, tree_type: TreeType) -> list[Any]: ...

    def parent(self, element: Any, tree_type: TreeType) -> Any | None: ...

    def is_alive(self, element: Any) -> bool:
        """False once the element is closed or disposed."""

    def naming(self, element: Any) -> Naming: ...

    def state(self, element: Any) -> ElementState: ...

    def bounds(self, element: Any) -> Bounds | None: ...

    def is_active_window(self, element: Any) -> bool: ...

    def display_text(self, element: Any, raw: str) -> tuple[str, str | None]:
        """The text a user reads from ``raw`` and the element's access key, if it has one.

        WinForms and WPF mark an access key with ``&`` or ``_`` ("Save &As"):
        the user reads "Save As" and presses Alt+A. Elements that do not
        process access keys answer ``(raw, None)``.
        """

    def child_total(self, element: Any) -> int | None:
        """How many children the element has in all, when ``children`` returns only some of them.

        A grid with thousands of rows lists the rows in view (or realised) as
        children; this is the total. None when ``children`` is complete.
        """

    def structure_version(self) -> int | None:
        """A number that changes whenever a watched container gains or loses a child; None if unknown.

        The engine keeps its name index (``engine/name_index.py``) while this
        stays the same. An adapter that cannot count changes answers None.
        """

    def watch_structure(self, element: Any) -> bool:
        """Count ``element``'s child-added and child-removed events from now on (once per element).

        Called as the name index walk meets each element. False if a change
        of this element's children could go uncounted (the engine then keeps
        the index only ``census_ttl`` seconds).
        """

    def walk(self, root: Any, *, objects: ObjectTable, max_depth: int, cap: int, watch: bool = False) -> Walk | None:
        """``root``'s visual subtree, to be read by the toolkit's own code (``Walk.advance``), or None if it has none.

        Breadth first, to ``max_depth`` below ``root`` and at most ``cap``
        elements; children in the order ``children`` gives them; node ids are
        ``objects``'s. An element whose node needs more than the walk reads is
        listed as incomplete, with its depth, and still walked below. The
        engine's own reads (through the methods above) stay the oracle.
        ``watch``: every element walked is watched as ``watch_structure``
        would watch it (the name index's walk), ``Walk.watched`` saying
        whether all were; the incomplete ones' children the walk does not
        know are the engine's to watch.
        """

    def error_identity(self, error: BaseException) -> tuple[str, str]:
        """(type name, message) of an exception a read raised, unwrapping the toolkit's wrappers."""

    def is_template_part(self, element: Any) -> bool:
        """Whether the element was generated by another element's template.

        A Button's template makes a TextBlock showing the Button's text; a
        search by text alone should find the Button, not both.
        """

    def text_property(self, element: Any) -> PropertyDescriptor | None:
        """The property that holds the element's visible text or content."""

    def properties(self, element: Any) -> list[PropertyDescriptor]: ...

    def find_property(self, element: Any, name: str) -> PropertyDescriptor | None:
        """Case-insensitive lookup of one property by name."""

    def read_property(self, element: Any, prop: PropertyDescriptor) -> PropertyReading: ...

    def data_context_type(self, element: Any) -> str | None: ...

    def binding_error_count(self, element: Any) -> int: ...

    def diagnostic_facts(self, element: Any, memo: dict[Any, Any]) -> DiagnosticFacts:
        """Layout, keyboard and accessibility facts for wpf_run_diagnostics; reads no property value.

        ``memo`` is one dict per diagnostics walk, which visits parents before
        their children: the adapter may keep there what children share (a
        container's screen origin), so a walk reads it once.
        """

    def on_ui_exit(self, callback: Any) -> None:
        """Call ``callback`` (on the UI thread, once) when the UI thread's loop ends.

        ``callback`` must return at once: it never starts a thread or waits."""

    def request_close(self, then: Any = None) -> None:
        """Ask the app to end as its user closing it would (WinForms ``Application.Exit``,
        WPF ``Application.Shutdown``): the app's closing events run and may refuse.

        ``then``: a builtin (a function written in C), called from .NET once the loop has
        ended, after every handler of its end the probe added, with no Python frame between."""

    def detach(self, ui: UiThread, *, timeout: float) -> None:
        """Take off every handler the probe added to the app's events (the probe stops: its
        ``stop()``, ``wpfprobe detach``), so that a later attach adds exactly one set again.

        Called off the UI thread, unlike the rest: what must run there goes through ``ui``,
        waiting ``timeout`` seconds at most; a handler that cannot be taken off (the UI thread
        ended, or stayed busy) does nothing from then on. Never raises."""

    # -- why is my UI wrong ---------------------------------------------------

    def bindings(self, element: Any) -> list[BindingDescription]:
        """Every data-bound property of the element, described; no value is read."""

    def binding(self, element: Any, prop: PropertyDescriptor) -> BindingDescription | None:
        """The binding behind one property (None if it is not data-bound); no value is read."""

    def binding_errors(self, element: Any) -> list[BindingErrorRecord]:
        """Recent binding errors attributed to the element, and those its bindings are in now.

        Kept in a bounded store that holds no UI object alive.
        """

    def resources(self, element: Any | None) -> list[ResourceEntry] | Unsupported:
        """Resource keys visible from ``element`` (None: the application's), closest first.

        Within one dictionary, its own keys come before its merged
        dictionaries, the last merged first, as the toolkit looks them up.
        """

    def resource_value_type(self, entry: ResourceEntry) -> str | None:
        """The type of the entry's value (it may have to be loaded to know); asked only if its key may be shown."""

    def resource_summary(self, entry: ResourceEntry) -> PlainValue:
        """A short rendering of the entry's value; asked only once its key and type may be shown."""

    def triggers(self, element: Any, may_read: MayRead) -> list[TriggerDescription] | Unsupported:
        """Triggers from the element's style (and BasedOn chain), template and own Triggers."""

    def behaviors(self, element: Any, may_read: MayRead) -> list[BehaviorDescription] | Unsupported:
        """Attached behaviors and interaction triggers, found by type name (no assembly required)."""

    def capture(self, element: Any) -> Capture:
        """Pixels of the element as shown; ElementNotRenderableError if it has none."""

    # -- input (interact tier) ---------------------------------------------
    # Actions run in a UI-thread message of their own, posted after the hop
    # that checked the target, so a handler that opens a modal dialog does not
    # hold the probe: the engine reads the result from inside the dialog's loop.

    def action_state(self, element: Any) -> dict[str, PlainValue]:
        """State an action may change beyond text/enabled/visible/focused.

        Keys, only those that apply: ``checked`` (bool, None when
        indeterminate), ``selectedIndex`` (int, -1 for none), ``selectedItem``
        (str or None), ``expanded`` (bool), ``value`` (number, for ranges).
        Never reads a secret.
        """

    def blocker(self, element: Any, action: ActionKind, mode: InputMode) -> Blocker | None:
        """None if the element can take ``action`` now in ``mode``, else why not.

        Toolkit mode may reach what the pointer cannot (a menu item in a closed
        drop-down, by opening its parents); OS mode needs the element's click
        point visible on screen and on top.
        """

    def click_point(self, element: Any) -> tuple[int, int] | None:
        """Where a pointer would click: physical screen pixels, or None without one."""

    def focused_element(self) -> Any | None:
        """The element with keyboard focus on this UI thread, if any."""

    # The actions below raise a ProbeError for what the probe refuses (no such
    # item, not a toggle); an exception from the app's own handlers propagates
    # as is, and the engine reports it in the result: the input did happen.

    def click(self, element: Any, *, button: MouseButton, count: int) -> None:
        """Click as a user would, through the toolkit (Invoke pattern, PerformClick)."""

    def type_text(self, element: Any, text: str, *, replace: bool) -> None:
        """Focus the element and type ``text`` as characters (replacing its text first if asked)."""

    def send_keys(self, element: Any | None, chords: tuple[KeyChord, ...]) -> None:
        """Press ``chords`` in turn on ``element`` (focused first) or on the focused element."""

    def select(self, element: Any, *, item: str | None, index: int | None) -> None:
        """Select one item of a list, combo box or tab control by its text or index."""

    def toggle(self, element: Any, *, state: bool | None) -> None:
        """Check, uncheck (``state``) or flip (None) a check box, radio button or checkable item."""

    def focus(self, element: Any) -> None:
        """Give the element keyboard focus."""

    # -- mutation (mutate tier) ----------------------------------------------

    def enum_spec(self, prop: PropertyDescriptor) -> EnumSpec | None:
        """The members of the property's enum type, or None if it is not an enum."""

    def set_value(self, element: Any, prop: PropertyDescriptor, value: Converted) -> None:
        """Build the .NET value from ``value`` (see ``Converted``) and set the property."""


class ObjectTable(Protocol):
    """Maps live elements to stable ids without keeping them alive.

    An ``ItemRef`` gets the id of its owner plus its index, and ``get`` of
    that id gives an equal ``ItemRef`` back (the adapter's ``is_alive`` says
    whether the index still names an item).
    """

    def id_for(self, element: Any) -> str: ...

    def get(self, node_id: str) -> Any | None: ...

    def __len__(self) -> int: ...


class UiThread(Protocol):
    """Runs callables on the UI thread (see wpfprobe_clr.ui_thread)."""

    def is_ui_thread(self) -> bool: ...

    def run(self, fn: Callable[[], T], *, timeout: float | None = None) -> T: ...

    def post(self, fn: Any) -> None:
        """Queue ``fn`` on the UI thread without waiting; its exceptions never reach the toolkit."""

    def close(self) -> None:
        """The probe stops: calls waiting for the UI thread and later ones from other threads fail."""

    @property
    def thread_id(self) -> int | None: ...
