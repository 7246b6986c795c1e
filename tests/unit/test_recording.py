"""--record: an agent's actions over MCP become replayable steps, reads do not."""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_toolkit import harness

from wpfprobe.core.settings import ProbeSettings
from wpfprobe.core.trace import load_trace
from wpfprobe.mcp.catalog import ToolCatalog, tool_function
from wpfprobe.mcp.recording import Recorder
from wpfprobe.mcp.tools import all_tools


def test_the_agents_actions_are_recorded_as_steps_and_reads_are_not(tmp_path: Path) -> None:
    recorder = Recorder(tmp_path)
    with harness() as h:
        specs = {s.name: s for s in all_tools(tier="interact")}

        def call(tool: str, **args: object) -> None:
            tool_function(specs[tool], h.engine, recorder=recorder)(**args)

        call("wpf_get_visual_tree", maxDepth=2)
        call("wpf_type_text", locator="#userName", text="bob")
        call("wpf_click", locator="#saveButton")
        call("wpf_click", locator="#noSuchButton")
    recorder.close()
    assert recorder.steps_path is not None and recorder.steps_path.parent.parent == tmp_path
    steps = load_trace(recorder.steps_path).steps
    assert [(s.action, s.target.locator if s.target else None, s.outcome) for s in steps] == [
        ("type_text", "#userName", "ok"),
        ("click", "#saveButton", "ok"),
        ("click", "#noSuchButton", "not-applied"),
    ]
    assert steps[0].args["text"] == "bob" and [s.seq for s in steps] == [1, 2, 3]
    assert steps[1].offset_ms >= steps[0].offset_ms
    assert [s.action for s in recorder.recent] == ["type_text", "click", "click"]


def test_a_server_records_when_its_settings_name_a_directory(tmp_path: Path) -> None:
    with harness(settings=ProbeSettings(audit=False, record_dir=tmp_path)) as h:
        tools = ToolCatalog(h.engine, tier="interact")
        assert tools.recorder is not None and tools.recorder.directory is not None
        assert tools.recorder.directory.parent == tmp_path
    with harness() as h:
        assert ToolCatalog(h.engine, tier="interact").recorder is None


def test_without_a_directory_only_the_last_steps_are_kept_in_memory(tmp_path: Path) -> None:
    recorder = Recorder(None)
    with harness() as h:
        spec = next(s for s in all_tools(tier="interact") if s.name == "wpf_focus")
        tool_function(spec, h.engine, recorder=recorder)(locator="#userName")
    assert recorder.steps_path is None and [s.action for s in recorder.recent] == ["focus"]
    assert not any(Path(tmp_path).iterdir())


def test_record_is_asked_for_by_the_command_line_and_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from wpfprobe.cli.parser import build_parser

    monkeypatch.setenv("WPFPROBE_RECORD", str(tmp_path))
    monkeypatch.setenv("WPFPROBE_TEST_HOOKS", "1")
    settings = ProbeSettings.from_env()
    assert settings.record_dir == tmp_path and settings.test_hooks is True
    monkeypatch.delenv("WPFPROBE_RECORD")
    monkeypatch.delenv("WPFPROBE_TEST_HOOKS")
    assert ProbeSettings.from_env().record_dir is None and ProbeSettings.from_env().test_hooks is False
    run = build_parser().parse_args(["run", "--record", str(tmp_path), "app.py", "--its-own"])
    assert run.record == tmp_path and run.args == ["--its-own"]
    broker = build_parser().parse_args(["mcp", "--record", str(tmp_path)])
    assert broker.record == tmp_path and str(broker.artifacts) == "artifacts"
