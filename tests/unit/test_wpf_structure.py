"""The WPF adapter's structure counting (``toolkits/wpf/_structure.py``), as far as it runs without WPF.

WPF cannot run here, so: the members it names by a string (which the surface
checker cannot see) are checked against wpf-api.tsv, with a negative case
showing a wrong name is caught; its counting handler, which is plain .NET, is
compiled and run on the CLR here; and the adapter is checked to use it. The
live behaviour is tests/integration/test_wpf_structure_live.py (Windows only).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import wpf_surface  # noqa: E402

MODULE = wpf_surface.REPO_ROOT / "src" / "wpfprobe_clr" / "toolkits" / "wpf" / "_structure.py"
# Reflection and expression lookups whose string arguments name WPF members.
_BY_NAME_CALLS = frozenset(
    {"_event", "GetEvent", "GetProperty", "GetMethod", "GetField", "prop", "call", "method", "static_call"}
)


@pytest.fixture(scope="module")
def api() -> wpf_surface.WpfApi:
    return wpf_surface.load_api()


def problems(api: wpf_surface.WpfApi, table: tuple[tuple[str, str, str], ...]) -> list[str]:
    """Why each (type, member, kind) row is not public API in wpf-api.tsv; empty if all are."""
    found: list[str] = []
    for type_name, member, kind in table:
        if type_name not in api.types:
            found.append(f"{type_name}: no such WPF type")
            continue
        members, _ = api.find_members(type_name, member)
        if not any(m.kind == kind and m.is_public for m in members):
            found.append(f"{type_name}.{member}: no public {kind} of that name")
    return found


def table() -> tuple[tuple[str, str, str], ...]:
    from wpfprobe_clr.toolkits.wpf import _structure

    return _structure.WPF_MEMBERS_BY_NAME


def test_members_named_by_string_are_public_wpf_api(api: wpf_surface.WpfApi) -> None:
    assert table()
    assert problems(api, table()) == []


def test_a_wrong_member_name_kind_or_type_is_caught(api: wpf_surface.WpfApi) -> None:
    assert problems(api, (("System.Windows.UIElement", "LayoutChanged", "event"),))
    assert problems(api, (("System.Windows.UIElement", "LayoutUpdated", "property"),))
    assert problems(api, (("System.Windows.UIElementX", "LayoutUpdated", "event"),))
    # Members are found on the type's bases too, as pythonnet finds them.
    assert problems(api, (("System.Windows.Controls.Button", "LayoutUpdated", "event"),)) == []


def test_every_member_the_module_looks_up_by_name_is_in_its_table() -> None:
    """No lookup by a string escapes the table: literals must be listed, names must come from it."""
    from wpfprobe_clr.toolkits.wpf import _structure

    listed = {member for _, member, _ in table()}
    tree = ast.parse(MODULE.read_text(encoding="utf-8"))
    lookups = 0
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)) not in _BY_NAME_CALLS:
            continue
        for arg in node.args:
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                lookups += 1
                assert arg.value in listed, f"line {node.lineno}: {arg.value!r} is not in WPF_MEMBERS_BY_NAME"
            elif isinstance(arg, ast.Name) and isinstance(getattr(_structure, arg.id, None), str):
                lookups += 1
                assert getattr(_structure, arg.id) in listed, f"line {node.lineno}: {arg.id} is not from the table"
    assert lookups >= len(table())  # the scan sees every lookup the table lists


def test_the_counting_handler_adds_one_per_call_in_net() -> None:
    from System import Array, EventArgs, Int32

    from wpfprobe_clr.toolkits.wpf._structure import counting_handler

    counter = Array.CreateInstance(Int32, 1)
    handler = counting_handler(counter)
    for _ in range(3):
        handler.Invoke(None, EventArgs.Empty)
    assert int(counter[0]) == 3
    # The delegate closes over the counter only (no Python target): nothing else is kept alive.
    assert handler.Target is not None and "Closure" in str(handler.Target.GetType().Name)


def test_the_adapter_counts_through_the_structure_watch() -> None:
    """No other mixin answers these before the structure watch, wherever the mixins are listed."""
    from wpfprobe_clr.toolkits.wpf import WpfAdapter
    from wpfprobe_clr.toolkits.wpf._structure import _StructureMixin

    assert WpfAdapter.structure_version is _StructureMixin.structure_version
    assert WpfAdapter.watch_structure is _StructureMixin.watch_structure
