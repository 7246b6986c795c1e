"""``core/effects.py``: what else a step changed, from the window trees before and after it."""

from __future__ import annotations

import copy
from typing import Any

from wpfprobe.core.effects import compact_event, effects


def tree() -> dict[str, Any]:
    return {
        "root": {
            "nodeId": "w", "type": "Form", "locator": "Form#main", "text": "Main", "visible": True, "enabled": True,
            "children": [
                {"nodeId": "b", "type": "Button", "locator": "Button#go", "text": "Go", "visible": True, "enabled": True},
                {"nodeId": "s", "type": "Label", "locator": "Label#status", "text": "Ready", "visible": True, "enabled": True},
                {"nodeId": "p", "type": "TextBox", "locator": "TextBox#pin", "text": "[REDACTED]", "visible": True, "enabled": True},
                {"nodeId": "t", "type": "TabPage", "locator": "TabPage#more", "visible": False, "enabled": True, "children": [
                    {"nodeId": "t1", "type": "Label", "locator": "TabPage#more/Label[0]", "text": "a", "visible": False, "enabled": True},
                    {"nodeId": "t2", "type": "CheckBox", "locator": "CheckBox#opt", "text": "b", "visible": False, "enabled": True, "checked": False},
                ]},
            ],
        }
    }  # fmt: skip


def test_changes_elsewhere_are_found_and_a_shown_panel_is_one_change_not_one_per_child() -> None:
    before = tree()
    after = copy.deepcopy(before)
    kids = after["root"]["children"]
    kids[0]["text"] = "Going"  # the target: its own result covers it
    kids[1]["text"] = "Saved"
    kids[3]["visible"] = True
    for kid in kids[3]["children"]:
        kid["visible"] = True
    kids[3]["children"][1]["checked"] = True
    dialog = {"root": {"nodeId": "d", "type": "Form", "locator": "Form#done", "text": "Done", "visible": True}}
    found = effects([before], [after, dialog], target="b")
    assert [(e.field, e.locator, e.before, e.after) for e in found] == [
        ("window-opened", "Form#done", None, "Done"),
        ("text", "Label#status", "Ready", "Saved"),
        ("visible", "TabPage#more", False, True),
        ("checked", "CheckBox#opt", False, True),
    ]
    assert [e.field for e in effects([before, dialog], [before])] == ["window-closed"]
    assert effects([before], [copy.deepcopy(before)]) == []


def test_an_event_keeps_what_a_person_reads_and_a_short_stack() -> None:
    event = {"seq": 3, "kind": "exception", "type": "KeyError", "message": "x", "stack": "s" * 10_000, "extra": 1}
    kept = compact_event(event)
    assert set(kept) == {"seq", "kind", "type", "message", "stack"} and len(kept["stack"]) == 4000


def test_a_run_keeps_the_audit_entries_of_its_own_apps(tmp_path: Any, monkeypatch: Any) -> None:
    import json

    from wpfprobe.audit._files import default_log_path
    from wpfprobe.testkit.tracing import AUDIT_FILE, copy_audit

    monkeypatch.setenv("WPFPROBE_HOME", str(tmp_path / "home"))
    log = default_log_path("shop")
    log.parent.mkdir(parents=True)
    lines = [{"seq": i, "app": app, "tool": "wpf_click"} for i, app in enumerate(["shop-1", "shop-2", "shop-1"], 1)]
    log.write_text("\n".join(json.dumps(x) for x in lines) + "\nnot json\n", encoding="utf-8")
    session = tmp_path / "session"
    session.mkdir()
    assert copy_audit(session, [("shop", "shop-1"), ("other", "other-1")]) == 2
    kept = [json.loads(x)["seq"] for x in (session / AUDIT_FILE).read_text(encoding="utf-8").splitlines()]
    assert kept == [1, 3]
    assert copy_audit(tmp_path, [("nobody", "x")]) == 0 and not (tmp_path / AUDIT_FILE).exists()
