"""The WPF adapter package is whole: every name a module uses is bound, every import between modules resolves.

WPF cannot run here and the adapter's code cannot be exercised, so a name
left behind when code moved between the package's modules would only fail on
Windows. These tests read the modules with ``ast``: every name a module loads
must be bound in it (defined, assigned or imported) or be a builtin, as
ruff's F821 says per scope; and, which no linter checks, every name imported
from a module of the package must be bound there, outside the
``if _WPF_LOAD_ERROR is None:`` block that only runs where WPF loads (a name
bound only there cannot be imported on Linux, where the package must still
import for auto-detection).
"""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
PACKAGE = SRC / "wpfprobe_clr" / "toolkits" / "wpf"
PACKAGE_NAME = "wpfprobe_clr.toolkits.wpf"
MODULES = sorted(PACKAGE.glob("*.py"))

# What the single-module adapter offered before it became a package; other code imports these.
PUBLIC_NAMES = (
    "WpfAdapter",
    "connect",
    "find_app",
    "is_wpf_object",
    "BindingTraceListener",
    "install_binding_trace",
    "parse_binding_trace",
    "record_binding_trace",
)


def module_name(path: Path) -> str:
    return PACKAGE_NAME if path.name == "__init__.py" else f"{PACKAGE_NAME}.{path.stem}"


def parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def bound_anywhere(tree: ast.Module) -> set[str]:
    """Every name the module binds in any scope (loose on scopes: ruff's F821 is exact on them)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update(alias.asname or alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names


def lazy_homes(tree: ast.Module) -> dict[str, str]:
    """``_HOMES``, name -> module, of a package whose ``__getattr__`` imports a name on first use."""
    if not any(isinstance(s, ast.FunctionDef) and s.name == "__getattr__" for s in tree.body):
        return {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "_HOMES" for t in stmt.targets):
            value = ast.literal_eval(stmt.value)
            assert isinstance(value, dict)
            return {str(k): str(v) for k, v in value.items()}
    return {}


def bound_unconditionally(tree: ast.Module) -> set[str]:
    """Names the module binds at its top level whether WPF loads or not (not inside an ``if``),
    and those its ``__getattr__`` offers (``lazy_homes``: checked by a test of its own)."""
    names: set[str] = set(lazy_homes(tree))
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(stmt.name)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            names.update(alias.asname or alias.name.split(".")[0] for alias in stmt.names)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return names


def test_the_adapter_is_a_package_of_modules() -> None:
    assert not (PACKAGE.parent / "wpf.py").exists(), "wpf.py and the wpf package would shadow each other"
    assert (PACKAGE / "__init__.py") in MODULES
    assert len(MODULES) >= 10, MODULES


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_every_name_a_module_loads_is_bound_or_a_builtin(path: Path) -> None:
    tree = parse(path)
    loaded = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    missing = loaded - bound_anywhere(tree) - set(dir(builtins))
    assert not missing, f"{path.name} uses names it neither defines nor imports: {sorted(missing)}"


def imports_from_the_package(paths: list[Path]) -> list[tuple[Path, int, str, str]]:
    """(file, line, module, name) of every ``from wpfprobe_clr.toolkits.wpf[.x] import name`` in ``paths``."""
    found: list[tuple[Path, int, str, str]] = []
    for path in paths:
        for node in ast.walk(parse(path)):
            if not isinstance(node, ast.ImportFrom) or node.level or not node.module:
                continue
            if node.module == PACKAGE_NAME or node.module.startswith(PACKAGE_NAME + "."):
                found.extend((path, node.lineno, node.module, alias.name) for alias in node.names)
    return found


def test_every_import_from_the_package_names_what_its_module_binds_everywhere() -> None:
    exported = {module_name(path): bound_unconditionally(parse(path)) for path in MODULES}
    # The package's own modules, and everything else in the project that imports from it.
    users = [*MODULES, *sorted(SRC.rglob("*.py"))]
    for folder in ("tests", "examples", "benchmarks"):
        # Not the npm packages under tests/node: Node's own tarball ships Python debugger scripts.
        users += sorted(p for p in (ROOT / folder).rglob("*.py") if "node_modules" not in p.parts)
    imports = imports_from_the_package(sorted(set(users)))
    assert len(imports) > 50, "the package's modules import from each other: the scan found too little"
    problems = []
    for path, line, module, name in imports:
        where = f"{path.relative_to(ROOT)}:{line}"
        if module not in exported:
            problems.append(f"{where}: no module {module}")
        elif f"{module}.{name}" in exported:
            continue  # a submodule
        elif name not in exported[module]:
            problems.append(f"{where}: {module} does not bind {name} outside `if _WPF_LOAD_ERROR is None:`")
    assert not problems, "\n".join(problems)


def test_the_names_other_code_imports_are_still_offered_by_the_package() -> None:
    offered = bound_unconditionally(parse(PACKAGE / "__init__.py"))
    assert set(PUBLIC_NAMES) <= offered, sorted(set(PUBLIC_NAMES) - offered)


def test_the_names_the_package_offers_on_first_use_are_bound_where_it_imports_them() -> None:
    """``wpfprobe.start()`` imports the package before it returns: its ``__getattr__`` imports the
    adapter's modules only when a name of theirs is asked for (``_HOMES``)."""
    homes = lazy_homes(parse(PACKAGE / "__init__.py"))
    assert {"WpfAdapter", "connect"} <= set(homes), homes
    for name, home in homes.items():
        assert name in bound_unconditionally(parse(PACKAGE / f"{home}.py")), f"{home} does not bind {name}"
