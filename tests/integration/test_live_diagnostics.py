"""wpf_run_diagnostics against the live WinForms example, through the Python API and MCP.

The example's diagnosticsPanel holds deliberate mistakes (clippedButton, the
overlapA/overlapB pair, unnamedBox) and brokenLabel is bound to an empty
source; the rest of the app has a few honest findings of its own (coveredButton
under coverPanel and first in tab order, sizeCombo without a label).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import jsonschema
import pytest

import wpfprobe

pytestmark = pytest.mark.toolkit("winforms")

SECRET = "hunter2"
PANEL_FINDINGS = {
    ("clipped", "clippedButton"),
    ("overlapping-siblings", "overlapB"),
    ("unnamed-input", "unnamedBox"),
}


def run(make: Any, deadline: float = 30.0) -> Any:
    async def bounded() -> Any:
        return await asyncio.wait_for(make(), deadline)

    return asyncio.run(bounded())


def texts(result: Any) -> str:
    return "\n".join(b.text for b in result.content if b.type == "text")


def named(probe: Any, findings: list[Any]) -> set[tuple[str, str | None]]:
    return {(f.provider, probe.node(f.node_id).node().name) for f in findings}


def by(findings: list[Any], provider: str, locator: str) -> Any:
    hits = [f for f in findings if f.provider == provider and f.locator == locator]
    assert len(hits) == 1, (provider, locator, [f.line() for f in findings])
    return hits[0]


# -- Python API -----------------------------------------------------------------------


def test_the_whole_app_run_finds_the_example_s_mistakes(probe: Any) -> None:
    page = probe.diagnostics(take=200)
    assert isinstance(page, wpfprobe.DiagnosticsPage) and not page.has_more
    findings = page.items
    assert named(probe, findings) >= PANEL_FINDINGS

    clipped = by(findings, "clipped", "Button#clippedButton")
    assert clipped.level == "warning" and clipped.detail["right"] == 40 and clipped.detail["left"] == 0
    assert "40 px past the right edge of Panel#diagnosticsPanel" in clipped.message

    overlap = by(findings, "overlapping-siblings", "Button#overlapB")
    assert overlap.detail["otherLocator"] == "Button#overlapA"
    assert (overlap.detail["overlapWidth"], overlap.detail["overlapHeight"]) == (40, 13)

    unnamed = by(findings, "unnamed-input", "TextBox#unnamedBox")
    assert "AccessibleName" in unnamed.suggestion

    broken = by(findings, "binding-errors", "Label#brokenLabel")
    assert broken.level == "error" and "no current item" in broken.message and broken.detail["property"] == "Text"
    assert findings[0].level == "error", "most severe first"
    ranks = [{"error": 2, "warning": 1, "info": 0}[f.level] for f in findings]
    assert ranks == sorted(ranks, reverse=True)

    covered = by(findings, "overlapping-siblings", "Button#coveredButton")
    assert "entirely under Panel#coverPanel" in covered.message

    assert page.providers_not_applicable == ["unresolved-dynamic-resource"]
    assert "tab-order" in page.providers_run and "clipped" in page.providers_run
    assert SECRET not in page.model_dump_json()
    for f in findings:
        assert probe.locator(f.locator).node().node_id == f.node_id, f"{f.locator} does not re-find {f.node_id}"
        assert probe.locator(f.path).node().node_id == f.node_id


def test_a_subtree_run_has_exactly_the_panel_s_findings(probe: Any) -> None:
    panel = probe.locator("#diagnosticsPanel")
    page = panel.diagnostics()
    assert named(probe, page.items) == PANEL_FINDINGS
    assert page.total_count == 3
    node_id = panel.node().node_id
    assert named(probe, probe.diagnostics(root=probe.node(node_id)).items) == PANEL_FINDINGS


def test_levels_and_provider_selection(probe: Any) -> None:
    errors = probe.diagnostics(min_level="error")
    assert ("binding-errors", "brokenLabel") in named(probe, errors.items)
    assert {f.level for f in errors.items} == {"error"}
    alone = probe.diagnostics(providers=["null-datacontext"])
    empty = by(alone.items, "null-datacontext", "Label#brokenLabel")
    assert empty.level == "warning" and empty.detail["reason"] == "no-current-item"
    assert alone.providers_run == ["null-datacontext"]
    only_clipped = probe.diagnostics(providers=["clipped"])
    assert {f.provider for f in only_clipped.items} == {"clipped"}
    assert ("clipped", "clippedButton") in named(probe, only_clipped.items)
    with pytest.raises(wpfprobe.ProbeError) as bad:
        probe.diagnostics(providers=["overlaps"])
    assert bad.value.code == "INVALID_ARGUMENT" and "overlapping-siblings" in bad.value.detail["known"]


def test_pages_of_two_add_up_to_the_whole_run(probe: Any) -> None:
    whole = probe.diagnostics(take=200)
    seen: list[tuple[str, str]] = []
    page = probe.diagnostics(take=2)
    while True:
        seen.extend((f.provider, f.node_id) for f in page.items)
        if not page.has_more:
            break
        page = probe.diagnostics(take=2, cursor=page.next_cursor)
    assert seen == [(f.provider, f.node_id) for f in whole.items]
    assert len(seen) == whole.total_count >= 4


def test_a_full_run_is_short_slices_on_the_ui_thread(probe: Any) -> None:
    """One hop per request held the UI thread for a whole-app walk (2.3 s at 5,000 controls):
    long work is now slices (EngineBase.sliced), each letting the UI thread go."""
    runs: list[float] = []
    ui = probe.engine.ui
    original = ui.run

    def timed(fn: Any, *, timeout: float | None = None) -> Any:
        start = time.perf_counter()
        try:
            return original(fn, timeout=timeout)
        finally:
            runs.append(time.perf_counter() - start)

    ui.run = timed
    try:
        probe.diagnostics()
    finally:
        del ui.run
    assert runs, "the work ran on the UI thread"
    slowest = max(runs)
    assert slowest < probe.engine.settings.ui_timeout / 5, f"a slice of the example took {slowest * 1000:.0f} ms"


# -- MCP ---------------------------------------------------------------------------------


def test_an_agent_runs_diagnostics_over_mcp(mcp_connect: Any) -> None:
    async def main() -> dict[str, Any]:
        async with mcp_connect() as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            panel = await client.call_tool("wpf_inspect_element", {"locator": "#diagnosticsPanel"})
            panel_id = panel.structured_content["node"]["nodeId"]
            return {
                "tool": tools["wpf_run_diagnostics"],
                "all": await client.call_tool("wpf_run_diagnostics", {"take": 200}),
                "panel": await client.call_tool("wpf_run_diagnostics", {"nodeId": panel_id}),
                "errors": await client.call_tool("wpf_run_diagnostics", {"minLevel": "error"}),
                "first": await client.call_tool("wpf_run_diagnostics", {"take": 1}),
                "unknown": await client.call_tool("wpf_run_diagnostics", {"providers": ["clipped", "nope"]}),
                "cursor": await client.call_tool("wpf_run_diagnostics", {"cursor": "garbage.abc"}),
            }

    answers = run(main)
    tool = answers.pop("tool")
    assert tool.annotations.read_only_hint is True
    assert {"nodeId", "providers", "minLevel", "cursor", "take"} <= set(tool.input_schema["properties"])
    for name in ("all", "panel", "errors", "first"):
        result = answers[name]
        assert not result.is_error, (name, texts(result))
        jsonschema.validate(result.structured_content, tool.output_schema)

    items = answers["all"].structured_content["items"]
    pairs = {(i["provider"], i["locator"]) for i in items}
    assert {
        ("clipped", "Button#clippedButton"),
        ("overlapping-siblings", "Button#overlapB"),
        ("unnamed-input", "TextBox#unnamedBox"),
        ("binding-errors", "Label#brokenLabel"),
    } <= pairs
    assert all({"provider", "level", "message", "nodeId", "locator", "path", "suggestion"} <= set(i) for i in items)
    assert answers["all"].structured_content["providersNotApplicable"] == ["unresolved-dynamic-resource"]
    assert SECRET not in texts(answers["all"]) and SECRET not in str(answers["all"].structured_content)
    assert "warning clipped" in texts(answers["all"]) and "Button#clippedButton" in texts(answers["all"])

    panel = answers["panel"].structured_content
    assert {i["locator"] for i in panel["items"]} == {"Button#clippedButton", "Button#overlapB", "TextBox#unnamedBox"}
    assert [i["locator"] for i in answers["errors"].structured_content["items"]] == ["Label#brokenLabel"]
    first = answers["first"].structured_content
    assert first["hasMore"] and first["nextCursor"] and first["items"][0]["level"] == "error"

    unknown = answers["unknown"]
    assert unknown.is_error and unknown.structured_content["code"] == "INVALID_ARGUMENT"
    assert "tab-order" in unknown.structured_content["detail"]["known"]
    cursor = answers["cursor"]
    assert cursor.is_error and cursor.structured_content["code"] == "INVALID_ARGUMENT"


# -- text-truncated -----------------------------------------------------------------------


def test_the_example_s_captions_all_fit(probe: Any) -> None:
    # Every label, button and check box of the example is measured, and none is cut:
    # the slack absorbs what Mono measures differently from how it draws.
    page = probe.diagnostics(providers=["text-truncated"])
    assert page.items == [] and page.providers_run == ["text-truncated"]


def test_text_truncated_reports_captions_that_do_not_fit_over_mcp(zoo: Any) -> None:
    from zoo_harness import ok

    async def diagnose(client: Any) -> dict[str, Any]:
        return await ok(client, "wpf_run_diagnostics", providers=["text-truncated", "zero-size"])

    page = zoo.session(diagnose)
    found = {(f["provider"], f["locator"]): f for f in page["items"]}
    assert set(found) == {
        ("text-truncated", "Label#hiddenNote"),
        ("text-truncated", "Label#wrapNote"),
        ("text-truncated", "Button#tinyButton"),
        ("text-truncated", "Label#ellipsisNote"),
    }, sorted(found)
    # 0x0 in the app, 1x1 on Mono's screen: zero-size cannot see it, the text has no room.
    hidden = found[("text-truncated", "Label#hiddenNote")]
    assert hidden["level"] == "warning" and "has 1x1 px for it" in hidden["message"]
    assert (hidden["detail"]["roomWidth"], hidden["detail"]["roomHeight"]) == (1, 1)
    assert hidden["detail"]["lineWidth"] > 60 and "fits the text on one line" in hidden["suggestion"]
    wrapped = found[("text-truncated", "Label#wrapNote")]
    # Wide enough for its wrapped lines (90 px), too short for them (20 px).
    assert wrapped["detail"]["textWidth"] <= 90 + 3 and wrapped["detail"]["textHeight"] > 20 + 3
    assert "at its present width" in wrapped["suggestion"]
    assert found[("text-truncated", "Label#ellipsisNote")]["level"] == "info"
    assert found[("text-truncated", "Button#tinyButton")]["level"] == "warning"
    assert "You cannot see me" not in str(page), "a finding never quotes the text"
