"""The .NET walker's packed form read back (toolkits/_walk_format.py), without a runtime."""

from __future__ import annotations

import pytest

from wpfprobe.core.protocol import ElementState, PropertyDescriptor
from wpfprobe_clr.toolkits._walk_format import (
    SECRET,
    WPF_FIELDS,
    WPF_MARKER,
    ReadError,
    Walked,
    WalkedControl,
    decode,
)


def _s(text: str) -> str:
    return f"s{len(text)}:{text}"


def _error(kind: str, message: str) -> str:
    return "!" + _s(kind)[1:] + _s(message)[1:]


FORM = "i-1;i0;" + _s("ab1") + _s("Form") + _s("System.Windows.Forms.Form")


def test_records_read_back_with_texts_that_hold_the_separators() -> None:
    tricky = "a:b;c!*n s3:x"
    packed = (
        FORM + _s("main") + _s(tricky) + "b0" + "b1b1b0" + "n" + "i1;" + "b0" + "nn"
        + "i0;i1;" + _s("ab2") + _s("TextBox") + _s("System.Windows.Forms.TextBox") + "n" + "*" + "b0"
        + "b1b0b1" + "n" + "i0;" + "b1" + "nn"
    )  # fmt: skip
    form, box = decode(packed)
    assert form == WalkedControl(
        -1, 0, "ab1", "Form", "System.Windows.Forms.Form", "main", tricky, False, True, True, False, None, 1, False
    )
    assert box.parent == 0 and box.depth == 1 and box.name is None and box.text == SECRET and box.rich
    assert (box.visible, box.enabled, box.focused, box.child_controls) == (True, False, True, 0)


def test_a_node_reads_its_text_as_the_user_does() -> None:
    packed = FORM + _s("main") + _s("Save &As") + "b1" + "b1b1b0" + "b1" + "i0;" + "b0" + "nn"
    node = decode(packed)[0].node()
    assert (node.text, node.access_key) == ("Save As", "A")
    assert node.state == ElementState(visible=True, enabled=True, focused=False, checked=True)
    assert node.complete and node.faults == () and node.naming.name == "main"
    plain = decode(FORM + _s("") + _s("a && b") + "b0" + "b1b1b0" + "n" + "i0;" + "b0" + "nn")[0].node()
    assert (plain.text, plain.access_key, plain.naming.name) == ("a && b", None, None)


def test_a_read_that_threw_keeps_its_type_and_message_and_the_rest_of_the_record() -> None:
    error = _error("System.InvalidOperationException", "Text fails:\n  on purpose")
    packed = FORM + _s("angry") + error + "b0" + "b1b1b0" + "n" + "i0;" + "b0" + "nn"
    (form,) = decode(packed)
    assert form.text == ReadError("System.InvalidOperationException", "Text fails:\n  on purpose")
    assert form.name == "angry" and form.visible is True and form.child_controls == 0
    node = form.node()
    assert node.text is None
    assert node.faults == (("text", "System.InvalidOperationException", "Text fails: on purpose"),)


def test_failed_reads_are_named_in_the_engines_order_and_a_failed_state_is_the_unknown_one() -> None:
    boom = _error("System.Exception", "boom")
    packed = FORM + boom + _s("t") + "b0" + "b1" + boom + "b0" + "n" + boom + "b0" + "nn"
    node = decode(packed)[0].node()
    assert [read for read, _, _ in node.faults] == ["naming", "children", "state"]
    assert node.state == ElementState(visible=True, enabled=True, focused=False)
    assert node.child_count == 0 and node.naming.name is None and node.text == "t"


def test_output_that_is_not_whole_records_is_refused() -> None:
    with pytest.raises(ValueError):
        decode(FORM)
    with pytest.raises(ValueError):
        decode("x")


