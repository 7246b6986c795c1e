"""A tree's JSON made without models (``Engine.tree_json``), its models made in pieces, its texts made in pieces.

Issue 22: with the walk in .NET, a snapshot no longer held the UI thread,
but its 5,000 nodes were made into models on the caller's thread in one
native validation call, and the MCP tool dumped them to JSON again (and the
SDK validated them a third time): each one call holding the GIL for tens of
milliseconds, so the app's own Python handlers (which need the GIL) waited
as long as a bare walk of the whole form. The tool now sends the JSON the
engine made, ``tree`` validates its models a batch at a time, and the JSON
text is dumped a subtree at a time; each is pinned here to what the models
give.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from fake_toolkit import FakeApp, FakeElement, harness
from pydantic import TypeAdapter

from wpfprobe.core import models
from wpfprobe.core.models import Node, Tree, tree_from_json
from wpfprobe.core.settings import ProbeSettings
from wpfprobe.mcp.text import json_text, tree_json_text, tree_text

TINY = 1e-9


def _app(rows: int = 40) -> FakeApp:
    broken = FakeElement("Label", "broken", text="never shown")
    broken.broken = {"display_text": RuntimeError("text fails"), "state": OSError("state fails")}
    save = FakeElement("Button", "save", text="Save &As")
    save.mnemonic = True
    grid = [
        FakeElement(
            "StackPanel",
            f"row{r}",
            children=[
                FakeElement("TextBox", f"field{r}", text=f'välue {r} "q" \u2028'),
                FakeElement("CheckBox", None, text="On", checked=r % 2 == 0),
                FakeElement("Button", "browse", text="..."),
                FakeElement("PasswordBox", f"pin{r}", text="1234", password_char=True),
            ],
        )
        for r in range(rows)
    ]
    panel = FakeElement("StackPanel", "form", children=[save, broken, *grid])
    return FakeApp(FakeElement("Window", "main", text="Main", children=[panel]))


@pytest.mark.parametrize("walks", [True, False])
@pytest.mark.parametrize(("max_depth", "cap"), [(10, 5000), (2, 5000), (10, 57)])
def test_tree_json_is_the_trees_json(walks: bool, max_depth: int, cap: int) -> None:
    with harness(_app(), ProbeSettings(ui_slice=TINY, max_tree_nodes=cap, toolkit_walk=walks)) as h:
        h.adapter.versioned = True
        h.adapter.walks = walks
        data = h.engine.tree_json(max_depth=max_depth)
        assert Tree.model_validate(copy.deepcopy(data)).to_json_dict() == data
        assert h.engine.tree(max_depth=max_depth).to_json_dict() == data
        assert data["returnedNodeCount"] > 3 and data.get("errorCount") == 1


def test_tree_json_with_properties_keeps_a_properties_none_as_pydantic_does() -> None:
    with harness(_app(rows=2), ProbeSettings(ui_slice=TINY)) as h:
        data = h.engine.tree_json(max_depth=4, include_properties=["Text", "NoSuchProperty", "IsChecked"])
        assert Tree.model_validate(copy.deepcopy(data)).to_json_dict() == data


def _deep_tree(levels: int, fan: int) -> dict[str, Any]:
    """A tree's JSON with ``fan`` children per node down ``levels`` levels: wide levels, and deep ones."""
    count = 0

    def node(depth: int) -> dict[str, Any]:
        nonlocal count
        count += 1
        out: dict[str, Any] = {
            "nodeId": f"n{count}", "type": "Panel", "typeName": "Fake.Panel", "text": f"é{count}\n\"x\"",
            "visible": True, "enabled": count % 7 != 0, "focused": False, "childCount": 0, "locator": f"#n{count}",
        }  # fmt: skip
        if count % 11 == 0:
            out["error"] = {"type": "System.Exception", "message": "boom", "reads": ["state"]}
        if count % 13 == 0:
            out["properties"] = {"Tag": None, "Width": 1.5, "root": "not the tree's root"}
        if depth < levels:
            out["children"] = [node(depth + 1) for _ in range(fan)]
            out["childCount"] = fan
            if count % 5 == 0:
                out["childrenTruncated"] = True
        return out

    root = node(0)
    return {"root": root, "treeType": "visual", "truncated": True, "returnedNodeCount": count, "errorCount": 3}


@pytest.mark.parametrize(("levels", "fan"), [(3, 20), (1, 700), (60, 1), (0, 0)])
def test_a_trees_models_made_in_pieces_equal_those_made_in_one_call(levels: int, fan: int) -> None:
    data = _deep_tree(levels, fan)
    assert tree_from_json(copy.deepcopy(data)) == Tree.model_validate(data)


def test_no_call_that_makes_a_trees_models_covers_more_than_a_batch_of_nodes(monkeypatch: pytest.MonkeyPatch) -> None:
    # Before, Engine.tree made every node in one Node.model_validate(root): one native call, GIL held throughout.
    sizes: list[int] = []
    real = TypeAdapter(list[Node])

    class Counting:
        def validate_python(self, batch: list[Any]) -> list[Node]:
            sizes.append(len(batch))
            return real.validate_python(batch)

    monkeypatch.setattr(models, "_node_list", Counting())
    monkeypatch.setattr(Node, "model_validate", None)  # not the way in any more
    with harness(_app(rows=150), ProbeSettings(ui_slice=TINY)) as h:
        h.adapter.versioned = True
        h.adapter.walks = True
        tree = h.engine.tree(max_depth=10)
    assert tree.returned_node_count == 754 and sum(sizes) == 754
    assert max(sizes) <= models._NODES_PER_CALL
    sizes.clear()
    assert tree_from_json(_deep_tree(3, 20)).returned_node_count == 8421
    assert sum(sizes) == 8421 and max(sizes) <= models._NODES_PER_CALL


