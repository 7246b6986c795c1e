"""Locators worth keeping (``engine/generating.py``) and the redo lines every action result carries.

Over the fake demo app: a name wins, then an automation id, then the text
inside the nearest named container, then the path; every candidate is
checked by resolving it, so one that finds several elements (or none) is
passed over. Each action result then says, as a scenario step and a Python
line, how to do it again.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import yaml
from fake_toolkit import FakeElement, Harness, harness, iter_elements

from wpfprobe.core.settings import ProbeSettings
from wpfprobe.engine import generating
from wpfprobe.engine.engine import Target
from wpfprobe.engine.redo import python_line, step_line
from wpfprobe.mcp import text as _text
from wpfprobe.mcp.tools import all_tools, read_tools
from wpfprobe.testkit.scenario import parse_scenario


@pytest.fixture
def h() -> Iterator[Harness]:
    with harness(settings=ProbeSettings(audit=False, os_input_settle=0)) as hh:
        yield hh


def element(h: Harness, key: str) -> FakeElement:
    found = [e for e in iter_elements(h.app) if key in (e.name, e.text)]
    assert found, key
    return found[0]


def generated(h: Harness, key: str) -> tuple[str, str, list[tuple[str, str, int]]]:
    g = h.engine.generate_locator(Target(node_id=h.id_of(element(h, key))))
    return g.locator, g.kind, [(a.kind, a.locator, a.matches) for a in g.alternatives]


def test_a_unique_name_wins_then_an_automation_id() -> None:
    with harness(settings=ProbeSettings(audit=False)) as h:
        assert generated(h, "saveButton")[:2] == ("Button#saveButton", "name")
        assert generated(h, "Print")[:2] == ("Button#printAuto", "automationId")
        # Its name is unique; its automation id "beta" is another button's name, so it is not.
        locator, kind, alternatives = generated(h, "Alpha")
        assert (locator, kind) == ("Button#alpha", "name")
        assert ("automationId", "Button#beta", 2) in alternatives


def test_a_shared_name_falls_through_to_the_text_inside_the_nearest_named_container(h: Harness) -> None:
    locator, kind, alternatives = generated(h, "Dup A")
    assert (locator, kind) == ('StackPanel#toolbar Button[text="Dup A"]', "text")
    assert alternatives[0] == ("name", "Button#dup", 2)
    # No name at all: the text, in the container that has one (the window, past two unnamed panels).
    assert generated(h, "User name")[:2] == ('Window#mainWindow Label[text="User name"]', "text")
    assert generated(h, "Item 7")[:2] == ('ListBox#bigList ListBoxItem[text="Item 7"]', "text")


def test_the_text_of_an_input_names_nothing_and_the_path_is_the_last_resort(h: Harness) -> None:
    box = FakeElement("TextBox", text="typed by a user")
    h.ui.run(lambda: element(h, "toolbar").add(box))
    found = h.engine.generate_locator(Target(node_id=h.id_of(box)))
    assert found.kind == "path" and [a.kind for a in found.alternatives] == ["path"]
    assert found.locator == "StackPanel#toolbar/TextBox[0]"


def test_every_locator_chosen_finds_exactly_its_element_again(h: Harness) -> None:
    for el in iter_elements(h.app):
        if not el.visible or el.visual_only:
            continue
        node_id = h.id_of(el)
        found = h.engine.generate_locator(Target(node_id=node_id))
        assert h.probe.locator(found.locator).node().node_id == node_id, (el, found.locator)
        chosen = [a for a in found.alternatives if a.locator == found.locator]
        assert chosen and chosen[0].unique and chosen[0].matches == 1
        kinds = [a.kind for a in found.alternatives]
        assert kinds == sorted(kinds, key=generating.KINDS.index), "candidates are tried in order"


def test_a_container_too_big_to_search_now_gives_its_text_up_for_the_path(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(generating, "TEXT_SCAN_BUDGET", 50)  # the list holds 120 items
    locator, kind, alternatives = generated(h, "Item 7")
    assert (locator, kind) == ("ListBox#bigList/ListBoxItem[7]", "path")
    assert ("text", 'ListBox#bigList ListBoxItem[text="Item 7"]', 0) in alternatives


def test_every_action_result_says_how_to_do_it_again(h: Harness) -> None:
    probe = h.probe
    click = probe.locator("#rememberMe").click()
    assert click.redo is not None
    assert click.redo.locator == "CheckBox#rememberMe"
    assert click.redo.step == '{action: click, locator: "CheckBox#rememberMe"}'
    assert click.redo.python == 'probe.locator("CheckBox#rememberMe").click()'
    # Given by text, redone by the locator worth keeping; only arguments that differ from the defaults.
    help_click = probe.locator('text="Help"').click(click_count=2)
    assert help_click.redo is not None
    assert help_click.redo.step == "{action: click, locator: 'StackPanel#toolbar Button[text=\"Help\"]', clickCount: 2}"
    assert help_click.redo.python == "probe.locator('StackPanel#toolbar Button[text=\"Help\"]').click(click_count=2)"
    typed = probe.locator("#userName").type_text("bob", replace=False)
    assert (
        typed.redo is not None
        and typed.redo.python == 'probe.locator("TextBox#userName").type_text("bob", replace=False)'
    )
    picked = probe.locator("#bigList").select(index=3)
    assert picked.redo is not None and picked.redo.python == 'probe.locator("ListBox#bigList").select(index=3)'
    keys = probe.send_keys("Tab")
    assert keys.redo is not None and (keys.redo.locator, keys.redo.python) == (None, 'probe.send_keys("Tab")')
    assert keys.redo.step == "{action: send_keys, keys: Tab}"
    waited = probe.wait_for(probe.node(h.id_of(element(h, "saveButton"))), "enabled", timeout=2)
    assert waited.redo is not None
    assert waited.redo.python == 'probe.locator("Button#saveButton").wait_for("enabled", timeout=2)'
    width = probe.locator("#userName").set_property("Width", "120")
    assert width.redo is not None and width.redo.step == (
        '{action: set_property, locator: "TextBox#userName", propertyName: Width, value: "120"}'
    )


def test_a_secret_typed_never_reaches_the_redo_lines(h: Harness) -> None:
    result = h.probe.locator("#passwordBox").type_text("pa55-Secret")
    assert result.redo is not None
    assert "pa55-Secret" not in result.redo.step + result.redo.python
    assert '"[REDACTED]"' in result.redo.step


def test_each_step_line_is_a_valid_scenario_step_and_reads_back_as_given() -> None:
    cases = [
        ("click", 'Panel#form Button[text="Say \\"hi\\""]', {"mode": "os"}),
        ("type_text", "#nameBox", {"text": "O'Brien\nline 2", "replace": False}),
        ("select", "#fruitList", {"item": "Kiwi: green"}),
        ("toggle", "#wrapCheck", {"state": True}),
        ("wait_for", 'text="Saved"', {"condition": "textMatches", "value": "^Saved", "timeoutMs": 2500}),
        ("set_property", "#box", {"propertyName": "Text", "value": "a: b # c"}),
    ]
    lines = "\n".join(f"  - {step_line(a, loc, args)}" for a, loc, args in cases)
    scenario = parse_scenario(f"id: lines\nsteps:\n{lines}\n")
    for step, (action, locator, args) in zip(scenario.steps, cases, strict=True):
        read = yaml.safe_load(step_line(action, locator, args))
        assert read == {"action": action, "locator": locator, **args}
        assert step.action == action
    assert python_line("wait_for", "#x", {"condition": "gone", "timeoutMs": 2500}) == (
        'probe.locator("#x").wait_for("gone", timeout=2.5)'
    )


def test_the_compact_text_gains_one_line_and_the_tool_is_read_tier(h: Harness) -> None:
    result = h.probe.locator("#rememberMe").click()
    lines = _text.action_text(result).splitlines()
    assert lines[-1] == 'redo {action: click, locator: "CheckBox#rememberMe"}'
    assert sum(line.startswith("redo") for line in lines) == 1
    spec = {s.name: s for s in read_tools(tier="read")}["wpf_generate_locator"]
    assert spec.tier == "read" and spec.read_only
    schema = spec.output.model_json_schema(by_alias=True)
    assert {"locator", "kind", "python", "alternatives"} <= set(schema["properties"])
    click_spec = {s.name: s for s in all_tools(tier="interact")}["wpf_click"]
    assert "redo" in click_spec.output.model_json_schema(by_alias=True)["properties"]
    found = h.engine.generate_locator(Target(locators=('text="Help"',)))
    text = _text.generated_locator_text(found)
    assert text.splitlines()[0] == 'StackPanel#toolbar Button[text="Help"] (text)'
