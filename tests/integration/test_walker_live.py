"""The .NET walk (toolkits/winforms/walker.py) against the Python path, control for control.

The Python path is the oracle: for every control of every window of the WinForms
example, in the same breadth-first order, the walk must give the same type, full
type, name, text as the user reads it (redacted the same way, never read for a
password box), visible/enabled/focused, and number of child controls.
"""

from __future__ import annotations

from typing import Any

import pytest

# toolkits/winforms/walker.py walks WinForms controls: a WPF run has none to walk (WPF has no
# .NET walker yet; docs/architecture.md).
pytestmark = [pytest.mark.usefixtures("running_app"), pytest.mark.toolkit("winforms")]


def _compare(h: Any) -> dict[str, Any]:
    from System.Windows.Forms import Control

    from wpfprobe.core.redaction import REDACTED
    from wpfprobe_clr.net.derived import DerivedHandle
    from wpfprobe_clr.toolkits.winforms import walker

    mismatches: list[str] = []
    compared = secrets = 0
    for root in h.adapter.roots():
        if type(root) is DerivedHandle:
            continue
        walked = walker.walk(root)
        queue, expected = [root], []
        while queue:
            el = queue.pop(0)
            expected.append(el)
            queue.extend(k for k in h.children_of(el, "visual") if isinstance(k, Control))
        if len(walked) != len(expected):
            mismatches.append(f"{len(walked)} controls walked, {len(expected)} on the Python path")
        for el, got in zip(expected, walked, strict=False):
            compared += 1
            naming = h.naming_of(el)
            state = h.state_of(el)
            kids = [k for k in h.children_of(el, "visual") if isinstance(k, Control)]
            text, _key = h.text_and_key(el)
            if got.text == walker.SECRET:
                secrets += 1
                walked_text: Any = REDACTED
            elif isinstance(got.text, str) and got.text:
                walked_text = h.adapter.display_text(el, got.text)[0] or None
            else:
                walked_text = None
            want = (naming.type_name, naming.full_type_name, naming.name, text, state.visible, state.enabled,
                    state.focused, len(kids))  # fmt: skip
            have = (got.type_name, got.full_type_name, got.name or None, walked_text, got.visible, got.enabled,
                    got.focused, got.child_controls)  # fmt: skip
            if want != have:
                mismatches.append(f"{h.locator_of(el)}: python {want} != walker {have}")
        if walked:
            assert walked[0].parent == -1
            assert all(0 <= w.parent < i for i, w in enumerate(walked) if i)
    return {"compared": compared, "secrets": secrets, "mismatches": mismatches, "faults": dict(h.faults)}


def test_the_dotnet_walk_reads_every_control_as_the_python_path_does(probe: Any) -> None:
    result = probe.engine.hop(_compare)
    assert result["mismatches"] == [], "\n".join(result["mismatches"])
    assert result["compared"] > 20, result
    assert result["secrets"] >= 1, "the example's password box is walked without reading its text"
    assert result["faults"] == {}, result["faults"]
