"""``assert: tree_matches``: a subtree against a YAML template, partial by default, regex values, strict, snapshots.

The matcher over plain trees first (as wpf_get_visual_tree answers them),
then the assertion against the fake shop through the tools: a missing
snapshot file is written and fails, ``--update-snapshots`` rewrites it, a
changed app fails with a diff that shows only what differs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from fake_toolkit import Harness
from testkit_fakes import ShopFactory, ShopState, build_shop

from wpfprobe.core.settings import ProbeSettings
from wpfprobe.testkit import assertions, snapshots
from wpfprobe.testkit.connection import InProcessConnection
from wpfprobe.testkit.scenario import ScenarioError, load_scenario, parse_scenario
from wpfprobe.testkit.scenario_run import run_scenario


def node(type_: str, name: str | None = None, text: str | None = None, **more: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"type": type_, "typeName": f"System.Windows.Forms.{type_}", "visible": True, "enabled": True}
    if name:
        out["name"] = name
    if text is not None:
        out["text"] = text
    return {**out, **more}


PANEL = node(
    "GroupBox", "sizeGroup", "Size",
    children=[
        node("RadioButton", "smallRadio", "Small", checked=True),
        node("RadioButton", "mediumRadio", "Medium", checked=False),
        node("RadioButton", "largeRadio", "Large", checked=False, enabled=False),
    ],
)  # fmt: skip


def test_a_template_checks_only_what_it_says_and_children_in_order_with_others_between() -> None:
    assert snapshots.matches({"type": "GroupBox"}, PANEL, strict=False)
    assert snapshots.matches({"type": "system.windows.forms.groupbox"}, PANEL, strict=False), "the full name too"
    partial = {"name": "sizeGroup", "children": [{"name": "smallRadio", "checked": True}, {"text": "Large"}]}
    assert snapshots.matches(partial, PANEL, strict=False)
    swapped = {"children": [{"text": "Large"}, {"name": "smallRadio"}]}
    assert not snapshots.matches(swapped, PANEL, strict=False), "children keep their order"
    assert not snapshots.matches({"children": [{"text": "Huge"}]}, PANEL, strict=False)
    assert not snapshots.matches({"children": [{"text": "Large", "enabled": True}]}, PANEL, strict=False)


def test_regex_values_and_strict_children() -> None:
    assert snapshots.matches({"text": "/^S.z/", "children": [{"text": "/^med/i"}]}, PANEL, strict=False)
    assert not snapshots.matches({"text": "/^size$/"}, PANEL, strict=False), "case matters unless /i"
    exact = {"children": [{"name": "smallRadio"}, {"name": "mediumRadio"}, {"name": "largeRadio"}]}
    assert snapshots.matches(exact, PANEL, strict=True)
    assert not snapshots.matches({"children": [{"name": "smallRadio"}, {"name": "largeRadio"}]}, PANEL, strict=True)
    assert snapshots.matches({"children": [{"name": "smallRadio"}, {"name": "largeRadio"}]}, PANEL, strict=False)
    # No children key: not compared, even when strict.
    assert snapshots.matches({"name": "sizeGroup"}, PANEL, strict=True)


def test_a_failure_shows_only_what_differs_as_a_diff() -> None:
    template = {
        "name": "sizeGroup",
        "children": [{"name": "smallRadio", "checked": False}, {"name": "largeRadio", "text": "/^L/", "enabled": True}],
    }
    diff = snapshots.difference(template, PANEL, strict=False)
    changed = [line for line in diff.splitlines() if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    assert changed == ["-  checked: false", "+  checked: true", "-  enabled: true", "+  enabled: false"]
    assert "text: /^L/" in diff, "a pattern that matched reads as written"


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("{colour: red}", "unknown key 'colour'"),
        ("{checked: yes-ish}", "checked must be true or false"),
        ("{text: '/[a-/'}", "not a valid regular expression"),
        ("{children: {type: Button}}", "children must be a list"),
    ],
)
def test_a_bad_template_is_refused_with_its_line(template: str, message: str) -> None:
    text = f"id: t\nsteps:\n  - expect:\n      - assert: tree_matches\n        locator: '#x'\n        template: {template}\n"
    with pytest.raises(ScenarioError, match=message) as caught:
        parse_scenario(text, path="t.yaml")
    assert caught.value.line is not None and caught.value.line >= 4
    with pytest.raises(ScenarioError, match="not both"):
        parse_scenario("id: t\nsteps:\n  - expect: [{assert: tree_matches, locator: '#x'}]\n")


def shop_call(state: ShopState | None = None) -> tuple[Harness, assertions.Call]:
    harness = Harness(build_shop(state or ShopState()), ProbeSettings(audit=False))
    connection = InProcessConnection(harness.engine)
    return harness, lambda tool, args: connection.call(tool, args)


def test_a_snapshot_is_written_when_missing_updated_on_demand_and_then_compared(tmp_path: Path) -> None:
    harness, call = shop_call()
    try:
        raw = {"assert": "tree_matches", "locator": "#shop", "snapshot": "snaps/shop.yaml", "depth": 1}
        first = assertions.check(call, raw, default_timeout_ms=0, base_dir=tmp_path)
        assert not first.ok and "no snapshot yet" in first.actual
        written = yaml.safe_load((tmp_path / "snaps" / "shop.yaml").read_text(encoding="utf-8"))
        assert written["name"] == "shop" and written["children"][1] == {
            "type": "CheckBox", "name": "turboCheck", "text": "Turbo", "checked": False,
        }  # fmt: skip
        assert assertions.check(call, raw, default_timeout_ms=0, base_dir=tmp_path).ok
        harness.ui.run(
            lambda: setattr(next(e for e in harness.app.windows[0].children if e.name == "statusLabel"), "text", "Busy")
        )
        changed = assertions.check(call, raw, default_timeout_ms=0, base_dir=tmp_path)
        assert not changed.ok and "-  text: Ready" in changed.actual and "+  text: Busy" in changed.actual
        updated = assertions.check(call, raw, default_timeout_ms=0, base_dir=tmp_path, update_snapshots=True)
        assert updated.ok and updated.note == str(tmp_path / "snaps" / "shop.yaml")
        assert assertions.check(call, raw, default_timeout_ms=0, base_dir=tmp_path).ok
    finally:
        harness.close()


def test_tree_matches_in_a_scenario_passes_and_fails_with_a_readable_expectation(tmp_path: Path) -> None:
    text = """\
id: tree
steps:
  - action: click
    locator: "#addButton"
    expect:
      - assert: tree_matches
        locator: "#shop"
        template:
          type: Window
          children:
            - {name: turboCheck, checked: false}
            - {name: statusLabel, text: "/^\\\\d+ items$/"}
"""
    path = tmp_path / "tree.yaml"
    path.write_text(text, encoding="utf-8")
    assert run_scenario(load_scenario(path), ShopFactory(), artifacts=tmp_path / "a").passed
    wrong = tmp_path / "wrong.yaml"
    wrong.write_text(
        text.replace("checked: false", "checked: true").replace(
            'locator: "#shop"', 'locator: "#shop"\n        timeoutMs: 200'
        ),
        encoding="utf-8",
    )
    result = run_scenario(load_scenario(wrong), ShopFactory(), artifacts=tmp_path / "b")
    assert not result.passed
    failure = result.failures[0]
    assert failure.expected == "the tree of #shop matches the template"
    assert failure.actual is not None and "-  checked: true" in failure.actual and "+  checked: false" in failure.actual
