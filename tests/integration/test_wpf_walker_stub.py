"""The WPF walk in .NET (toolkits/wpf/_walker.py) built, compiled and run here, over stand-in WPF types.

WPF does not exist on Linux, so ``scripts/wpf_stub.cs`` declares the WPF types
and members the walk names (same namespaces, names and signatures), compiled
with Mono's mcs; ``scripts/wpf_walker_stub.py`` walks a tree of them in a
process of its own (the stand-ins must not meet the real WPF or Mono's partial
WindowsBase). This proves the expression is well typed and compiles, and the
walk's own logic: breadth-first order, slices, the depth and node cap, rich
elements and the reads it never makes, texts and access keys, failed reads,
registered ids. Items and their containers are read by the engine's own
adapter code too, over the same stand-ins, and compared node for node. It
proves nothing about WPF's behaviour: that is the Windows workflow's
``test_walker_live.py``, against the engine's own path.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

# On Windows the real WPF is there (and no mcs): test_walker_live.py compares the real walk instead.
pytestmark = pytest.mark.skipif(
    sys.platform == "win32",
    reason="Windows has no mcs to build the stand-ins, and its real WPF would clash with them; "
    "test_walker_live.py compares the real WPF walk there",
)


@pytest.fixture(scope="module")
def walked(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    mcs = shutil.which("mcs")
    if mcs is None:
        pytest.fail("mcs is not installed: it comes with mono-complete, which ./run installs", pytrace=False)
    out = tmp_path_factory.mktemp("wpf_stub") / "WpfStub.dll"
    subprocess.run([mcs, "-target:library", f"-out:{out}", str(HERE / "scripts" / "wpf_stub.cs")], check=True)
    env = {
        **os.environ,
        "MONO_THREADS_SUSPEND": "preemptive",
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, str(HERE / "scripts" / "wpf_walker_stub.py"), str(out)],
        capture_output=True, text=True, env=env, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _by_type(nodes: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {}
    for node in nodes:
        found.setdefault(node["type"], []).append(node)
    return found


def test_the_walk_compiles_and_describes_its_text_properties(walked: dict[str, Any]) -> None:
    from clr_runtimes import VARIABLE

    assert walked["runtime"] == os.environ.get(VARIABLE, "mono"), "on the runtime asked for (test_coreclr.py)"
    assert walked["ready"]
    assert walked["textProperties"] == [
        ["Title", "System.String"], ["Text", "System.String"], ["Header", "System.Object"], ["Content", "System.Object"],
        ["Item", "System.String"],
    ]  # fmt: skip


def test_the_walk_reads_what_a_tree_node_shows(walked: dict[str, Any]) -> None:
    nodes = walked["whole"]["nodes"]
    window, form = nodes[0], nodes[1]
    assert (window["type"], window["parent"], window["depth"], window["text"], window["accessKey"]) == (
        "Window", -1, 0, "Main _x", None,
    )  # fmt: skip
    assert window["automationId"] == "mainId" and window["children"] == 1
    assert (form["name"], form["parent"], form["depth"], form["children"]) == ("form", 0, 1, 60)
    save, plain, password, agree, maybe = nodes[2:7]
    assert (save["name"], save["text"], save["accessKey"], save["complete"]) == ("save", "Save As", "A", True)
    assert (plain["text"], plain["accessKey"]) == ("a_b", None)  # a TextBlock shows "_" as it is
    assert (agree["text"], agree["accessKey"], agree["checked"]) == ("Agree", "A", True)
    assert (maybe["checked"], maybe["complete"]) == (None, True)
    assert password["type"] == "PasswordBox" and not password["complete"] and password["text"] is None
    element_content = nodes[9]
    assert (element_content["type"], element_content["text"], element_content["complete"]) == ("Button", None, True)
    three_d = _by_type(nodes)["UIElement3D"][0]
    assert (three_d["visible"], three_d["enabled"], three_d["complete"]) == (True, False, True)
    # Breadth first: every row's label comes after every row.
    depths = [n["depth"] for n in nodes]
    assert depths == sorted(depths)
    assert [n["text"] for n in nodes if n["type"] == "Label" and n["complete"]] == [f"row {i}" for i in range(40)]


def test_elements_the_engine_reads_its_own_way_are_rich_and_their_text_is_not_read(walked: dict[str, Any]) -> None:
    nodes = walked["whole"]["nodes"]
    rich = {n["id"] for n in nodes if not n["complete"]}
    # A password box; a bound text; a Content that is no string; a hiding type; a list whose item count fails.
    expected = [nodes[i]["id"] for i in (4, 7, 8, 13)]
    expected += [n["id"] for n in nodes if n["type"] == "ItemsControl" and n["name"] is None]
    assert sorted(rich) == sorted(expected)
    assert [i for i, _depth in walked["whole"]["incomplete"]] == expected
    assert all(n["text"] is None for n in nodes if not n["complete"])


def test_a_container_a_list_box_item_and_a_combo_box_are_read_in_net(walked: dict[str, Any]) -> None:
    """Once all left to the engine: a generated container's text is its item's string, a combo box has its expansion."""
    nodes = walked["whole"]["nodes"]
    item, container = nodes[10], nodes[12]
    assert (item["type"], item["complete"], item["selected"], item["text"]) == ("ListBoxItem", True, False, None)
    assert (container["type"], container["complete"], container["text"]) == ("ContentControl", True, "an item")
    combo = _by_type(nodes)["ComboBox"][0]
    assert (combo["complete"], combo["expanded"], combo["selected"]) == (True, False, None)


def _items(walked: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any] | None]]:
    return list(zip(walked["items"]["walked"], walked["items"]["engine"], strict=True))


#: The containers of the items tree (``scripts/wpf_walker_stub.py``'s ``items_tree``) the walk reads in .NET.
READ_IN_NET = {
    "apple", "banana", "own", "checked", "wraps", "empty", "nothing", "fails", "one", "row_a", "home", "settings",
    "fruit", "pear", "closed", "leaf", "ticks", "file", "bold", "marked", "plain", "help", "more", "shut", "presented",
    "textRow", "combo",
}  # fmt: skip


def test_items_are_read_as_the_engines_own_path_reads_them(walked: dict[str, Any]) -> None:
    """The differential: every node the walk completes equals what ``_tree``/``_items``/``_properties`` read of it."""
    compared = 0
    for node, engine in _items(walked):
        if not node["complete"]:
            continue
        assert engine is not None
        shown = {k: v for k, v in node.items() if k != "complete"}
        expected = {k: v for k, v in engine.items() if k != "textProperty"}
        assert shown == expected, node["name"]
        compared += 1
    complete = {n["name"] for n, _ in _items(walked) if n["complete"]}
    assert complete >= READ_IN_NET, READ_IN_NET - complete
    assert compared > len(READ_IN_NET)


def test_item_states_and_texts_are_the_ones_items_show(walked: dict[str, Any]) -> None:
    """Spelled out for a few (the differential above holds the rest): selection, checks, expansion, access keys."""
    by_name = {n["name"]: n for n, _ in _items(walked)}

    def shown(name: str) -> tuple[Any, ...]:
        n = by_name[name]
        return n["text"], n["accessKey"], n["selected"], n["checked"], n["expanded"]

    assert shown("apple") == ("Apple", None, True, None, None)
    assert shown("banana") == ("Ba_nana", None, False, None, None)  # a list box item shows "_" as it is
    assert shown("checked") == (None, None, False, True, None)  # the check box it shows
    assert shown("home") == ("Home", "H", True, None, None)  # an item's string shows through a tab's AccessText
    assert shown("fruit") == ("Fruit", None, False, None, True)
    assert shown("leaf") == ("Leaf", None, False, None, None)  # no items: no expansion state
    assert shown("file") == ("File", "F", None, None, True)
    assert shown("marked") == ("Marked", None, None, True, None)  # checked though not checkable
    assert shown("combo")[4] is True and shown("more") == ("More", "M", None, None, True)
    assert shown("presented") == ("pre_sented", None, None, None, None)
    assert by_name["fails"]["faults"] == [["state", "System.InvalidOperationException", "IsSelected fails"]]


def test_item_texts_are_described_by_a_property_the_walk_lists(walked: dict[str, Any]) -> None:
    """The engine's redaction judges the walk's text properties as one: each complete node's must be among them."""
    listed = walked["textProperties"]
    for node, engine in _items(walked):
        if node["complete"] and engine is not None and engine["textProperty"] is not None:
            assert engine["textProperty"] in listed, node["name"]


