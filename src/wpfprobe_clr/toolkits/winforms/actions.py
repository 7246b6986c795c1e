"""The input actions, done as a user would do them: click, type, keys, select, toggle, focus.

Each action goes through the control's own code path (PerformClick, its
protected OnClick, WM_CHAR to its WndProc, SelectedIndex) so the app's handlers
run as they would for a person; a click focuses what it clicks, a menu item's
menus open first. Also here: the state an action changes (action_state) and
which element has keyboard focus, where keys go when no element is named.
A control of a class written in Python is a ``DerivedHandle``: its members are
called through .NET, and every read that can return a control goes through
``net.derived``.
"""

from __future__ import annotations

from typing import Any

from System import EventArgs

from wpfprobe.core.errors import ElementNotInteractableError, InvalidArgumentError
from wpfprobe.core.protocol import KeyChord, MouseButton, PlainValue
from wpfprobe_clr.net.derived import call, get, is_a, members_of, same
from wpfprobe_clr.net.lazy import clr_namespace
from wpfprobe_clr.toolkits.winforms import items
from wpfprobe_clr.toolkits.winforms.delivery import WM_CHAR, deliver, press, protected
from wpfprobe_clr.toolkits.winforms.items import grids, menus, trees
from wpfprobe_clr.toolkits.winforms.kinds import is_menu
from wpfprobe_clr.toolkits.winforms.tree import describe_element, roots

WF = clr_namespace("System.Windows.Forms")


def action_state(element: Any) -> dict[str, PlainValue]:
    actor = items.actor_of(element)
    if actor is not None:
        return actor.action_state(element)
    if is_menu(element):
        return menus.legacy_action_state(element)
    state: dict[str, PlainValue] = {}
    if is_a(element, WF.types.CheckBox):
        check = element.CheckState
        state["checked"] = None if check == WF.CheckState.Indeterminate else bool(element.Checked)
    elif is_a(element, WF.types.RadioButton):
        state["checked"] = bool(element.Checked)
    elif is_a(element, WF.types.ToolStripMenuItem):
        if element.CheckOnClick or element.Checked:
            state["checked"] = bool(element.Checked)
        if element.HasDropDownItems:
            state["expanded"] = bool(element.DropDown.Visible)
    if is_a(element, WF.types.ToolStripComboBox):
        element = element.ComboBox
    if is_a(element, (WF.types.ListBox, WF.types.ComboBox)):
        index = int(element.SelectedIndex)
        state["selectedIndex"] = index
        state["selectedItem"] = str(element.GetItemText(element.SelectedItem)) if index >= 0 else None
        if is_a(element, WF.types.ComboBox):
            state["expanded"] = bool(element.DroppedDown)
    elif is_a(element, WF.types.TabControl):
        index = int(element.SelectedIndex)
        state["selectedIndex"] = index
        tab = get(element, "SelectedTab")
        state["selectedItem"] = str(tab.Text) if tab is not None else None
    elif is_a(element, WF.types.DataGridView):
        current = element.CurrentCell
        state["selectedIndex"] = int(current.RowIndex) if current is not None else -1
    elif is_a(element, WF.types.TreeView):
        node = element.SelectedNode
        state["selectedItem"] = str(node.FullPath).replace(str(element.PathSeparator), "/") if node else None
    elif is_a(element, WF.types.ListView):
        selected = list(element.SelectedIndices)
        state["selectedIndex"] = int(selected[0]) if selected else -1
        state["selectedItem"] = str(element.Items[int(selected[0])].Text) if selected else None
    elif is_a(element, (WF.types.TrackBar, WF.types.NumericUpDown, WF.types.ProgressBar, WF.types.ScrollBar)):
        state["value"] = float(str(element.Value)) if is_a(element, WF.types.NumericUpDown) else int(element.Value)
    return state


