"""The .NET walker's packed form read back (toolkits/_walk_format.py), without a runtime."""

from __future__ import annotations

import pytest

from wpfprobe_clr.toolkits._walk_format import SECRET, ReadError, WalkedControl, decode


def _s(text: str) -> str:
    return f"s{len(text)}:{text}"


def test_records_read_back_with_texts_that_hold_the_separators() -> None:
    tricky = "a:b;c!*n s3:x"
    packed = (
        "i-1;" + _s("Form") + _s("System.Windows.Forms.Form") + _s("main") + _s(tricky) + "b1b1b0i1;"
        + "i0;" + _s("TextBox") + _s("System.Windows.Forms.TextBox") + "n" + "*" + "b1b0b1i0;"
    )  # fmt: skip
    form, box = decode(packed)
    assert form == WalkedControl(-1, "Form", "System.Windows.Forms.Form", "main", tricky, True, True, False, 1)
    assert box.parent == 0 and box.name is None and box.text == SECRET
    assert (box.visible, box.enabled, box.focused, box.child_controls) == (True, False, True, 0)


def test_a_read_that_threw_keeps_its_type_and_message_and_the_rest_of_the_record() -> None:
    error = "!" + _s("InvalidOperationException")[1:] + _s("Text fails: on purpose")[1:]
    packed = "i-1;" + _s("Label") + _s("System.Windows.Forms.Label") + _s("angry") + error + "b1b1b0i0;"
    (label,) = decode(packed)
    assert label.text == ReadError("InvalidOperationException", "Text fails: on purpose")
    assert label.name == "angry" and label.visible is True and label.child_controls == 0


def test_output_that_is_not_whole_records_is_refused() -> None:
    with pytest.raises(ValueError):
        decode("i-1;" + _s("Form"))
    with pytest.raises(ValueError):
        decode("x")
