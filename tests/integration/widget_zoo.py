"""The widget zoo (examples/zoo_app.py) for the tests: loading it, and comparing a bare walk with the probe's tree.

``load`` imports the example by path, as ``python examples/zoo_app.py`` would
run it. ``missing`` is the differential check: every node of a bare pythonnet
walk (``bare_walk.walk``) must be in the probe's tree under the node that
matches its parent, whether the tree came from the Python API or as JSON
through MCP. A node is matched by type and name, in order among its siblings,
so two unnamed buttons side by side are told apart by their order.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

#: The size of the zoo the tests run: a grid of a few thousand rows, a list of a few hundred items.
ROWS = 3000
ITEMS = 200

ZOO_APP = Path(__file__).resolve().parents[2] / "examples" / "zoo_app.py"


def load() -> Any:
    """The zoo_app module (once per process: it defines .NET types, which cannot be defined twice)."""
    name = "example_zoo_app"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ZOO_APP)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


class ZooBeside:
    """The zoo shown on another app's UI thread (the example's, in the tests): ``app``, ``zoo``, ``invoke``, ``close``.

    On Mono a second WinForms message loop in the process takes the first one down
    when it ends, so the tests never give the zoo a UI thread of its own while the
    example runs; items_app.py is shown the same way, for the same reason.
    """

    toolkit = "winforms"

    def __init__(self, host: Any, rows: int, items: int) -> None:
        module = load()
        self._host = host
        self.zoo = host.invoke(lambda: module.build(rows=rows, items=items))
        self.app = self.zoo.form
        host.invoke(lambda: self.zoo.form.Show())

    def invoke(self, fn: Any) -> Any:
        return self._host.invoke(fn)

    def close(self) -> None:
        def close() -> None:
            self.zoo.form.Close()  # its FormClosing closes the Find and Documents windows too
            for form in (self.zoo.find_window, self.zoo.documents_window, self.zoo.form):
                if not form.IsDisposed:
                    form.Dispose()

        self._host.invoke(close)


def _key(node: dict[str, Any]) -> tuple[str, str]:
    return (str(node["type"]), str(node.get("name") or ""))


def missing(bare: dict[str, Any], tree: dict[str, Any], path: str = "") -> list[str]:
    """What of ``bare`` is not in ``tree`` (nodes with type, name, children), each as its path; [] when all is."""
    here = f"{path}/{bare['type']}#{bare['name']}"
    if _key(bare) != _key(tree):
        return [f"{here} (the tree has {tree['type']}#{tree.get('name')} there)"]
    lost: list[str] = []
    kids = list(tree.get("children") or [])
    start = 0
    for child in bare["children"]:
        at = next((i for i in range(start, len(kids)) if _key(kids[i]) == _key(child)), None)
        if at is None:
            lost.append(f"{here}/{child['type']}#{child['name']}")
            continue
        lost.extend(missing(child, kids[at], here))
        start = at + 1
    return lost


def count(node: dict[str, Any]) -> int:
    return 1 + sum(count(kid) for kid in node.get("children") or [])