def test_items_the_walk_cannot_read_exactly_are_left_to_the_engine(walked: dict[str, Any]) -> None:
    """A non-string item, a display or search path, an item format, a hiding class, a cell: rich, text unread."""
    rich = [n for n, _ in _items(walked) if not n["complete"]]
    assert sorted(n["name"] for n in rich) == sorted([*walked["items"]["rich"], "hidingList"])
    assert all(n["text"] is None for n in rich)


def test_lists_and_items_hosts_carry_the_total_the_adapter_gives(walked: dict[str, Any]) -> None:
    """``_ItemsAdapter.child_total``: a list's items over MAX_LISTED_ITEMS (1,000), and an items host's owner's
    items over the containers it holds; walked in .NET, no longer left to the engine."""
    nodes = walked["whole"]["nodes"]
    lists = {n["name"]: n for n in nodes if n["type"] == "ItemsControl" and n["name"]}
    assert [(n["total"], n["complete"], n["children"]) for n in lists.values()] == [
        (1500, True, 1), (None, True, 1), (None, True, 1),
    ]  # fmt: skip
    hosts = {nodes[n["parent"]]["name"]: n for n in nodes if n["parent"] >= 0 and nodes[n["parent"]]["name"] in lists}
    assert {name: (h["total"], h["complete"]) for name, h in hosts.items()} == {
        "list1500": (1500, True), "list10": (10, True), "list2": (None, True),
    }  # fmt: skip
    hosted = nodes[11]  # an items host with no owner: no total
    assert (hosted["type"], hosted["total"], hosted["complete"]) == ("StackPanel", None, True)


def test_a_read_that_throws_costs_that_read_only(walked: dict[str, Any]) -> None:
    broken, unreadable = walked["whole"]["nodes"][14:16]
    assert broken["faults"] == [
        ["naming", "System.NotSupportedException", "name fails"],
        ["children", "System.InvalidOperationException", "children fail"],
        ["state", "System.ArgumentException", "visible fails"],
    ]
    assert (broken["visible"], broken["children"], broken["name"]) == (True, 0, None)
    assert unreadable["faults"] == [["text", "System.InvalidOperationException", "value fails"]]


def test_slices_depth_and_cap(walked: dict[str, Any]) -> None:
    whole, sliced = walked["whole"], walked["sliced"]
    assert sliced["slices"] > 1 and sliced["nodes"] == whole["nodes"] and sliced["incomplete"] == whole["incomplete"]
    assert [n["depth"] for n in walked["shallow"]["nodes"]] == [0, 1]
    assert walked["shallow"]["nodes"][1]["children"] == 60  # counted, not walked
    assert len(walked["capped"]["nodes"]) == 5
    assert all(run["registered"] for run in (whole, sliced, walked["shallow"], walked["capped"]))
