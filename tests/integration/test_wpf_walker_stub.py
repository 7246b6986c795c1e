"""The WPF walk in .NET (toolkits/wpf/_walker.py) built, compiled and run here, over stand-in WPF types.

WPF does not exist on Linux, so ``scripts/wpf_stub.cs`` declares the WPF types
and members the walk names (same namespaces, names and signatures), compiled
with Mono's mcs; ``scripts/wpf_walker_stub.py`` walks a tree of them in a
process of its own (the stand-ins must not meet the real WPF or Mono's partial
WindowsBase). This proves the expression is well typed and compiles, and the
walk's own logic: breadth-first order, slices, the depth and node cap, rich
elements and the reads it never makes, texts and access keys, failed reads,
registered ids. It proves nothing about WPF's behaviour: that is the Windows
workflow's ``test_walker_live.py``, against the engine's own path.
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
    # A password box; a bound text; a Content that is no string; an item; an items host; a container; a hiding type.
    # A list whose item count fails and a combo box.
    expected = [nodes[i]["id"] for i in (4, 7, 8, 10, 12, 13)]
    expected += [n["id"] for n in nodes if n["type"] in ("ItemsControl", "ComboBox") and n["name"] is None]
    assert sorted(rich) == sorted(expected)
    assert [i for i, _depth in walked["whole"]["incomplete"]] == expected
    assert all(n["text"] is None for n in nodes if not n["complete"])


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
