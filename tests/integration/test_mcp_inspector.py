"""The official MCP Inspector CLI (pinned in tests/node/package.json) against the live server:
a client written by others, in another language, must list and call the tools."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

NODE_DIR = Path(__file__).resolve().parents[1] / "node"
INSPECTOR = NODE_DIR / "node_modules" / "@modelcontextprotocol" / "inspector"
BIN = NODE_DIR / "node_modules" / ".bin" / "mcp-inspector"
INSTALL_HINT = "run the README's test command (./run test), which installs Node.js packages with `npm ci` in tests/node"


def pinned_version() -> str:
    return json.loads((NODE_DIR / "package.json").read_text(encoding="utf-8"))["devDependencies"][
        "@modelcontextprotocol/inspector"
    ]


@pytest.fixture(scope="module")
def inspector() -> list[str]:
    node = shutil.which("node")
    if node is None:
        pytest.fail(f"Node.js is not installed: {INSTALL_HINT}.", pytrace=False)
    if not BIN.exists() or not (INSPECTOR / "package.json").exists():
        pytest.fail(
            f"The MCP Inspector is not installed in {NODE_DIR / 'node_modules'}: {INSTALL_HINT}.", pytrace=False
        )
    installed = json.loads((INSPECTOR / "package.json").read_text(encoding="utf-8"))["version"]
    if installed != pinned_version():
        pytest.fail(
            f"tests/node has inspector {installed}, package.json pins {pinned_version()}: {INSTALL_HINT}.",
            pytrace=False,
        )
    return [node, str(BIN)]


def run_cli(inspector: list[str], tmp_path: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    # A private home and catalog: the Inspector keeps state there, never in the user's.
    env = dict(os.environ, HOME=str(home), USERPROFILE=str(home), MCP_CATALOG_PATH=str(home / "mcp.json"))
    try:
        return subprocess.run(
            [*inspector, "--cli", *args],
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            env=env,
            cwd=NODE_DIR,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"mcp-inspector {' '.join(args[2:4])} did not finish within {timeout} s")


def cli_json(done: subprocess.CompletedProcess[str]) -> Any:
    assert done.returncode == 0, f"exit {done.returncode}\nstdout: {done.stdout[-2000:]}\nstderr: {done.stderr[-2000:]}"
    return json.loads(done.stdout)


def test_inspector_lists_the_tools(inspector: list[str], mcp_server: Any, tmp_path: Path) -> None:
    done = run_cli(
        inspector, tmp_path, mcp_server.url, "--transport", "http", "--method", "tools/list",
        "--header", f"Authorization: Bearer {mcp_server.token}",
    )  # fmt: skip
    listed = cli_json(done)
    names = {t["name"] for t in listed["tools"]}
    assert names == {
        "wpf_get_session_info",
        "wpf_get_windows",
        "wpf_get_visual_tree",
        "wpf_get_children",
        "wpf_get_ancestors",
        "wpf_find_elements",
        "wpf_inspect_element",
        "wpf_get_properties",
        "wpf_capture_screenshot",
        "wpf_get_binding_info",
        "wpf_run_diagnostics",
        "wpf_get_resources",
        "wpf_get_triggers",
        "wpf_get_behaviors",
        "wpf_get_app_events",
        "wpf_generate_locator",
    }
    assert all(t.get("outputSchema") for t in listed["tools"])


def test_inspector_calls_a_tool(inspector: list[str], mcp_server: Any, tmp_path: Path) -> None:
    done = run_cli(
        inspector, tmp_path, mcp_server.url, "--transport", "http", "--method", "tools/call",
        "--tool-name", "wpf_get_windows", "--header", f"Authorization: Bearer {mcp_server.token}",
    )  # fmt: skip
    result = cli_json(done)
    assert result["isError"] is False
    assert "mainWindow" in result["content"][0]["text"]
    assert result["structuredContent"]["windows"][0]["name"] == "mainWindow"


def test_inspector_passes_tool_arguments(inspector: list[str], mcp_server: Any, tmp_path: Path) -> None:
    done = run_cli(
        inspector, tmp_path, mcp_server.url, "--transport", "http", "--method", "tools/call",
        "--tool-name", "wpf_find_elements", "--tool-arg", "locator=Button#saveButton",
        "--header", f"Authorization: Bearer {mcp_server.token}",
    )  # fmt: skip
    result = cli_json(done)
    assert [r["node"]["name"] for r in result["structuredContent"]["results"]] == ["saveButton"]


def test_inspector_without_the_token_gets_nothing(inspector: list[str], mcp_server: Any, tmp_path: Path) -> None:
    done = run_cli(
        inspector, tmp_path, mcp_server.url, "--transport", "http", "--method", "tools/list",
        "--header", "Authorization: Bearer wrong-token",
    )  # fmt: skip
    assert done.returncode != 0
    assert "wpf_get_windows" not in done.stdout
    assert mcp_server.token not in done.stdout + done.stderr


def test_the_pin_is_exact_and_locked() -> None:
    version = pinned_version()
    assert version[0].isdigit() and all(part.isdigit() for part in version.split(".")), "an exact version, no range"
    lock = json.loads((NODE_DIR / "package-lock.json").read_text(encoding="utf-8"))
    assert lock["packages"]["node_modules/@modelcontextprotocol/inspector"]["version"] == version
    assert sys.version_info >= (3, 10)
