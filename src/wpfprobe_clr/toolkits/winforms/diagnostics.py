"""The facts the engine's UI diagnostics judge a WinForms element by.

diagnostic_facts runs for every node of a diagnostics walk, so it reads what the
checks need and nothing else: bounds from the parent's memoised screen origin,
the element's kind from the per-type table, and the layout, tab-order, naming
and item facts only for the app's own controls (a control's parts, such as the
text box inside an up-down, get bounds alone).

Whether a control's text fits (text-truncated) is measured for the controls
that draw a caption: labels, buttons, check boxes and radio buttons, group
boxes. TextRenderer.MeasureText without padding, wrapped to the room's width
where the control wraps (a Label that does not AutoSize, any ButtonBase), is
compared with the room: the client area less Padding, less a button's border
or a check box's glyph. A control that sizes itself to its text (AutoSize,
unless a MaximumSize bounds it) is not measured, nor one whose room is plainly
big enough (each character no wider than a line is high), and a measurement is
made once per walk for the same text and font. Measured, not asked: Mono's
ButtonBase.GetPreferredSize answers its present size, and Mono clamps a 0x0
control to 1x1 px, so a label with no room shows as 1x1 with a long text.
"""

from __future__ import annotations

from typing import Any

from System import Int32

from wpfprobe.core.protocol import Bounds, DiagnosticFacts
from wpfprobe_clr.net.derived import get, is_a
from wpfprobe_clr.net.lazy import clr_namespace
from wpfprobe_clr.toolkits.winforms.kinds import Kind, KindTable
from wpfprobe_clr.toolkits.winforms.tree import client_origin, walk_bounds

Drawing = clr_namespace("System.Drawing")
WF = clr_namespace("System.Windows.Forms")


def diagnostic_facts(element: Any, memo: dict[Any, Any], kinds: KindTable) -> DiagnosticFacts:
    kind = kinds.of(element)
    if not kind.control:
        # Menu and tool strip items: their strip lays them out, Tab never stops on them.
        owner = get(element, "Owner") if is_a(element, WF.types.ToolStripItem) else None
        return DiagnosticFacts(bounds=walk_bounds(element, owner, memo), zero_size_expected=kind.separator)
    parent = get(element, "Parent")
    bounds = walk_bounds(element, parent, memo)
    if parent is not None and not kinds.of(parent).container:
        # A control's own parts (the text box inside an up-down or a combo box).
        return DiagnosticFacts(bounds=bounds)
    client = None
    if kind.container and element.Controls.Count:
        origin = client_origin(element, memo)
        if origin is not None:
            size = element.ClientSize
            client = Bounds(origin[0], origin[1], int(size.Width), int(size.Height))
    item_count: int | None = None
    virtualized: bool | None = None
    if kind.items == "virtual-mode":  # ListView, DataGridView
        virtualized = bool(element.VirtualMode)
        if is_a(element, WF.types.ListView):
            item_count = int(element.VirtualListSize) if virtualized else int(element.Items.Count)
        else:
            item_count = int(element.RowCount)
    elif kind.items == "native":  # ListBox, ComboBox: drawn natively, virtualization does not apply
        item_count = int(element.Items.Count)
    text = _text_fit(element, kind, memo) if kind.text is not None else None
    return DiagnosticFacts(
        bounds=bounds,
        client_area=client,
        scrolls=kind.scrollable and bool(element.AutoScroll),
        free_layout=kind.free_layout,
        docked=int(element.Dock) != 0,
        tab_index=int(element.TabIndex),
        tab_stop=bool(element.TabStop),
        is_input=kind.input,
        names_itself=kind.names_itself,
        has_accessible_name=bool(element.AccessibleName),
        is_label=kind.label,
        item_count=item_count,
        virtualized=virtualized,
        text_room=text[0] if text else None,
        text_size=text[1] if text else None,
        text_line=text[2] if text else None,
        text_ellipsis=text[3] if text else False,
    )


#: A button draws its text inside a border this wide on each side (3D edge and focus cue).
_BUTTON_INSET = 3
#: A check box or radio button draws its glyph and a gap before its text.
_GLYPH_WIDTH = 17
#: A group box's caption starts this far in and must end as far from the right edge.
_CAPTION_INSET = 8
_UNBOUNDED = Int32.MaxValue


def _text_fit(
    element: Any, kind: Kind, memo: dict[Any, Any]
) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int], bool] | None:
    """(room, size as laid out, size on one line, ellipsis) of the control's caption, or None."""
    text = str(element.Text or "")
    if not text:
        return None
    if bool(element.AutoSize):
        limit = element.MaximumSize
        if kind.text == "group" or (int(limit.Width) == 0 and int(limit.Height) == 0):
            return None  # it grows to fit its text
    client, padding = element.ClientSize, element.Padding
    width = int(client.Width) - int(padding.Horizontal)
    height = int(client.Height) - int(padding.Vertical)
    wraps = True
    if kind.text == "button" or (kind.text == "check" and element.Appearance == WF.Appearance.Button):
        width -= 2 * _BUTTON_INSET
        height -= 2 * _BUTTON_INSET
    elif kind.text == "check":
        width -= _GLYPH_WIDTH
    elif kind.text == "group":
        width -= 2 * _CAPTION_INSET
        wraps = False
    font = element.Font
    lines = text.replace("\r\n", "\n").split("\n")
    line_height = int(font.Height)
    plain = "\t" not in text  # a tab stop is wider than any glyph
    if plain and max(map(len, lines)) * line_height <= width and len(lines) * line_height <= height:
        # No glyph is wider than a line is high: it plainly fits. Measuring costs about
        # 1 ms a call on Mono, so only captions that might not fit are measured.
        return None
    flags = WF.TextFormatFlags.NoPadding
    if kind.text != "group" and not bool(element.UseMnemonic):
        flags |= WF.TextFormatFlags.NoPrefix
    one_line = _measure(memo, text, font, _UNBOUNDED, flags)
    if kind.text == "group":
        height = one_line[1]  # the caption sits on the border: only its width can run out
    room = (max(width, 0), max(height, 0))
    size = one_line
    # Wrapping only matters when one line does not fit (and costs a second measurement).
    if wraps and (one_line[0] > room[0] or one_line[1] > room[1]):
        size = _measure(memo, text, font, max(room[0], 1), flags | WF.TextFormatFlags.WordBreak)
    ellipsis = kind.text != "group" and bool(element.AutoEllipsis)
    return room, size, one_line, ellipsis


def _measure(memo: dict[Any, Any], text: str, font: Any, width: int, flags: Any) -> tuple[int, int]:
    """TextRenderer.MeasureText at ``width``, once per walk for the same text, font and flags.

    Through one device context for the walk: without one, each call makes its own
    (about 200 us a call on Mono here, 120 us with it).
    """
    key = ("text", text, font, int(flags), width)
    found = memo.get(key)
    if found is None:
        context = memo.get("text-context")
        if context is None:
            context = memo["text-context"] = Drawing.Graphics.FromImage(Drawing.Bitmap(1, 1))
        size = WF.TextRenderer.MeasureText(context, text, font, Drawing.Size(width, _UNBOUNDED), flags)
        found = memo[key] = (int(size.Width), int(size.Height))
    return found
