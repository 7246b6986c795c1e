"""Re-run the survey of docs/compatibility.md: public pythonnet WinForms apps under `wpfprobe run`.

    python benchmarks/survey_outside_apps.py --checkouts DIR [--fetch] [--out DIR] [APP ...]

Nothing of theirs is in this repository. Each app is named by its GitHub
repository and a path in it; ``--checkouts DIR`` is where the repositories
are (``DIR/owner+name/``), and ``--fetch`` clones the missing ones there with
git (network needed, so this is not part of ``./run test``). Each app runs
unmodified under ``wpfprobe run --allow interact`` on a private Xvfb, and is
driven through ``wpfprobe mcp`` with the MCP SDK's stdio client, one step
list per app: the calls an agent would make (windows, tree, find, click,
type, select, a screenshot). Per app, ``--out`` gets the log of every call
(``calls.json``), the screenshots and the app's stderr; ``summary.json`` and
the printed table say, per app, whether it came up and which steps failed.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
START_SECONDS = 90.0

Step = tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class App:
    """One public app: where it lives, and what an agent does with it."""

    name: str
    repo: str
    path: str
    steps: list[Step] = field(default_factory=list)
    #: The commit surveyed, when the repository's head is no longer the WinForms app.
    commit: str | None = None
    #: The app's own scripts run (with python, in the script's folder) before it starts.
    setup: tuple[str, ...] = ()


BASIC: list[Step] = [
    ("wpf_get_windows", {}),
    ("wpf_get_visual_tree", {"format": "text", "maxDepth": 8}),
    ("wpf_find_elements", {"locator": "*", "maxResults": 100}),
    ("wpf_run_diagnostics", {}),
    ("wpf_capture_screenshot", {}),
]

APPS = [
    App(
        "helloform",
        "pythonnet/pythonnet",
        "demo/helloform.py",
        [
            *BASIC,
            ("wpf_type_text", {"locator": "TextBox", "text": "typed by wpfprobe"}),
            ("wpf_click", {"locator": "Button"}),
            ("wpf_capture_screenshot", {}),
            ("wpf_click", {"locator": 'text="OK"'}),
        ],
    ),
    App(
        "splitter",
        "pythonnet/pythonnet",
        "demo/splitter.py",
        [
            *BASIC,
            ("wpf_type_text", {"locator": "RichTextBox", "text": "hello from the probe"}),
            ("wpf_select", {"locator": "ListViewItem"}),
            ("wpf_select", {"locator": "TreeView", "item": "TreeView"}),
        ],
    ),
    App(
        "wordpad",
        "pythonnet/pythonnet",
        "demo/wordpad.py",
        [
            *BASIC,
            ("wpf_click", {"locator": 'text="Word Wrap"'}),
            ("wpf_type_text", {"locator": "RichTextBox", "text": "The quick brown fox"}),
            ("wpf_send_keys", {"keys": "Ctrl+A"}),
            ("wpf_get_properties", {"locator": "RichTextBox", "filter": "WordWrap"}),
            ("wpf_click", {"locator": "menu:Help/About"}),
            ("wpf_capture_screenshot", {}),
            ("wpf_click", {"locator": "#bnClose"}),
        ],
    ),
    App(
        "normzad",
        "nikll123/normzad",
        "guiMain.py",
        commit="98ad824f7285c7e10e7a3259b4173810ee22d11e",  # head has moved on to tkinter
        setup=("db.py",),  # creates its SQLite database with the app's own test data
        steps=[
            *BASIC,
            ("wpf_click", {"locator": 'text="Справочники"'}),
            ("wpf_click", {"locator": 'text="Должности"'}),
            ("wpf_get_visual_tree", {"format": "text", "maxDepth": 7}),
            ("wpf_select", {"locator": "DataGridView", "index": 2}),
            ("wpf_click", {"locator": 'text="Добавить"'}),
            ("wpf_type_text", {"locator": "#txt/TextBox", "text": "Сварщик"}),
            ("wpf_capture_screenshot", {}),
            ("wpf_click", {"locator": 'text="Сохранить"'}),
            ("wpf_find_elements", {"locator": "DataGridViewRow"}),
            ("wpf_capture_screenshot", {}),
        ],
    ),
    App("fundamental", "terasakisatoshi/pythonCodes", "ironPython/windows/fundamental.py", BASIC),
    # IronPython-era scripts: kept in the survey to show what happens to them under pythonnet 3.
    App("calico-winforms", "jarulsamy/calicolrc", "examples/python/Misc/winforms.py", BASIC),
    App("simplecalc", "stevenpena2025/Programming-1", "prog140SimpleCalc/prog140SimpleCalc/Program.py", BASIC),
    App("uia2atk-listbox", "mono/uia2atk", "test/samples/winforms/listbox.py", BASIC),
]


def checkout(app: App, checkouts: Path, *, fetch: bool) -> Path | None:
    where = checkouts / app.repo.replace("/", "+")
    if not where.exists() and fetch:
        url = f"https://github.com/{app.repo}.git"
        subprocess.run(
            ["git", "clone", *(["--depth", "1"] if app.commit is None else []), url, str(where)], check=False
        )
        if app.commit is not None:
            subprocess.run(["git", "-C", str(where), "checkout", "-q", app.commit], check=False)
    script = where / app.path
    if not script.exists():
        return None
    for helper in app.setup:
        subprocess.run([sys.executable, helper], cwd=script.parent, check=False)
    return script


class Session:
    """One app under `wpfprobe run` and one `wpfprobe mcp` broker, with their own WPFPROBE_HOME."""

    def __init__(self, app: App, script: Path, out: Path) -> None:
        self.app, self.script, self.out = app, script, out
        self.home = Path(tempfile.mkdtemp(prefix=f"survey-{app.name}-"))
        self.env = {**os.environ, "WPFPROBE_HOME": str(self.home), "PYTHONPATH": str(ROOT / "src")}
        self.calls: list[dict[str, Any]] = []
        self.shots = 0

    async def run(self) -> dict[str, Any]:
        from mcp import Client, StdioServerParameters
        from mcp.client.stdio import stdio_client

        self.out.mkdir(parents=True, exist_ok=True)
        stderr = (self.out / "app.stderr").open("w")
        argv = [sys.executable, "-m", "wpfprobe", "run", "--allow", "interact", "--name", self.app.name]
        proc = subprocess.Popen(
            [*argv, str(self.script)], cwd=self.script.parent, env=self.env,
            stdout=subprocess.DEVNULL, stderr=stderr, start_new_session=True,
        )  # fmt: skip
        summary: dict[str, Any] = {"app": self.app.name, "repo": self.app.repo, "path": self.app.path}
        params = StdioServerParameters(command=sys.executable, args=["-m", "wpfprobe", "mcp"], env=self.env)
        try:
            with (self.out / "broker.stderr").open("w") as errlog:
                async with Client(stdio_client(params, errlog=errlog)) as client:
                    started = time.monotonic()
                    summary["started"] = await self._wait_for_app(client, proc)
                    summary["startSeconds"] = round(time.monotonic() - started, 1)
                    if summary["started"]:
                        for tool, args in self.app.steps:
                            await self._call(client, tool, args)
        finally:
            summary["endedByItself"] = proc.poll() is not None
            if proc.poll() is None:
                os.killpg(proc.pid, 15)
                try:
                    proc.wait(15)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, 9)
                    proc.wait(10)
            stderr.close()
        summary["exitStatus"] = proc.returncode
        summary["failedSteps"] = [
            f"{c['tool']} {json.dumps(c['args'], ensure_ascii=False)}" for c in self.calls if c["isError"]
        ]
        summary["stderrTail"] = (self.out / "app.stderr").read_text(errors="replace")[-600:]
        (self.out / "calls.json").write_text(json.dumps(self.calls, indent=1, ensure_ascii=False, default=str))
        return summary

    async def _wait_for_app(self, client: Any, proc: subprocess.Popen[bytes]) -> bool:
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                return False  # it ended: its stderr says why
            result = await client.call_tool("wpf_list_apps", {})
            if (result.structured_content or {}).get("apps"):
                return True
            await asyncio.sleep(0.5)
        return False  # up, but no window appeared

    async def _call(self, client: Any, tool: str, args: dict[str, Any]) -> None:
        started = time.monotonic()
        result = await client.call_tool(tool, {"app": self.app.name, **args})
        entry: dict[str, Any] = {
            "tool": tool, "args": args, "isError": bool(result.is_error),
            "ms": round((time.monotonic() - started) * 1000),
            "text": "\n".join(b.text for b in result.content if b.type == "text"),
        }  # fmt: skip
        if result.is_error:
            entry["error"] = result.structured_content
        for block in result.content:
            if block.type == "image":
                shot = self.out / f"shot{self.shots}.png"
                shot.write_bytes(base64.b64decode(block.data))
                entry["screenshot"] = str(shot)
                self.shots += 1
        self.calls.append(entry)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("apps", nargs="*", help="app names (default: all)")
    parser.add_argument("--checkouts", type=Path, required=True, help="where the repositories are (owner+name)")
    parser.add_argument("--fetch", action="store_true", help="git clone the repositories that are missing")
    parser.add_argument("--out", type=Path, default=Path("survey-out"), help="logs and screenshots")
    options = parser.parse_args()
    unknown = set(options.apps) - {a.name for a in APPS}
    if unknown:
        parser.error(f"no such app: {', '.join(sorted(unknown))} (known: {', '.join(a.name for a in APPS)})")
    wanted = [a for a in APPS if not options.apps or a.name in options.apps]

    sys.path.insert(0, str(ROOT / "src"))
    from wpfprobe.testing import virtual_display

    summaries = []
    with virtual_display():
        for app in wanted:
            script = checkout(app, options.checkouts, fetch=options.fetch)
            if script is None:
                summaries.append({"app": app.name, "repo": app.repo, "path": app.path, "started": None})
                print(f"{app.name}: no checkout of {app.repo} under {options.checkouts}")
                continue
            summary = asyncio.run(Session(app, script, options.out / app.name).run())
            summaries.append(summary)
            failed = summary["failedSteps"]
            if summary["started"]:
                print(f"{app.name}: up; {len(app.steps) - len(failed)}/{len(app.steps)} steps ok", *failed)
            elif summary["endedByItself"]:
                print(
                    f"{app.name}: ended before showing a window, exit status {summary['exitStatus']} (see its stderr)"
                )
            else:
                print(f"{app.name}: still running, but no window within {START_SECONDS:.0f} s")
    options.out.mkdir(parents=True, exist_ok=True)
    (options.out / "summary.json").write_text(json.dumps(summaries, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