def test_an_item_record_says_whether_it_is_selected_and_a_failed_selection_read_is_a_state_fault() -> None:
    item = "i0;i1;" + _s("ab1.3") + _s("CheckedListBoxItem") + _s("System.Windows.Forms.CheckedListBoxItem") + "n"
    node = decode(FORM + _s("f") + _s("") + "b0b1b1b0ni2;b0nn" + item + _s("Olives") + "b0b0b1b0n" + "i0;b0b1n")[1]
    assert node.node().state == ElementState(visible=False, enabled=True, focused=False, selected=True, checked=None)
    assert node.node().naming.type_name == "CheckedListBoxItem" and node.node().text == "Olives"
    boom = _error("System.Exception", "boom")
    failed = decode(FORM + _s("f") + _s("") + "b0b1b1b0ni0;b0" + boom + "n")[0].node()
    assert failed.faults == (("state", "System.Exception", "boom"),)
    assert failed.state == ElementState(visible=True, enabled=True, focused=False)


# -- WPF records: an automation id after the fifteen fields, and WPF's access keys ("_", AccessText's rules)

BUTTON = "i-1;i0;" + _s("ab1") + _s("Button") + _s("System.Windows.Controls.Button")


def test_a_wpf_record_reads_its_automation_id_and_wpf_access_keys() -> None:
    packed = BUTTON + _s("save") + _s("Save _As__x") + "b1" + "b1b1b0" + "n" + "i1;" + "b0" + "nn" + _s("saveId")
    (button,) = decode(packed, WPF_FIELDS, WPF_MARKER)
    assert button.automation_id == "saveId" and button.marker == WPF_MARKER
    node = button.node()
    assert (node.text, node.access_key) == ("Save As_x", "A")
    assert (node.naming.name, node.naming.automation_id) == ("save", "saveId")
    # "&" means nothing to WPF, and a text that shows no AccessText keeps its "_".
    plain = decode(
        BUTTON + "n" + _s("R&D _x") + "b0" + "b1b1b0" + "n" + "i0;" + "b0" + "nn" + "n", WPF_FIELDS, WPF_MARKER
    )
    assert (plain[0].node().text, plain[0].node().access_key, plain[0].node().naming.automation_id) == (
        "R&D _x",
        None,
        None,
    )


def test_a_failed_automation_id_read_fails_the_naming_as_the_engine_reads_it() -> None:
    boom = _error("System.InvalidOperationException", "no id")
    packed = BUTTON + _s("save") + _s("Save") + "b1" + "b1b1b0" + "n" + "i0;" + "b0" + "nn" + boom
    node = decode(packed, WPF_FIELDS, WPF_MARKER)[0].node()
    # The engine's naming is one read: one failure leaves neither the name nor the id.
    assert (node.naming.name, node.naming.automation_id) == (None, None)
    assert node.faults == (("naming", "System.InvalidOperationException", "no id"),)


def test_a_winforms_record_still_has_no_automation_id_and_a_wpf_walk_decodes_its_own_way() -> None:
    (form,) = decode(FORM + _s("main") + _s("a_b") + "b1" + "b1b1b0" + "n" + "i0;" + "b0" + "nn")
    assert form.automation_id is None and form.marker == "&" and form.node().text == "a_b"
    with pytest.raises(ValueError):
        decode(FORM + _s("main") + _s("a_b") + "b1" + "b1b1b0" + "n" + "i0;" + "b0" + "nn", WPF_FIELDS, WPF_MARKER)
    walk = Walked(step=lambda seconds, w: True, text_property=PropertyDescriptor("Text", "System.String", None, False))
    walk.fields, walk.marker = WPF_FIELDS, WPF_MARKER
    walk.finish(
        packed=BUTTON + "n" + _s("_Go") + "b1b1b1b0" + "n" + "i0;" + "b0" + "nn" + "n", ids=frozenset(), incomplete=[]
    )
    assert [(n.text, n.access_key) for n in walk.nodes()] == [("Go", "G")]
