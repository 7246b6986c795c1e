"""Every ```python block in the README and docs/ runs against the live example app."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def _blocks() -> list[Any]:
    found = []
    for doc in DOCS:
        for i, match in enumerate(BLOCK.finditer(doc.read_text(encoding="utf-8"))):
            found.append(pytest.param(doc, match.group(1), id=f"{doc.relative_to(ROOT)}#{i}"))
    return found


def test_the_docs_have_examples() -> None:
    assert len(_blocks()) >= 3


@pytest.mark.parametrize(("doc", "code"), _blocks())
def test_doc_example_runs(doc: Path, code: str, running_app: Any, probe: Any) -> None:
    from wpfprobe.mcp import custom as _custom

    namespace = {"form": running_app.app, "app": running_app.app, "probe": probe}
    before = {t.name for t in _custom.registered()}
    try:
        exec(compile(code, str(doc), "exec"), namespace)
    finally:
        # A custom tool an example registers must not be served by later tests' probes.
        for registered in _custom.registered():
            if registered.name not in before:
                _custom.unregister(registered.name)
