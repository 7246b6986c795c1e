"""The package's shape, as a test: imports point down the layers and never go round in a circle.

Every import counts, also one inside a function or under ``TYPE_CHECKING``: a
lazy import hides a circle from Python, not from a reader. The layers are the
ones ``docs/architecture.md`` draws; a module may import its own layer and the
layers below it, never one above, and the engine never imports a toolkit.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"

#: Lowest first. A module belongs to the longest prefix that names it.
LAYERS: list[tuple[str, ...]] = [
    ("wpfprobe.core", "wpfprobe.errors", "wpfprobe.testing", "wpfprobe.examples"),
    ("wpfprobe.audit",),
    ("wpfprobe_clr",),
    ("wpfprobe.engine",),
    ("wpfprobe.api",),
    # The SDK-free MCP kernel, its stdio server and its HTTP endpoint (both eras): below the rest of
    # wpfprobe.mcp, so they stay free of the tools and of the SDK-bound server modules they replace.
    (
        "wpfprobe.mcp.jsonrpc",
        "wpfprobe.mcp.protocol",
        "wpfprobe.mcp.stdioserve",
        "wpfprobe.mcp.httpserve",
        "wpfprobe.mcp.handshake",
    ),
    ("wpfprobe.mcp",),
    ("wpfprobe.apps",),
    ("wpfprobe.broker",),
    ("wpfprobe.testkit",),
    ("wpfprobe.cli",),
    ("wpfprobe", "wpfprobe.__main__"),
]
#: Pairs that the order alone would allow but the design does not: the engine
#: knows no toolkit (an adapter is handed to it), and the toolkits know no engine.
FORBIDDEN = [("wpfprobe.engine", "wpfprobe_clr")]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in SRC.rglob("*.py") if "egg-info" not in str(p)}


def imports_of(name: str, path: Path, known: set[str]) -> Iterator[tuple[str, int]]:
    """(imported module, line) for every import in the file that names one of ours."""
    is_package = path.name == "__init__.py"
    package = name if is_package else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in ("wpfprobe", "wpfprobe_clr"):
                    yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            if target.split(".")[0] not in ("wpfprobe", "wpfprobe_clr"):
                continue
            for alias in node.names:
                # ``from pkg import module`` imports the module; ``from mod import name`` the module.
                sub = f"{target}.{alias.name}"
                yield (sub if sub in known else target), node.lineno


def layer_of(name: str) -> int:
    best, best_len = -1, -1
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (name == prefix or name.startswith(prefix + ".")) and len(prefix) > best_len:
                best, best_len = index, len(prefix)
    return best


def graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for name, path in mods.items():
        for target, _line in imports_of(name, path, known):
            if target != name:
                edges[name].add(target)
    return edges


def test_every_module_has_a_layer() -> None:
    orphans = [m for m in modules() if layer_of(m) < 0]
    assert not orphans, f"modules outside every layer (add them to LAYERS and docs/architecture.md): {orphans}"


def test_imports_point_down_the_layers() -> None:
    mods = modules()
    known = set(mods)
    upward = []
    for name, path in sorted(mods.items()):
        for target, line in imports_of(name, path, known):
            if layer_of(target) > layer_of(name):
                upward.append(f"{path.relative_to(SRC)}:{line} imports {target} (a layer above)")
            for low, high in FORBIDDEN:
                if (name + ".").startswith(low + ".") and (target + ".").startswith(high + "."):
                    upward.append(f"{path.relative_to(SRC)}:{line} imports {target} ({low} must not)")
    assert not upward, "\n".join(upward)


def strongly_connected(edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative; components of more than one module are circles."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in edges:
                    continue
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(edges[nxt]))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_circles() -> None:
    circles = strongly_connected(graph())
    assert not circles, "import circles: " + "; ".join(" <-> ".join(c) for c in circles)


@pytest.mark.parametrize(
    ("edges", "expected"),
    [
        ({"a": {"b"}, "b": {"a"}}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
        ({"a": {"b"}, "b": set()}, []),
    ],
)
def test_the_circle_finder_finds_circles(edges: dict[str, set[str]], expected: list[list[str]]) -> None:
    assert strongly_connected(edges) == expected


def test_the_layer_check_sees_an_upward_import(tmp_path: Path) -> None:
    assert layer_of("wpfprobe.engine.engine") < layer_of("wpfprobe.mcp.tools")
    assert layer_of("wpfprobe_clr.toolkits.winforms") < layer_of("wpfprobe.engine.engine")
    assert layer_of("wpfprobe.core.errors") == 0
    assert layer_of("wpfprobe.mcp.protocol") < layer_of("wpfprobe.mcp.server")


#: Modules that the app's MCP endpoint will serve without the MCP SDK: neither they nor any
#: module of ours they import (at any depth, lazily too) may import one of FORBIDDEN_LIBRARIES.
SDK_FREE = (
    "wpfprobe.mcp.catalog",
    "wpfprobe.mcp.protocol",
    "wpfprobe.mcp.jsonrpc",
    "wpfprobe.mcp.stdioserve",
    "wpfprobe.mcp.httpserve",
    "wpfprobe.mcp.handshake",
)
FORBIDDEN_LIBRARIES = ("mcp", "mcp_types", "starlette", "sse_starlette", "anyio")


def libraries_of(path: Path) -> Iterator[tuple[str, int]]:
    """(top-level package, line) of every absolute import in the file."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name.split(".")[0], node.lineno
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            yield node.module.split(".")[0], node.lineno


def test_the_sdk_free_modules_import_no_sdk() -> None:
    mods, edges = modules(), graph()
    found = []
    for root in SDK_FREE:
        seen, todo = set(), [root]
        while todo:
            name = todo.pop()
            if name in seen or name not in mods:
                continue
            seen.add(name)
            todo.extend(edges[name])
            for library, line in libraries_of(mods[name]):
                if library in FORBIDDEN_LIBRARIES:
                    found.append(f"{mods[name].relative_to(SRC)}:{line} imports {library} (reached from {root})")
    assert not found, "\n".join(found)
