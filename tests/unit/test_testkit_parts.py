"""The test kit's parts on their own: the safety policy, the action space, words for tickets, image diffs, oracles."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest
from PIL import Image

from wpfprobe.core.trace import StepTarget, TraceStep
from wpfprobe.testkit import describe, imagediff, oracles
from wpfprobe.testkit.explore import space
from wpfprobe.testkit.explore.policy import SafetyPolicy, words
from wpfprobe.testkit.explore.textgen import TextGenerator
from wpfprobe.testkit.pytest_plugin import shard_of
from wpfprobe.testkit.tickets import all_tickets, find_ticket, grouped, render_markdown, write_ticket


def node(kind: str, name: str | None = None, text: str | None = None, **extra: object) -> dict[str, object]:
    return {"type": kind, "name": name, "text": text, "locator": f"{kind}#{name}" if name else f"{kind}[0]",
            "visible": True, "enabled": True, **extra}  # fmt: skip


@pytest.mark.parametrize(
    ("element", "action", "args", "allowed"),
    [
        (node("Button", "saveButton", "Save"), "click", {}, True),
        (node("Button", "deleteButton", "Remove"), "click", {}, False),
        (node("ToolStripMenuItem", "exitMenuItem", "E&xit"), "click", {}, False),
        (node("Button", "btnSendMail", "Mail"), "click", {}, False),
        (node("Button", "closeButton", "Close"), "send_keys", {"keys": "Enter"}, False),
        (node("TextBox", "nameBox", "Delete me"), "type_text", {"text": "x"}, True),
        (node("TextBox", "nameBox", ""), "send_keys", {"keys": "Alt+F4"}, False),
        (node("TextBox", "nameBox", ""), "send_keys", {"keys": "Ctrl+A Delete"}, True),
        (node("Button", "closetButton", "Closet"), "click", {}, True),
        (node("Button", "sender", "Sender info"), "click", {}, True),
    ],
)
def test_the_default_policy_denies_what_reads_destructive(
    element: dict[str, object], action: str, args: dict[str, object], allowed: bool
) -> None:
    assert SafetyPolicy().decide(element, action, args).allowed is allowed


def test_camel_case_names_are_read_as_words() -> None:
    assert words("exitMenuItem") == "exit menu item"
    assert words("btn_DeleteAll") == "btn delete all"
    assert words("HTMLExport") == "html export"


def test_an_allow_list_takes_effect_only_with_the_confirmation() -> None:
    delete = node("Button", "deleteDraftButton", "Delete draft")
    other = node("Button", "deleteAllButton", "Delete all")
    assert not SafetyPolicy(allow=["#deleteDraftButton"]).decide(delete, "click").allowed
    confirmed = SafetyPolicy(allow=["#deleteDraftButton", "text:^Remove"], confirm_destructive=True)
    assert confirmed.decide(delete, "click").allowed and not confirmed.decide(other, "click").allowed
    assert confirmed.decide(node("Button", "r", "Remove row"), "click").allowed
    assert not SafetyPolicy(deny=["text:(?i)print"]).decide(node("Button", "p", "Print"), "click").allowed
    merged = SafetyPolicy.combine({"allow": ["#deleteDraftButton"]}, {"confirmDestructive": True})
    assert merged.decide(delete, "click").allowed


def tree(*children: dict[str, object], title: str = "Main") -> dict[str, object]:
    return {"root": {"nodeId": "w1", "type": "Form", "text": title, "visible": True, "enabled": True, "locator": "Form#main",
                     "children": list(children)}}  # fmt: skip


def test_the_action_space_is_sorted_filtered_and_leaves_out_what_the_policy_blocks() -> None:
    menu = node("ToolStripMenuItem", "fileMenu", "File", children=[
        node("ToolStripMenuItem", "saveAsMenuItem", "Save As", visible=False),
        node("ToolStripMenuItem", "exitMenuItem", "Exit", visible=False),
    ])  # fmt: skip
    panel = node("Panel", "hiddenPanel", visible=False, children=[node("Button", "ghost", "Ghost")])
    trees = [tree(
        node("TextBox", "nameBox", "Ada"), node("TextBox", "passwordBox", "[REDACTED]"), node("CheckBox", "c", "Check"),
        node("Button", "zed", "Z"), node("Button", "off", "Off", enabled=False), node("Label", "l", "Label"),
        node("ComboBox", "combo", "Small"), menu, panel,
    )]  # fmt: skip
    candidates, blocked = space.build(trees, [{"nodeId": "w1", "title": "Main"}], SafetyPolicy())
    keys = [(c.locator, c.action) for c in candidates]
    assert keys == sorted(keys)
    assert set(keys) == {
        ("Button#zed", "click"), ("Button#zed", "send_keys"), ("CheckBox#c", "toggle"),
        ("ComboBox#combo", "select"), ("ComboBox#combo", "send_keys"), ("TextBox#nameBox", "type_text"),
        ("TextBox#nameBox", "send_keys"), ("ToolStripMenuItem#fileMenu", "click"),
        ("ToolStripMenuItem#saveAsMenuItem", "click"),
    }  # fmt: skip
    assert [(b.locator, b.action) for b in blocked] == [("ToolStripMenuItem#exitMenuItem", "click")]
    shuffled = [tree(*reversed(trees[0]["root"]["children"]))]  # type: ignore[index]
    again, _ = space.build(shuffled, [{"nodeId": "w1"}], SafetyPolicy())
    assert [(c.locator, c.action) for c in again] == keys, "the order does not depend on the toolkit's order"


def test_generated_text_is_drawn_from_the_seed() -> None:
    gen = TextGenerator(["ORD-1"])
    first, second = random.Random(3), random.Random(3)
    drawn = [gen.next(first) for _ in range(30)]
    assert drawn == [gen.next(second) for _ in range(30)]
    assert len(set(drawn)) > 5 and "ORD-1" in [gen.next(random.Random(s)) for s in range(40)]


def step(action: str, kind: str, name: str, shown: str | None, **args: object) -> TraceStep:
    return TraceStep(action=action, args=args, target=StepTarget(locator=f"#{name}", type=kind, name=name, text=shown))


@pytest.mark.parametrize(
    ("made", "words_"),
    [
        (step("click", "Button", "refreshButton", "Refresh"), "Click the button 'Refresh' (#refreshButton)"),
        (step("click", "Button", "b", "OK", clickCount=2), "Double-click the button 'OK' (#b)"),
        (
            step("type_text", "TextBox", "nameBox", "old", text="Ada"),
            "Replace the text of the text box 'nameBox' (#nameBox) with \"Ada\"",
        ),
        (
            step("type_text", "TextBox", "pwd", None, text="[REDACTED]"),
            "Replace the text of the text box 'pwd' (#pwd) with a secret value (not recorded)",
        ),
        (step("select", "ComboBox", "size", "Small", item="Large"), "Select \"Large\" in the combo box 'size' (#size)"),
        (step("select", "ListBox", "items", None, index=1), "Select item 2 in the list 'items' (#items)"),
        (step("toggle", "CheckBox", "c", "Subscribe", state=True), "Check the check box 'Subscribe' (#c)"),
        (step("send_keys", "TextBox", "t", "", keys="Ctrl+S"), "Press Ctrl+S in the text box 't' (#t)"),
        (step("click", "ToolStripMenuItem", "saveAs", "Save As"), "Click the menu item 'Save As' (#saveAs)"),
    ],
)
def test_a_step_reads_as_a_repro_step(made: TraceStep, words_: str) -> None:
    assert describe.describe_step(made) == words_


def test_the_apps_own_frame_is_named_from_a_stack() -> None:
    stack = (
        'Traceback (most recent call last):\n  File "/venv/lib/site-packages/x.py", line 3, in call\n'
        '  File "/src/app/orders.py", line 42, in on_save\n  File "/src/app/db.py", line 7, in write\nKeyError: 1'
    )
    assert describe.app_frame(stack) == "db.py:7 in write"
    before = 'w1 Form "A"\n w2 Button#b "Go"\n w3 Label#l "x"\n'
    after = 'w1 Form "A"\n w2 Button#b "Go" disabled\n w3 Label#l "x"\n'
    assert describe.tree_diff(before, after) == ['- Button#b "Go"', '+ Button#b "Go" disabled']


def png(
    color: tuple[int, int, int], size: tuple[int, int] = (20, 10), patch: tuple[int, int, int, int] | None = None
) -> bytes:
    image = Image.new("RGB", size, color)
    if patch is not None:
        x, y, w, h = patch
        image.paste((0, 0, 0), (x, y, x + w, y + h))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def test_screenshots_compare_with_a_tolerance_a_threshold_and_masks() -> None:
    base = png((200, 200, 200))
    assert imagediff.compare(png((205, 200, 200)), base, threshold=0.0, pixel_tolerance=16).ok
    changed = png((200, 200, 200), patch=(0, 0, 4, 5))  # 20 of 200 pixels
    result = imagediff.compare(changed, base, threshold=0.05, pixel_tolerance=16)
    assert not result.ok and result.differing == 20 and result.diff_png
    assert imagediff.compare(changed, base, threshold=0.11, pixel_tolerance=16).ok
    assert imagediff.compare(changed, base, threshold=0.0, pixel_tolerance=16, masks=[(0, 0, 4, 5)]).ok
    other = imagediff.compare(png((200, 200, 200), size=(10, 10)), base, threshold=1, pixel_tolerance=0)
    assert not other.ok and other.size_mismatch == "10x10 against a baseline of 20x10"


def test_a_baseline_of_this_platform_wins_over_the_shared_one(tmp_path: Path) -> None:
    (tmp_path / "login.png").write_bytes(b"shared")
    assert imagediff.baseline_path(tmp_path, "login.png") == (tmp_path / "login.png").resolve()
    own = tmp_path / f"login.{imagediff.platform_tag()}.png"
    own.write_bytes(b"own")
    assert imagediff.baseline_path(tmp_path, "login.png") == own.resolve()


def test_signatures_leave_out_messages_and_name_kind_type_and_element() -> None:
    a = oracles.exception_failure(
        {"type": "System.InvalidOperationException", "message": "row 7"}, element="#b", step=1
    )
    b = oracles.exception_failure({"type": "InvalidOperationException", "message": "row 9"}, element="#b", step=4)
    assert a.signature == b.signature == "exception|InvalidOperationException|#b"
    assert oracles.dedupe([a, b]) == [a]
    crash = oracles.crash_failure(
        1, [], element="#go", step=2, log_tail="Traceback...\nZeroDivisionError: division by zero\n"
    )
    assert crash.signature == "crash|ZeroDivisionError|#go"
    killed = oracles.crash_failure(-9, [], element="#go", step=2)
    assert killed.signature == "crash|killed by SIGKILL|#go"
    dialogs = oracles.dialog_failures(
        [{"title": "Error 42 in 'x'", "type": "Form"}, {"title": "Save As"}], element="#b", step=1
    )
    assert [d.signature for d in dialogs] == ["error-dialog|Error N in …|#b"]


def test_binding_errors_count_once_and_only_when_new() -> None:
    found = [{"locator": "#label", "message": "Path error: 'Name' not found"}]
    first, seen = oracles.binding_failures(set(), found, element="#b", step=1)
    again, _ = oracles.binding_failures(seen, found, element="#b", step=2)
    assert len(first) == 1 and first[0].kind == "binding-error" and again == []


def test_tickets_from_many_runs_group_by_signature(tmp_path: Path) -> None:
    failure = oracles.make("exception", "boom", what="KeyError", element="#b", step=1, actual="KeyError: x")
    other = oracles.make("crash", "gone", what="exit status 1", element="#c", step=1)
    for session, f in (("shard-1", failure), ("shard-2", failure), ("shard-2", other)):
        write_ticket(
            tmp_path / "tickets" / session, failure=f, steps=[step("click", "Button", "b", "Go")], session_id=session,
            source="explore", environment={"app": "x"}, target={"profile": "x"}, seed=int(session[-1]),
        )  # fmt: skip
    tickets = all_tickets(tmp_path)
    groups = grouped(tickets)
    assert [(first.signature, len(all_)) for first, all_ in groups] == [(failure.signature, 2), (other.signature, 1)]
    assert find_ticket(tmp_path, None).id == tickets[-1].id
    assert find_ticket(tmp_path, tickets[0].id[-6:]).id == tickets[0].id
    markdown = render_markdown(tickets[0])
    assert "1. Click the button 'Go' (#b)" in markdown and "- seed: 1" in markdown


@pytest.mark.parametrize(
    ("env", "shard"),
    [
        ({}, (0, 1)),
        ({"PYTEST_XDIST_WORKER": "gw3", "PYTEST_XDIST_WORKER_COUNT": "4"}, (3, 4)),
        ({"WPFPROBE_SHARD": "2/5"}, (2, 5)),
        ({"WPFPROBE_SHARD": "7/5"}, (0, 1)),
    ],
)
def test_the_shard_comes_from_xdist_or_the_ci_matrix(env: dict[str, str], shard: tuple[int, int]) -> None:
    assert shard_of(env) == shard
