"""Every ```python block in the README and docs/ runs against the live example app."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Recipes that start an app of their own, from loading the runtime: their blocks are the cells of one
#: notebook, run in order in a fresh interpreter (the shared example app has loaded the runtime here).
OWN_PROCESS = [ROOT / "docs" / "notebook.md"]
DOCS = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").glob("*.md") if p not in OWN_PROCESS)]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


@pytest.mark.parametrize("doc", OWN_PROCESS, ids=[p.name for p in OWN_PROCESS])
def test_a_recipe_runs_as_a_notebook_would_in_a_process_of_its_own(doc: Path, display: str | None) -> None:
    import os
    import subprocess
    import sys

    cells = BLOCK.findall(doc.read_text(encoding="utf-8"))
    assert len(cells) >= 2
    script = "\n\n".join(cells) + "\nprint('the recipe ran to its end')\n"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0 and "the recipe ran to its end" in done.stdout, done.stdout + done.stderr


def _blocks() -> list[Any]:
    found = []
    for doc in DOCS:
        for i, match in enumerate(BLOCK.finditer(doc.read_text(encoding="utf-8"))):
            found.append(pytest.param(doc, match.group(1), id=f"{doc.relative_to(ROOT)}#{i}"))
    return found


def test_the_docs_have_examples() -> None:
    assert len(_blocks()) >= 3


#: What an example that starts a probe of its own runs in first: the example app, shown, as ``form``.
#: Such an example runs in a process of its own, as its reader's would: one probe is started per
#: process, and this one's may be the session's MCP server (conftest's ``mcp_server``), so run here
#: the example depended on the test order (it failed after any test that used that server).
OWN_APP = """
import sys
sys.path.insert(0, {scripts!r})
from example_app import load_example
_running = load_example().start_in_background()
form = app = _running.app
"""


def _run_with_its_own_app(doc: Path, code: str) -> None:
    import os
    import subprocess
    import sys

    script = OWN_APP.format(scripts=str(Path(__file__).parent / "scripts")) + code
    script += "\n_running.close()\nprint('the example ran to its end')\n"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0 and "the example ran to its end" in done.stdout, (
        f"{doc.name}: {done.stdout[-2000:]}{done.stderr[-3000:]}"
    )


@pytest.mark.parametrize(("doc", "code"), _blocks())
def test_doc_example_runs(doc: Path, code: str, running_app: Any, probe: Any) -> None:
    from wpfprobe.mcp import custom as _custom

    if "wpfprobe.start(" in code:
        _run_with_its_own_app(doc, code)
        return

    namespace = {"form": running_app.app, "app": running_app.app, "probe": probe}
    before = {t.name for t in _custom.registered()}
    try:
        exec(compile(code, str(doc), "exec"), namespace)
    finally:
        # A custom tool an example registers must not be served by later tests' probes.
        for registered in _custom.registered():
            if registered.name not in before:
                _custom.unregister(registered.name)
