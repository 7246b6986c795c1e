"""What an agent did on the widget zoo becomes a test, and a changed zoo fails it with a trace page.

An agent's MCP session goes through the broker with ``--record`` (launch the
zoo from a profile, click, toggle, pick a radio button by node id, switch a
tab, type, wait, and one click on nothing). ``wpfprobe codegen`` turns the
recording into a scenario and a pytest module; both pass on the zoo. On a
build of the zoo whose word-wrap check box reports something else
(scripts/zoo_variant.py, ``ZOO_VARIANT=changed``) both fail at that step,
each with a ticket whose ``trace.html`` is opened in headless Chromium: it
renders from disk, asks the network for nothing, selects the diverging step
and shows its screenshot, its failure and the tree around it.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
VARIANT = ROOT / "tests" / "integration" / "scripts" / "zoo_variant.py"
sys.path.insert(0, str(ROOT / "tests" / "unit"))
from chromium import open_page  # noqa: E402

sys.path.remove(str(ROOT / "tests" / "unit"))

pytestmark = [pytest.mark.toolkit("winforms"), pytest.mark.timeout(900)]
SMALL = ["--rows", "40", "--items", "20"]


def env(display: str | None, **more: str) -> dict[str, str]:
    out = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    if display:
        out["DISPLAY"] = display
    return {**out, **more}


def wpfprobe(*args: str, display: str | None, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wpfprobe", *args], cwd=cwd, env=env(display), capture_output=True, text=True,
        timeout=600, check=False,
    )  # fmt: skip


def stop_group(pid: int) -> None:
    import psutil

    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pid, sig)
            psutil.Process(pid).wait(10)
            return
        except (ProcessLookupError, psutil.NoSuchProcess, PermissionError):
            return
        except psutil.TimeoutExpired:
            continue


@pytest.fixture(scope="module")
def recorded(wpfprobe_home: Path, display: str | None, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The zoo and its changed build saved as profiles, and an agent's session on the zoo recorded by the broker."""
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    from wpfprobe.apps.profiles import add_profile, new_profile

    work = tmp_path_factory.mktemp("codegen")
    src = {"PYTHONPATH": str(ROOT / "src")}
    command = [sys.executable, str(VARIANT), *SMALL]
    add_profile(new_profile("zoo", command, cwd=ROOT, allow="interact", env=src), replace=True)
    add_profile(
        new_profile("zoo-changed", command, cwd=ROOT, allow="interact", env={**src, "ZOO_VARIANT": "changed"}),
        replace=True,
    )
    record = work / "record"
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "wpfprobe", "mcp", "--record", str(record), "--artifacts", str(work / "agent")],
        env=env(display), cwd=str(ROOT),
    )  # fmt: skip
    launched: list[int] = []

    async def agent() -> dict[str, Any]:
        async with Client(stdio_client(params, errlog=(work / "broker.log").open("a"))) as client:

            async def call(tool: str, **arguments: Any) -> Any:
                return await client.call_tool(tool, arguments)

            async def ok(tool: str, **arguments: Any) -> dict[str, Any]:
                result = await call(tool, **arguments)
                assert not result.is_error, (tool, result.structured_content)
                return result.structured_content  # type: ignore[no-any-return]

            app = await ok("wpf_launch_app", profile="zoo", allow="interact", timeoutSeconds=120)
            launched.append(app["pid"])
            hello = await ok("wpf_click", locator='text="Say hello"')
            await ok("wpf_toggle", locator="#wrapCheck")
            large = (await ok("wpf_find_elements", text="Large", typeName="RadioButton"))["results"][0]["node"]
            radio = await ok("wpf_click", nodeId=large["nodeId"])
            await ok("wpf_select", locator="#zooTabs", item="Text")
            await ok("wpf_type_text", locator="#visitorBox", text="Grace")
            await ok("wpf_wait_for", locator="#welcomeLabel", condition="textMatches", value="Grace")
            refused = await call("wpf_click", locator="#noSuchButton")
            assert refused.is_error
            exported = await ok("wpf_export_scenario", format="yaml")
            return {"hello": hello, "radio": radio, "exported": exported}

    try:
        answers = asyncio.run(asyncio.wait_for(agent(), 400))
    finally:
        for pid in launched:
            stop_group(pid)
    (steps,) = record.glob("*/steps.jsonl")
    return {"work": work, "session": steps.parent, **answers}


