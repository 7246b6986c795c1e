"""Counting changes of the WPF visual tree's structure, for the name index and sliced reads.

WPF has no public "visual child added" event, so a signal had to be chosen.
The engine's consumers (``engine/name_index.py``, ``EngineBase.sliced``) need
one that (1) counts every child added to or removed from a shown tree, (2)
costs an idle app nothing and never calls into Python, (3) holds no element,
and (4) seldom fires without a structure change: a count that moves during
every slice makes each sliced read start again until ``slice_attempts`` runs
out and then do the work in one hold, as if nothing were counted.

What was weighed (WPF's own source, as decompiled in public repositories):

- ``FrameworkElement.Loaded``/``Unloaded`` through one class handler
  (``EventManager.RegisterClassHandler``): fires only on tree changes, but
  WPF's broadcast (``BroadcastEventHelper.OnBroadcastCallback``) visits only
  elements whose ``SubtreeHasLoadedChangeHandler`` flag is set, which an
  instance handler, a style's or a template's EventSetter sets and a class
  handler does not. A plain Button added to a StackPanel raises no Loaded at
  all: the commonest change would go uncounted. Not used.
- ``ItemContainerGenerator.ItemsChanged``/``StatusChanged`` and the items'
  ``CollectionChanged``: exact, but for ItemsControls only, hooked per list.
  Every change they report also invalidates the items panel's layout, so the
  signal below counts them already. Not used.
- ``UIElement.LayoutUpdated``: raised once after every layout pass of the
  dispatcher, whichever element it was added to. Adding or removing a visual
  child in a shown tree invalidates the parent's measure (Panel's children,
  a ContentPresenter's content, a Decorator's child, a template applied, an
  items panel realising or dropping containers), so a layout pass and this
  event follow. Chosen: one handler per adapter, on a private UIElement of
  ours (WPF's layout manager holds its handlers weakly; the element it was
  added to holds the handler strongly, so ours lives as long as the adapter
  and no element of the app is touched, invariant 7).
- ``Window.Closed``, hooked on each window as the index walk meets it: a
  window closing takes its whole tree away but lays nothing else out. The
  window holds that handler, which holds only the counter, so a closed window
  stays collectable. (A window opening is laid out, so it is counted above.)

Both come off when the probe stops (``StructureWatch.unwatch_all``, one of
the adapter's ``_hooks``), the windows found again through a list of weak
references, so a later attach's counter is the only one counting.

The handler (one for both events) is a delegate compiled from an expression
(``net.expr``) that adds one to a counter in .NET: a layout pass never calls
into Python, and an idle app runs no layout pass, so an idle probe costs the
UI thread nothing.

LayoutUpdated comes after the change, at the next layout pass (at the
dispatcher's Render priority, below the Normal priority the probe's slices are
posted at). So ``version()`` first runs any pending layout pass itself
(``UIElement.UpdateLayout``, a no-op when nothing is dirty): a change made
before the read is then counted by the read. That pass is the one WPF would
run next anyway, only earlier; if the app's layout code throws in it, the
version is unknown (None: the engine then does the work in one hop) and WPF
meets the same error in its own next pass.

What it counts without a structure change (over-counting): every layout pass,
so a layout animation (of Width, Margin...), a window being resized, text
being typed, or a label a timer rewrites. Render-only changes (colour and
opacity animations, transforms, the hover and pressed looks of WPF's themes,
a blinking caret) run no layout pass and count nothing. While a layout
animation runs, sliced reads restart and end as one hold, which is what every
WPF read was before this module. The cost of that, from the engine's rules
(``EngineBase.sliced``; not measured on WPF): an attempt is dropped at the
first slice boundary after a layout pass, so with a pass every frame each
attempt loses about a frame of slices (16 ms at 60 Hz), and at most
``slice_attempts`` (3) attempts are lost before the one hold. A layout pass
the read itself runs (above) adds its time to that slice's hold.

What it can miss (left, for the name index, to its validation of every hit;
for sliced reads, read as found when its node is read):

- a change inside a collapsed element: layout skips collapsed elements, so the
  change may be counted only when the element is shown again (returning False
  for every collapsed element would leave no WPF index versioned: a
  ScrollViewer's unneeded scroll bars are collapsed elements of the tree);
- a custom element that adds visual children (``AddVisualChild``) without
  invalidating its measure;
- a window that is not shown: nothing lays it out, so ``watch`` answers False
  for it and the engine keeps its index ``census_ttl`` only;
- what is no structure change: a Name or automation id set at run time.

Every WPF member this module names by a string, where ``tests/unit/
wpf_surface.py`` cannot see it, is listed in ``WPF_MEMBERS_BY_NAME`` and
checked against ``wpf-api.tsv`` by ``tests/unit/test_wpf_structure.py``.
"""

from __future__ import annotations

from typing import Any

import clr
from System import Array, EventArgs, EventHandler, Int32, Object, Type, WeakReference
from System.Reflection import EventInfo
from System.Runtime.CompilerServices import ConditionalWeakTable

from wpfprobe.core.protocol import ItemRef
from wpfprobe_clr._hooks import Hooks
from wpfprobe_clr.net import expr
from wpfprobe_clr.toolkits.wpf._load import _WPF_LOAD_ERROR
from wpfprobe_clr.toolkits.wpf._tree import _TreeAdapter

