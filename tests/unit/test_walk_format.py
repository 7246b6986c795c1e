"""The .NET walker's packed form read back (toolkits/_walk_format.py), without a runtime.

The walkers write JSON records through ``_walk_frame.Pack``; here the records
are written by hand as the walk writes them (each followed by a comma).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from wpfprobe.core.protocol import ROW_FIELDS, ElementState, PropertyDescriptor
from wpfprobe_clr.toolkits._walk_format import (
    FIELDS,
    WPF_MARKER,
    ReadError,
    Walked,
    WalkedControl,
    decode,
    parse_rows,
)

TYPES = [
    ("Form", "System.Windows.Forms.Form"),
    ("TextBox", "System.Windows.Forms.TextBox"),
    ("CheckedListBoxItem", "System.Windows.Forms.CheckedListBoxItem"),
    ("Button", "System.Windows.Controls.Button"),
]


def _record(*fields: Any, total: int | None = None) -> str:
    """One record as the walk writes it (the automation id, null in a WinForms walk, then the total count)."""
    assert len(fields) == FIELDS - 1
    return json.dumps([*fields, total], ensure_ascii=False) + ","


def _form(name: Any, text: Any, *rest: Any, total: int | None = None) -> str:
    return _record(-1, 0, "ab1", 0, name, text, *rest, total=total)


def _error(kind: str, message: str) -> list[str]:
    return [kind, message]


def test_the_row_layout_is_the_engines() -> None:
    assert len(ROW_FIELDS) == FIELDS


def test_records_read_back_with_texts_that_hold_json_and_the_old_separators() -> None:
    tricky = 'a:b;c!*n s3:x "quoted" \\ back],[ \u0001 \U0001f600'
    packed = _form("main", tricky, False, True, True, False, None, 1, False, None, None, None) + _record(
        0, 1, "ab2", 1, None, None, False, True, False, True, None, 0, True, None, None, None
    )
    form, box = decode(packed, TYPES)
    assert form == WalkedControl(
        -1, 0, "ab1", "Form", "System.Windows.Forms.Form", "main", tricky, False, True, True, False, None, 1, False
    )
    assert box.parent == 0 and box.depth == 1 and box.name is None and box.text is None and box.rich
    assert (box.visible, box.enabled, box.focused, box.child_controls) == (True, False, True, 0)


def test_a_node_reads_its_text_as_the_user_does() -> None:
    packed = _form("main", "Save &As", True, True, True, False, True, 0, False, None, None, None)
    node = decode(packed, TYPES)[0].node()
    assert (node.text, node.access_key) == ("Save As", "A")
    assert node.state == ElementState(visible=True, enabled=True, focused=False, checked=True)
    assert node.complete and node.faults == () and node.naming.name == "main"
    plain = decode(_form("", "a && b", False, True, True, False, None, 0, False, None, None, None), TYPES)[0]
    assert (plain.node().text, plain.node().access_key, plain.node().naming.name) == ("a && b", None, None)


def test_a_long_text_is_clipped_before_its_access_key_is_taken_out() -> None:
    walk = _walked(_form("main", "&" + "x" * 300, True, True, True, False, None, 0, False, None, None, None))
    (node,) = walk.nodes()
    assert node.text is not None and len(node.text) == 255 and node.text.endswith("…")
    assert node.access_key == "X"
    assert walk.shown_text("y" * 300, False)[0] == "y" * 255 + "…"


def test_a_read_that_threw_keeps_its_type_and_message_and_the_rest_of_the_record() -> None:
    error = _error("System.InvalidOperationException", "Text fails:\n  on purpose")
    packed = _form("angry", error, False, True, True, False, None, 0, False, None, None, None)
    (form,) = decode(packed, TYPES)
    assert form.text == ReadError("System.InvalidOperationException", "Text fails:\n  on purpose")
    assert form.name == "angry" and form.visible is True and form.child_controls == 0
    node = form.node()
    assert node.text is None
    assert node.faults == (("text", "System.InvalidOperationException", "Text fails: on purpose"),)


def test_failed_reads_are_named_in_the_engines_order_and_a_failed_state_is_the_unknown_one() -> None:
    boom = _error("System.Exception", "boom")
    packed = _form(boom, "t", False, True, boom, False, None, boom, False, None, None, None)
    node = decode(packed, TYPES)[0].node()
    assert [read for read, _, _ in node.faults] == ["naming", "children", "state"]
    assert node.state == ElementState(visible=True, enabled=True, focused=False)
    assert node.child_count == 0 and node.naming.name is None and node.text == "t"


def test_output_that_is_not_whole_records_of_known_types_is_refused() -> None:
    with pytest.raises(ValueError):
        decode(_record(-1, 0, "ab1", 7, None, None, False, True, True, False, None, 0, False, None, None, None), TYPES)
    with pytest.raises(ValueError):
        decode("[1, 2],", TYPES)
    with pytest.raises(ValueError):
        decode("x,", TYPES)


def test_an_item_record_says_whether_it_is_selected_and_a_failed_selection_read_is_a_state_fault() -> None:
    form = _form("f", "", False, True, True, False, None, 2, False, None, None, None)
    item = _record(0, 1, "ab1.3", 2, None, "Olives", False, False, True, False, None, 0, False, True, None, None)
    node = decode(form + item, TYPES)[1].node()
    assert node.state == ElementState(visible=False, enabled=True, focused=False, selected=True, checked=None)
    assert node.naming.type_name == "CheckedListBoxItem" and node.text == "Olives"
    boom = _error("System.Exception", "boom")
    failed = decode(_form("f", "", False, True, True, False, None, 0, False, boom, None, None), TYPES)[0].node()
    assert failed.faults == (("state", "System.Exception", "boom"),)
    assert failed.state == ElementState(visible=True, enabled=True, focused=False)


def test_a_record_of_a_control_that_lists_only_some_children_carries_their_total() -> None:
    grid = _form("orders", None, False, True, True, False, None, 30, False, None, None, None, total=5004)
    node = decode(grid, TYPES)[0].node()
    assert (node.child_count, node.total_count, node.complete) == (30, 5004, True)
    assert (
        decode(_form("f", "", False, True, True, False, None, 2, False, None, None, None), TYPES)[0].total_count is None
    )


def test_records_are_parsed_in_the_pieces_the_walk_marked() -> None:
    records = [_record(i - 1, i, f"n{i}", 0, None, f"t{i}", False, True, True, False, None, 0, False, None, None, None)
               for i in range(5)]  # fmt: skip
    packed = "".join(records)
    ends = [len("".join(records[:2])), len("".join(records[:4]))]
    pieces = list(parse_rows(packed, ",".join(str(e) for e in ends) + ","))
    assert [len(p) for p in pieces] == [2, 2, 1]
    assert [row[2] for piece in pieces for row in piece] == ["n0", "n1", "n2", "n3", "n4"]


# -- WPF records: an automation id in the last field, and WPF's access keys ("_", AccessText's rules)


def _button(name: Any, text: Any, marked: Any, automation_id: Any, *, kids: Any = 1) -> str:
    return _record(-1, 0, "ab1", 3, name, text, marked, True, True, False, None, kids, False, None, None, automation_id)


def test_a_wpf_record_reads_its_automation_id_and_wpf_access_keys() -> None:
    (button,) = decode(_button("save", "Save _As__x", True, "saveId"), TYPES, WPF_MARKER)
    assert button.automation_id == "saveId" and button.marker == WPF_MARKER
    node = button.node()
    assert (node.text, node.access_key) == ("Save As_x", "A")
    assert (node.naming.name, node.naming.automation_id) == ("save", "saveId")
    # "&" means nothing to WPF, and a text that shows no AccessText keeps its "_".
    plain = decode(_button(None, "R&D _x", False, None, kids=0), TYPES, WPF_MARKER)[0].node()
    assert (plain.text, plain.access_key, plain.naming.automation_id) == ("R&D _x", None, None)


def test_a_failed_automation_id_read_fails_the_naming_as_the_engine_reads_it() -> None:
    boom = _error("System.InvalidOperationException", "no id")
    node = decode(_button("save", "Save", True, boom, kids=0), TYPES, WPF_MARKER)[0].node()
    # The engine's naming is one read: one failure leaves neither the name nor the id.
    assert (node.naming.name, node.naming.automation_id) == (None, None)
    assert node.faults == (("naming", "System.InvalidOperationException", "no id"),)


def test_a_walk_hands_its_lists_over_unparsed_and_reads_them_when_asked() -> None:
    walk = _walked(_button(None, "_Go", True, None, kids=0), marker=WPF_MARKER, faulted="0,0,", ids="ab1,ab2,")
    assert [(n.text, n.access_key) for n in walk.nodes()] == [("Go", "G")]
    assert walk.ids == frozenset({"ab1", "ab2"}) and walk.faulted == frozenset({0})
    assert walk.types == TYPES


def _walked(packed: str, *, marker: str = "&", faulted: str = "", ids: str = "") -> Walked:
    walk = Walked(step=lambda seconds, w: True, text_property=PropertyDescriptor("Text", "System.String", None, False))
    walk.marker = marker
    types = "".join(json.dumps(list(t)) + "," for t in TYPES)
    walk.finish(packed=packed, id_list=ids, incomplete=[], faulted=faulted, types=types)
    return walk