def test_each_action_answered_with_its_step_and_python_line_and_the_session_kept_its_looks(
    recorded: dict[str, Any],
) -> None:
    hello, radio = recorded["hello"]["redo"], recorded["radio"]["redo"]
    assert hello == {
        "locator": "Button#helloButton",
        "step": '{action: click, locator: "Button#helloButton"}',
        "python": 'probe.locator("Button#helloButton").click()',
    }
    assert radio["locator"] == "RadioButton#largeRadio", "named by node id, kept by name"
    session = recorded["session"]
    lines = [json.loads(line) for line in (session / "steps.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [s["action"] for s in lines] == ["click", "toggle", "click", "select", "type_text", "wait_for", "click"]
    assert all(s.get("tree") and s.get("screenshot") for s in lines[:6])
    status = [e for e in lines[0].get("effects", []) if e["locator"].endswith("#statusText")]
    assert status and status[0]["after"] == "Hello clicked"
    assert json.loads((session / "session.json").read_text(encoding="utf-8"))["target"] == {"profile": "zoo"}


def test_codegen_makes_a_scenario_and_a_pytest_module_that_pass_on_the_zoo(
    recorded: dict[str, Any], display: str | None
) -> None:
    work, session = recorded["work"], recorded["session"]
    scenario, module = work / "zoo-session.yaml", work / "pytests" / "test_zoo_session.py"
    assert (
        wpfprobe("codegen", str(session), "-o", str(scenario), "--name", "zoo-session", display=display).returncode == 0
    )
    done = wpfprobe("codegen", str(session), "--format", "pytest", "-o", str(module), display=display)
    assert done.returncode == 0, done.stderr
    written = yaml.safe_load(scenario.read_text(encoding="utf-8"))
    steps = written["steps"]
    assert written["target"] == {"profile": "zoo"}
    assert [(s["action"], s["locator"]) for s in steps] == [
        ("click", "Button#helloButton"), ("toggle", "CheckBox#wrapCheck"), ("click", "RadioButton#largeRadio"),
        ("select", "TabControl#zooTabs"), ("type_text", "TextBox#visitorBox"), ("wait_for", "#welcomeLabel"),
    ]  # fmt: skip
    assert {"assert": "checked", "locator": "CheckBox#wrapCheck", "value": False} in steps[1]["expect"]
    status = [a for a in steps[1]["expect"] if a["locator"].endswith("#statusText")]
    assert status == [{"assert": "text_equals", "locator": status[0]["locator"], "value": "Word wrap off"}]
    assert {"assert": "checked", "locator": "RadioButton#mediumRadio", "value": False} in steps[2]["expect"]
    exported = recorded["exported"]["content"].splitlines()[1:]
    assert exported[2:] == scenario.read_text(encoding="utf-8").splitlines()[3:], "the broker exports the same"
    ran = wpfprobe("scenario", "run", str(scenario), "--artifacts", str(work / "pass"), "--json", display=display)
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    assert json.loads(ran.stdout)["passed"] == 1
    tested = pytest_run(module, work / "pytest-pass", display)
    assert tested.returncode == 0, tested.stdout[-4000:]


def pytest_run(module: Path, artifacts: Path, display: str | None) -> subprocess.CompletedProcess[str]:
    import importlib.metadata

    installed = any(
        e.value == "wpfprobe.testkit.pytest_plugin" for e in importlib.metadata.entry_points(group="pytest11")
    )
    plugin = [] if installed else ["-p", "wpfprobe.testkit.pytest_plugin"]
    return subprocess.run(
        [sys.executable, "-m", "pytest", *plugin, "-p", "no:cacheprovider", "-q", str(module.name),
         f"--wpfprobe-artifacts={artifacts}", "--wpfprobe-trace=on", "--junitxml=out.xml", "--rootdir", str(module.parent)],
        cwd=module.parent, env=env(display), capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip


def test_on_a_changed_zoo_both_fail_at_that_step_with_a_trace_page_that_shows_it(
    recorded: dict[str, Any], display: str | None
) -> None:
    work, session = recorded["work"], recorded["session"]
    scenario = work / "zoo-session.yaml"
    if not scenario.exists():
        assert wpfprobe("codegen", str(session), "-o", str(scenario), display=display).returncode == 0
    ran = wpfprobe(
        "scenario", "run", str(scenario), "--profile", "zoo-changed", "--trace", "on", "--artifacts",
        str(work / "fail"), "--json", display=display,
    )  # fmt: skip
    assert ran.returncode == 1, ran.stdout[-3000:] + ran.stderr[-3000:]
    (ticket,) = json.loads(ran.stdout)["tickets"]
    shown = wpfprobe("tickets", "show", "--last", "--html", "--artifacts", str(work / "fail"), display=display)
    assert shown.returncode == 0 and Path(shown.stdout.strip()) == Path(ticket) / "trace.html"
    check_page(Path(ticket) / "trace.html", step=2)

    module = work / "changed" / "test_zoo_changed.py"
    done = wpfprobe(
        "codegen", str(session), "--format", "pytest", "--profile", "zoo-changed", "-o", str(module), display=display
    )
    assert done.returncode == 0, done.stderr
    tested = pytest_run(module, work / "pytest-fail", display)
    assert tested.returncode == 1 and "Word wrap off" in tested.stdout, tested.stdout[-4000:]
    cases = list(ET.parse(module.parent / "out.xml").getroot().iter("testcase"))
    props = {p.get("name"): p.get("value") for p in cases[0].iter("property")}
    assert props.get("wpfprobe_ticket"), props
    check_page(Path(str(props["wpfprobe_ticket"])) / "trace.html", step=2)


def check_page(page_path: Path, *, step: int) -> None:
    """The page opens offline; the diverging step (1-based) is selected with its screenshot, failure and tree."""
    with open_page(page_path) as opened:
        page = opened.page
        assert page.locator("#verdict").inner_text() == "FAILED"
        assert "Word wrap off" in page.locator("#failure").inner_text()
        selected = page.locator("#steps li.selected")
        assert selected.get_attribute("data-step") == str(step - 1)
        assert "wrapCheck" in selected.inner_text()
        assert "Word wrap off" in page.locator("#step-failure").inner_text()
        assert page.locator("#shot").get_attribute("src").startswith("data:image/png;base64,")
        assert page.locator("#tree-after div").count() > 0
        changed = " ".join(page.locator("#tree-after .changed").all_inner_texts())
        assert "Word wrap disabled" in changed, "the status bar's new text is marked in the tree after the step"
        page.click("#steps li[data-step='0']")
        assert "Say hello" in page.locator("#detail h2").inner_text()
        assert not opened.errors, opened.errors
        assert not opened.requests, f"the page asked the network for {opened.requests}"