if _WPF_LOAD_ERROR is None:
    from System.Windows import PresentationSource, UIElement, Window
    from System.Windows.Threading import Dispatcher

#: (declaring type, member, kind as wpf-api.tsv spells it) for every WPF member named by a string here.
WPF_MEMBERS_BY_NAME: tuple[tuple[str, str, str], ...] = (
    ("System.Windows.UIElement", "LayoutUpdated", "event"),
    ("System.Windows.Window", "Closed", "event"),
)
_LAYOUT_UPDATED = WPF_MEMBERS_BY_NAME[0][1]
_CLOSED = WPF_MEMBERS_BY_NAME[1][1]


def counting_handler(counter: Any) -> Any:
    """An ``EventHandler`` that adds one to ``counter[0]`` (an ``Int32[]``), all in .NET.

    It holds the counter and nothing else: whoever holds the handler keeps no
    element alive through it.
    """
    from System.Linq.Expressions import Expression  # noqa: PLC0415 - expr has loaded System.Core

    sender, args = expr.param(object, "sender"), expr.param(EventArgs, "e")
    slot = Expression.ArrayAccess(expr.const(counter, expr.array_of(int)), Array[Expression]([expr.const(0, int)]))
    return expr.compile_lambda(EventHandler, Expression.PreIncrementAssign(slot), sender, args)


def _target(ref: WeakReference) -> Any:
    return ref.Target


def _event(owner: Any, name: str) -> EventInfo:
    owner_type: Type = clr.GetClrType(owner)
    found: EventInfo = owner_type.GetEvent(name)
    return found


class StructureWatch:
    """One counter per adapter: layout passes and windows closed, hooked on first use on the UI thread."""

    def __init__(self, dispatcher: Dispatcher, hooks: Hooks) -> None:
        self._dispatcher: Dispatcher = dispatcher
        self._counter = Array.CreateInstance(Int32, 1)
        self._handler: Any = None
        self._sentinel: UIElement | None = None
        self._windows = ConditionalWeakTable[Object, Object]()
        self._hooked_windows: list[WeakReference] = []
        self._hooks = hooks
        hooks.added(self.unwatch_all)

    def unwatch_all(self) -> None:
        """Take the counting handler off the layout passes and every window still alive (on the UI
        thread); a later use hooks afresh (a stopped probe's adapter is not used again)."""
        handler, sentinel = self._handler, self._sentinel
        self._handler, self._sentinel = None, None
        if handler is None:
            return
        if sentinel is not None:
            _event(UIElement, _LAYOUT_UPDATED).RemoveEventHandler(sentinel, handler)
        closed = _event(Window, _CLOSED)
        for ref in self._hooked_windows:
            window = _target(ref)
            if window is not None:
                closed.RemoveEventHandler(window, handler)
        self._hooked_windows = []
        self._windows = ConditionalWeakTable[Object, Object]()

    def _hooked(self) -> Any:
        """The counting handler, hooked to the layout passes; None off the UI thread."""
        if self._handler is None:
            if not self._hooks.live or not self._dispatcher.CheckAccess():
                # A UIElement belongs to the dispatcher of the thread that makes it: one made
                # elsewhere would count another thread's layout passes.
                return None
            handler = counting_handler(self._counter)
            sentinel: UIElement = UIElement()
            # Through EventInfo, not ``+=``: pythonnet keeps every handler added with += in a
            # table keyed by its target, which is what kept closed WinForms forms alive.
            _event(UIElement, _LAYOUT_UPDATED).AddEventHandler(sentinel, handler)
            self._sentinel, self._handler = sentinel, handler
        return self._handler

    def version(self) -> int | None:
        if self._hooked() is None or self._sentinel is None:
            return None
        try:
            # The dispatcher's pending layout pass, if any (see the module doc): a change made
            # before this read raises LayoutUpdated now, not after the next slice has read the tree.
            self._sentinel.UpdateLayout()
        except Exception:  # noqa: BLE001 - the app's own layout code failed; WPF meets it again in its next pass
            return None
        return int(self._counter[0])

    def watch(self, element: Any) -> bool:
        """Whether a change of ``element``'s children is counted (the layout hook is once per adapter)."""
        handler = self._hooked()
        if handler is None:
            return False
        if isinstance(element, ItemRef):
            return True  # a data item has no visual children
        if isinstance(element, Window):
            # The index walk meets every window first. One not shown is never laid out; a
            # closing one runs no layout pass in the others, so its Closed is counted too (the
            # window holds that handler, and the handler holds only the counter).
            found, _ = self._windows.TryGetValue(element)
            if not found:
                _event(Window, _CLOSED).AddEventHandler(element, handler)
                self._windows.Add(element, None)
                self._hooked_windows = [r for r in self._hooked_windows if _target(r) is not None]
                self._hooked_windows.append(WeakReference(element))
            return PresentationSource.FromVisual(element) is not None
        return True  # below a shown window (the walk starts at the windows); see the module doc


class _StructureMixin(_TreeAdapter):
    """The structure counting methods of WpfAdapter."""

    def __init__(self, app: Any) -> None:
        super().__init__(app)
        self._structure = StructureWatch(self.dispatcher, self.hooks)

    def structure_version(self) -> int | None:
        return self._structure.version()

    def watch_structure(self, element: Any) -> bool:
        return self._structure.watch(element)