@pytest.mark.parametrize(("levels", "fan"), [(3, 20), (1, 700), (60, 1), (0, 0)])
def test_the_json_text_of_a_tree_is_its_compact_json(levels: int, fan: int) -> None:
    data = _deep_tree(levels, fan)
    assert json_text(data) == json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def test_the_tree_text_of_the_json_is_the_tree_text_of_the_models() -> None:
    with harness(_app(), ProbeSettings(ui_slice=TINY)) as h:
        h.adapter.versioned = True
        h.adapter.walks = True
        data = h.engine.tree_json(max_depth=10)
        assert tree_json_text(data) == tree_text(Tree.model_validate(copy.deepcopy(data)))
    deep = _deep_tree(2, 30)  # more children than the text lists: "+N more"
    assert tree_json_text(deep) == tree_text(Tree.model_validate(copy.deepcopy(deep)))


def test_the_tree_tool_sends_the_engines_json_and_nothing_validates_it_again(monkeypatch: pytest.MonkeyPatch) -> None:
    # Before, the tool built the Tree's models, dumped them, and the SDK validated the dump against Tree once more.
    import asyncio

    from kernel_twin import KernelWire, handshake, request

    from wpfprobe.mcp.catalog import ToolCatalog
    from wpfprobe.mcp.protocol import Kernel

    validated: list[Any] = []
    real = TypeAdapter.validate_python

    def watched(self: TypeAdapter[Any], value: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(value, dict) and "root" in value:
            validated.append(value)
        return real(self, value, *args, **kwargs)

    monkeypatch.setattr(TypeAdapter, "validate_python", watched)
    monkeypatch.setattr(Tree, "model_validate", None)
    monkeypatch.setattr(Node, "model_validate", None)
    with harness(_app(rows=100), ProbeSettings(ui_slice=TINY)) as h:
        h.adapter.versioned = True
        h.adapter.walks = True

        async def ask(fmt: str) -> Any:
            # Through the kernel, as the app serves the catalog: tools/call's result on the wire.
            wire = KernelWire(Kernel(ToolCatalog(h.engine, tier="read"), version="1", instructions=None))
            await handshake(wire)
            arguments = {"maxDepth": 10, "format": fmt}
            answer = await wire.call(request(1, "tools/call", {"name": "wpf_get_visual_tree", "arguments": arguments}))
            await wire.session.close()
            return answer["result"]

        for fmt in ("text", "json"):
            result = asyncio.run(asyncio.wait_for(ask(fmt), 60))
            assert not result["isError"]
            assert result["structuredContent"] == h.engine.tree_json(max_depth=10)
            text = result["content"][0]["text"]
            assert (json.loads(text) if fmt == "json" else text.splitlines()[-1]) == (
                result["structuredContent"] if fmt == "json" else "(504 nodes, visual tree, 1 with read errors)"
            )
        assert validated == []
        listed = ToolCatalog(h.engine, tier="read").list_tools()
        assert next(t for t in listed if t["name"] == "wpf_get_visual_tree")["outputSchema"], "the schema is published"


# -- Python's collector: off while a big answer is made and sent --------------------------------


def test_the_snapshot_is_built_with_the_collector_off(monkeypatch: pytest.MonkeyPatch) -> None:
    # A full collection started by the build's thousands of dicts held the GIL 30 ms (100+ loaded).
    import gc

    from wpfprobe.engine import walked

    seen: list[bool] = []
    build = walked.build

    def watched(prepared: Any) -> Any:
        seen.append(gc.isenabled())
        return build(prepared)

    monkeypatch.setattr(walked, "build", watched)
    with harness(_app(rows=5), ProbeSettings(ui_slice=TINY)) as h:
        h.adapter.versioned = True
        h.adapter.walks = True
        assert gc.isenabled()
        h.engine.tree_json(max_depth=10)
        h.engine.tree(max_depth=10)
        assert gc.isenabled()
    assert seen == [False, False]


def test_a_read_tools_call_keeps_the_collector_off_until_its_http_answer_is_written() -> None:
    import asyncio
    import gc

    from wpfprobe.mcp.catalog import ToolCatalog, collections_after_response

    states: dict[str, bool] = {}

    def during(**kwargs: Any) -> dict[str, Any]:
        states["during"] = gc.isenabled()
        return {"content": [], "structuredContent": {}, "isError": False}

    with harness(_app(rows=5), ProbeSettings(ui_slice=TINY)) as h:
        catalog = ToolCatalog(h.engine, tier="interact")
        for name in ("wpf_get_visual_tree", "wpf_wait_for"):
            catalog._tools[name].function = during

        async def mcp_app(scope: Any, receive: Any, send: Any) -> None:
            answer = await catalog.call_tool(scope["tool"], scope["arguments"], progress=None)
            assert answer["isError"] is False
            states["shaped"] = gc.isenabled()  # the SDK writes the answer here, after the call returned

        app = collections_after_response(mcp_app)
        tree = {"type": "http", "tool": "wpf_get_visual_tree", "arguments": {}}
        asyncio.run(app(tree, None, None))
        assert states == {"during": False, "shaped": False} and gc.isenabled()
        # Outside an HTTP request (stdio, a handshake-era session's own task): until the answer is made.
        assert asyncio.run(catalog.call_tool("wpf_get_visual_tree", {}, progress=None))["isError"] is False
        assert not states["during"] and gc.isenabled()
        # A tool that may wait (or an app's own) leaves the collector alone.
        asyncio.run(app({"type": "http", "tool": "wpf_wait_for", "arguments": {"locator": "#x"}}, None, None))
        assert states == {"during": True, "shaped": True}