def focused_element(main: Any | None) -> Any | None:
    """The control with keyboard focus, searched in the active form first, then the open ones (main first)."""
    forms = roots(main)
    active = get(WF.Form, "ActiveForm")
    if active is not None:
        forms.insert(0, active)
    fallback = None
    for form in forms:
        if form.IsDisposed or not form.Visible:
            continue
        # An MDI parent's focus is in its active child, which is no root of its own.
        form = get(form, "ActiveMdiChild") or form
        control = form
        while is_a(control, WF.types.ContainerControl) and (inner := get(control, "ActiveControl")) is not None:
            control = inner
        if same(control, form):
            continue
        if control.Focused:
            return control
        fallback = fallback or control
    return fallback


# -- click -------------------------------------------------------------------


def click(element: Any, *, button: MouseButton, count: int) -> None:
    actor = items.actor_of(element)
    if actor is not None:
        owner = actor.owner(element)
        if button == "left" and owner.CanSelect:
            _take_focus(owner)  # a click on an item focuses the control that shows it
        actor.click(element, button=button, count=count)
        menu = get(owner, "ContextMenuStrip") if button == "right" else None
        if menu is not None:
            menus.open_context_menu(menu, owner)  # the control's menu, as a right click opens it
        return
    if is_menu(element):
        if button != "left":
            raise _cannot(element, f"a {button} click on a menu item", "Use a left click.")
        menus.legacy_click(element)
        return
    if is_a(element, WF.types.ToolStripItem):
        if button != "left":
            raise _cannot(element, f"a {button} click on a menu item", "Use a left click.")
        _click_menu_item(element)
        return
    if button == "left" and element.CanSelect:
        _take_focus(element)  # a pointer click focuses what it clicks
    # A LinkLabel is an IButtonControl too, but its PerformClick follows only a link that has
    # the focus (Mono's does nothing): a click at its centre, over the link, is what the user does.
    if (
        button == "left"
        and count == 1
        and is_a(element, (WF.types.IButtonControl, WF.types.RadioButton))
        and not is_a(element, WF.types.LinkLabel)
    ):
        element.PerformClick()
        # A pointer's click raises MouseClick after Click, and apps do listen
        # there (``button.MouseClick += handler``); PerformClick raises only Click.
        # MouseDown/MouseUp stay out: .NET Framework's OnMouseUp clicks again.
        if is_a(element, WF.types.Control) and not element.IsDisposed:
            x, y = max(element.Width // 2, 0), max(element.Height // 2, 0)
            protected(element, "OnMouseClick", WF.MouseEventArgs(WF.MouseButtons.Left, 1, x, y, 0))
        return
    _mouse(element, button, count)


def _click_menu_item(item: Any) -> None:
    _open_context_menu(item)
    if is_a(item, WF.types.ToolStripDropDownItem) and item.HasDropDownItems:
        # A menu with items opens; its parents open first, as the user would.
        _open_menu_chain(get(item, "OwnerItem"))
        item.ShowDropDown()
        return
    # A real click closes the menus before the item's handler runs, so a
    # dialog the handler opens is not drawn under an open drop-down.
    owner = get(item, "Owner")
    if is_a(owner, WF.types.ToolStripDropDown):
        top = item
        while (up := get(top, "OwnerItem")) is not None:
            top = up
        if is_a(top, WF.types.ToolStripDropDownItem):
            top.HideDropDown()
        owner.Close()
    item.PerformClick()


def _open_context_menu(item: Any) -> None:
    """A closed context menu opens on its control first, as the user's right click opens it (and sets SourceControl)."""
    top = item
    while top.OwnerItem is not None:
        top = top.OwnerItem
    strip = top.Owner
    if strip is not None and not strip.Visible and menus.is_context_menu(strip):
        menus.open_context_menu(strip)


def _open_menu_chain(item: Any) -> None:
    chain = []
    while item is not None:
        chain.append(item)
        item = get(item, "OwnerItem")
    for link in reversed(chain):
        if is_a(link, WF.types.ToolStripDropDownItem) and link.HasDropDownItems and not link.DropDown.Visible:
            link.ShowDropDown()


def _mouse(element: Any, button: MouseButton, count: int) -> None:
    which = {"left": WF.MouseButtons.Left, "right": WF.MouseButtons.Right, "middle": WF.MouseButtons.Middle}[button]
    x, y = max(element.Width // 2, 0), max(element.Height // 2, 0)
    for n in range(1, count + 1):
        args = WF.MouseEventArgs(which, n, x, y, 0)
        protected(element, "OnMouseDown", args)
        protected(element, "OnMouseUp", args)
        if button == "left":
            protected(element, "OnClick", EventArgs.Empty)
        protected(element, "OnMouseClick", args)
        if n == 2:
            if button == "left":
                protected(element, "OnDoubleClick", EventArgs.Empty)
            protected(element, "OnMouseDoubleClick", args)
    menu = get(element, "ContextMenuStrip") if button == "right" else None
    if menu is not None:
        menus.open_context_menu(menu, element)


# -- keyboard ----------------------------------------------------------------


def type_text(element: Any, text: str, *, replace: bool) -> None:
    actor = items.actor_of(element)
    if actor is not None:
        # A grid cell: its editor opens (all selected), takes the characters, and the edit is committed.
        editor = actor.typing_target(element)
        if not replace and is_a(editor, WF.types.TextBoxBase):
            editor.Select(editor.TextLength, 0)
        _type_into(editor, text, replace=replace)
        actor.typed(element)
        return
    target = element.ComboBox if is_a(element, WF.types.ToolStripComboBox) else element
    _type_into(target, text, replace=replace)


def _type_into(target: Any, text: str, *, replace: bool) -> None:
    _take_focus(target)
    if replace:
        if is_a(target, WF.types.TextBoxBase):
            target.SelectAll()
            if not text:
                target.SelectedText = ""
        else:
            target.Text = ""
    if not target.IsHandleCreated:
        target.Text = (target.Text if not replace else "") + text
        return
    for ch in text.replace("\r\n", "\n"):
        if ch == "\n" and not (is_a(target, WF.types.TextBoxBase) and target.Multiline):
            press(target, KeyChord((), "Enter"))  # a single-line box: Enter, as a user would press it
            continue
        code = "\r" if ch == "\n" else ch
        deliver(target, WM_CHAR, ord(code) if ord(code) < 0x10000 else 0xFFFD)


def send_keys(element: Any | None, chords: tuple[KeyChord, ...], main: Any | None) -> None:
    """The chords to ``element``, or to the focused control; ``main`` is the app's main form."""
    target = element
    actor = items.actor_of(target) if target is not None else None
    if actor is not None:
        target = actor.owner(target)  # keys go to the control that shows the item
    if target is None:
        target = focused_element(main)
    elif is_a(target, WF.types.Control):
        target = _key_target(target)
        _take_focus(target)
    if not is_a(target, WF.types.Control):
        raise ElementNotInteractableError(
            "Keys go to a control; nothing with keyboard focus was found.",
            suggestion="Pass the control that should get the keys (nodeId or locator).",
            detail={"reason": "unsupported"},
        )
    for chord in chords:
        press(target, chord)
        # Focus may move (Tab); the next key goes where it went.
        target = focused_element(main) or target


# -- select, toggle, focus ---------------------------------------------------


def select(element: Any, *, item: str | None, index: int | None) -> None:
    actor = items.actor_of(element)
    if actor is not None:
        if item is not None or index is not None:
            raise InvalidArgumentError(
                f"{describe_element(element)} is an item: it is selected itself, without item or index.",
                suggestion="Call wpf_select on it with neither item nor index, or on its container with the item.",
            )
        actor.select(element)
        return
    if item is None and index is None:
        raise InvalidArgumentError(
            f"{describe_element(element)} is not an item: say which of its items to select.",
            suggestion="Pass item (the item's text) or index.",
        )
    target = element.ComboBox if is_a(element, WF.types.ToolStripComboBox) else element
    if is_a(target, WF.types.TreeView):
        trees.select_path(target, item, index)
        return
    if is_a(target, WF.types.DataGridView):
        grids.select_row(target, item, index)
        return
    if is_a(target, (WF.types.ListBox, WF.types.ComboBox)):
        texts = [str(target.GetItemText(i)) for i in target.Items]
    elif is_a(target, WF.types.TabControl):
        texts = [str(p.Text) for p in members_of(target.TabPages)]
    elif is_a(target, WF.types.ListView):
        texts = [str(i.Text) for i in target.Items]
    else:
        raise _cannot(element, "select", "Use wpf_click or wpf_toggle for this element.")
    chosen = _choose(texts, item, index)
    if is_a(target, WF.types.ListView):
        target.SelectedIndices.Clear()
        target.Items[chosen].Selected = True
        target.Items[chosen].Focused = True
    else:
        target.SelectedIndex = chosen


def toggle(element: Any, *, state: bool | None) -> None:
    actor = items.actor_of(element)
    if actor is not None:
        actor.toggle(element, state)
        return
    if is_menu(element):
        menus.legacy_toggle(element, state)
        return
    if is_a(element, WF.types.RadioButton):
        if state is False:
            raise InvalidArgumentError(
                "A radio button is unchecked by checking another one in its group.",
                suggestion="Toggle the radio button that should be checked (state=true).",
            )
        if not element.Checked:
            element.PerformClick()
        return
    if is_a(element, WF.types.ToolStripMenuItem):
        if state is None or bool(element.Checked) != state:
            if element.CheckOnClick:
                _click_menu_item(element)
            else:
                element.Checked = not element.Checked if state is None else state
        return
    if is_a(element, WF.types.CheckBox):
        # Clicks, as a user would: a three-state box may need two to get there.
        for _ in range(3 if state is not None else 1):
            if (
                state is not None
                and bool(element.Checked) == state
                and element.CheckState != WF.CheckState.Indeterminate
            ):
                return
            protected(element, "OnClick", EventArgs.Empty)
        return
    raise _cannot(element, "toggle", "Only check boxes, radio buttons and checkable menu items toggle.")


def focus(element: Any) -> None:
    actor = items.actor_of(element)
    if actor is not None:
        element = actor.owner(element)  # an item is focused through the control that shows it
    if is_a(element, WF.types.ToolStripItem):
        element.Select()
        return
    _take_focus(element)
    if not element.ContainsFocus and not _is_active_control(element):
        raise _cannot(element, "focus", "It cannot take keyboard focus (not selectable).")


def _key_target(control: Any) -> Any:
    """Where the keys a user presses in ``control`` arrive: a NumericUpDown's or DomainUpDown's edit box
    (the box handles Up and Down; the control's own window ignores them, and on Mono cannot take focus)."""
    if is_a(control, WF.types.UpDownBase):
        for child in members_of(control.Controls):
            if is_a(child, WF.types.TextBoxBase):
                return child
    return control


def _take_focus(control: Any) -> None:
    form = call(control, "FindForm")
    if form is not None and get(WF.Form, "ActiveForm") is None:
        form.Activate()
    if not control.Focus():
        # Without a window manager (Xvfb) the form may not be active, so
        # Focus() refuses; selecting it still makes it the form's active control.
        control.Select()


def _is_active_control(control: Any) -> bool:
    current = call(control, "FindForm")
    while is_a(current, WF.types.ContainerControl) and (inner := get(current, "ActiveControl")) is not None:
        current = inner
        if same(current, control):
            return True
    return False


def _choose(texts: list[str], item: str | None, index: int | None) -> int:
    if index is not None:
        if index >= len(texts):
            raise InvalidArgumentError(
                f"index {index} is out of range: there are {len(texts)} items.",
                suggestion="Pass an index from 0 to the item count minus one, or the item's text.",
                detail={"count": len(texts), "items": texts[:50]},
            )
        return index
    assert item is not None
    for candidates in (texts, [t.lower() for t in texts]):
        wanted = item if candidates is texts else item.lower()
        if wanted in candidates:
            return candidates.index(wanted)
    raise InvalidArgumentError(
        f"No item has the text {item!r}.",
        suggestion="Pick one of detail.items (exact text, case-insensitive), or pass index.",
        detail={"count": len(texts), "items": texts[:50]},
    )


def _cannot(element: Any, what: str, suggestion: str) -> ElementNotInteractableError:
    return ElementNotInteractableError(
        f"{describe_element(element)} does not support {what}.",
        suggestion=suggestion,
        detail={"reason": "unsupported"},
    )
