"""Structured logs (wpfprobe.core.logs): JSON lines, the agreed fields, no values."""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from wpfprobe.core import logs as _logging
from wpfprobe.core.errors import InvalidArgumentError
from wpfprobe.mcp import custom as _custom
from wpfprobe.mcp import wirelog
from wpfprobe.mcp.catalog import tool_function

DISTINCT = "Qx7-distinctive-argument-9912"


@pytest.fixture(autouse=True)
def restore_logger(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv(_logging.LEVEL_VARIABLE, raising=False)
    monkeypatch.delenv(_logging.FILE_VARIABLE, raising=False)
    logger = logging.getLogger("wpfprobe")
    saved = (list(logger.handlers), logger.level, logger.propagate, _logging._installed)
    yield
    if _logging._installed is not None and _logging._installed not in saved[0]:
        logger.removeHandler(_logging._installed)
        _logging._installed.close()
    logger.handlers[:] = saved[0]
    logger.level, logger.propagate, _logging._installed = saved[1], saved[2], saved[3]


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_one_json_object_per_line_with_time_level_logger_msg_pid_and_extras(tmp_path: Path) -> None:
    log_file = tmp_path / "probe.log"
    _logging.configure(level="info", file=log_file)
    log = logging.getLogger("wpfprobe.server")
    log.info("tool call", extra={"app": "a-1", "tool": "wpf_get_windows", "durationMs": 1.5, "outcome": "ok"})
    log.debug("not at info")
    log.warning("multi\nline")
    first, second = lines(log_file)
    assert first == {
        "time": first["time"], "level": "INFO", "logger": "wpfprobe.server", "msg": "tool call", "pid": os.getpid(),
        "app": "a-1", "tool": "wpf_get_windows", "durationMs": 1.5, "outcome": "ok",
    }  # fmt: skip
    assert str(first["time"]).endswith("Z") and "T" in str(first["time"])
    assert second["msg"] == "multi\nline" and "tool" not in second


def test_an_exception_is_written_as_its_type_and_frames_not_its_message(tmp_path: Path) -> None:
    log_file = tmp_path / "probe.log"
    _logging.configure(level="WARNING", file=log_file)
    try:
        raise ValueError(f"contains {DISTINCT}")
    except ValueError:
        logging.getLogger("wpfprobe.run").warning("failed", exc_info=True)
    (record,) = lines(log_file)
    assert record["exception"] == "ValueError" and "test_structured_logging.py" in str(record["stack"])
    assert DISTINCT not in log_file.read_text(encoding="utf-8")


def test_configure_twice_keeps_one_handler_and_stops_propagation(tmp_path: Path) -> None:
    _logging.configure(file=tmp_path / "a.log")
    _logging.configure(file=tmp_path / "b.log")
    logger = logging.getLogger("wpfprobe")
    ours = [h for h in logger.handlers if isinstance(h.formatter, _logging.JsonLinesFormatter)]
    assert len(ours) == 1 and logger.propagate is False
    logging.getLogger("wpfprobe.x").warning("here")
    assert (tmp_path / "a.log").read_text() == "" and len(lines(tmp_path / "b.log")) == 1


def test_the_environment_gives_the_defaults_and_stderr_is_the_default_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(_logging.LEVEL_VARIABLE, "DEBUG")
    monkeypatch.setenv(_logging.FILE_VARIABLE, str(tmp_path / "env.log"))
    _logging.configure()
    logging.getLogger("wpfprobe.x").debug("debug on")
    assert lines(tmp_path / "env.log")[0]["msg"] == "debug on"
    monkeypatch.delenv(_logging.FILE_VARIABLE)
    stderr = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stderr)
    _logging.configure(level="ERROR")
    logging.getLogger("wpfprobe.x").warning("below the level")
    logging.getLogger("wpfprobe.x").error("to stderr")
    assert [json.loads(x)["msg"] for x in stderr.getvalue().splitlines()] == ["to stderr"]


def test_a_bad_level_is_refused() -> None:
    with pytest.raises(InvalidArgumentError, match="log level"):
        _logging.configure(level="LOUD")


def test_importing_wpfprobe_installs_only_a_null_handler() -> None:
    import subprocess

    # wpfprobe, and what its server loads when it serves (server.py's _http_app and stdio).
    serving = "wpfprobe.mcp.server, wpfprobe.mcp.handshake, wpfprobe.mcp.httpserve, wpfprobe.mcp.stdioserve, uvicorn"
    code = (
        f"import logging, wpfprobe, {serving}; "
        "print([type(h).__name__ for h in logging.getLogger('wpfprobe').handlers])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "['NullHandler']" and out.stderr == ""


def test_a_probe_warning_in_an_app_with_no_logging_set_up_prints_nothing() -> None:
    """Python's last-resort handler printed a probe's warnings (a failed tool's traceback) on the
    stderr of an app that configured no logging: the app must hear nothing of the probe."""
    import subprocess

    code = (
        "import logging, wpfprobe; "
        "logging.getLogger('wpfprobe.server').warning('tool failed', exc_info=RuntimeError('x')); "
        "logging.getLogger('wpfprobe.clr').error('walk could not be compiled')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stderr == "" and out.stdout == ""


def test_an_app_that_configured_logging_still_gets_the_probes_records() -> None:
    import subprocess

    code = (
        "import logging, sys; logging.basicConfig(stream=sys.stdout, format='%(name)s %(message)s'); "
        "import wpfprobe; logging.getLogger('wpfprobe.server').warning('tool failed')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "wpfprobe.server tool failed" and out.stderr == ""


def test_a_tool_call_record_has_name_outcome_and_duration_but_no_argument_value(tmp_path: Path) -> None:
    log_file = tmp_path / "probe.log"
    _logging.configure(level="INFO", file=log_file)

    def shout(text: str) -> str:
        """Upper-case."""
        return text.upper()

    def fail(text: str) -> str:
        """Fails with the value in the message."""
        raise RuntimeError(text)

    engine = SimpleNamespace(app_id="unit-app", ui=None, settings=SimpleNamespace(ui_timeout=1.0))
    assert not tool_function(_custom.define(shout).spec(), engine)(text=DISTINCT)["isError"]  # type: ignore[arg-type]
    assert tool_function(_custom.define(fail).spec(), engine)(text=DISTINCT)["isError"]  # type: ignore[arg-type]
    records = lines(log_file)
    assert [(r["tool"], r["outcome"], r["app"]) for r in records if "tool" in r] == [
        ("shout", "ok", "unit-app"), ("fail", "INTERNAL", "unit-app"),
    ]  # fmt: skip
    assert all(isinstance(r["durationMs"], float) for r in records if "tool" in r)
    assert DISTINCT not in log_file.read_text(encoding="utf-8")


def test_a_probe_an_app_starts_logs_only_when_the_environment_asks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """wpfprobe.start() calls configure_from_env: silent by default, JSON lines when asked."""
    logger = logging.getLogger("wpfprobe")
    assert _logging.configure_from_env() is False
    assert _logging._installed is None
    target = tmp_path / "probe.jsonl"
    monkeypatch.setenv(_logging.FILE_VARIABLE, str(target))
    monkeypatch.setenv(_logging.LEVEL_VARIABLE, "info")
    assert _logging.configure_from_env() is True
    assert _logging.configure_from_env() is False, "a handler already installed is kept"
    logger.info("probe started", extra={"app": "orders-1"})
    assert [(r["msg"], r["app"], r["level"]) for r in lines(target)] == [("probe started", "orders-1", "INFO")]


def test_serving_leaves_the_root_logger_as_it_was() -> None:
    """The SDK's MCPServer called logging.basicConfig; in an app with no logging set up that gave
    the root logger a stderr handler. The app's own HTTP server (the kernel's endpoints under
    uvicorn), made, asked and stopped, must not either."""
    import secrets
    import urllib.error
    import urllib.request

    from fake_toolkit import harness

    from wpfprobe.core.settings import ProbeSettings
    from wpfprobe.mcp.catalog import ToolCatalog
    from wpfprobe.mcp.server import _start_http

    root = logging.getLogger()
    saved, level = list(root.handlers), root.level
    for handler in saved:
        root.removeHandler(handler)
    try:
        root.setLevel(logging.ERROR)
        with harness(settings=ProbeSettings(audit=False)) as h:
            catalog = ToolCatalog(h.engine, tier="read")
            handle = _start_http(h.probe, catalog, tier="read", port=0, token=secrets.token_urlsafe(32))
            try:
                with contextlib.suppress(urllib.error.HTTPError):  # no token: refused, as it should be
                    urllib.request.urlopen(handle.url or "", data=b"{}", timeout=30).close()
            finally:
                handle.stop()
        assert root.handlers == [] and root.level == logging.ERROR
    finally:
        for handler in saved:
            root.addHandler(handler)
        root.setLevel(level)


class Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def test_library_records_from_the_probe_s_threads_go_to_its_own_log_only() -> None:
    wirelog.install()
    root, wire = Collect(), Collect()
    logging.getLogger().addHandler(root)
    wire_logger = logging.getLogger(wirelog.WIRE_LOGGER)
    wire_logger.addHandler(wire)
    previous = wire_logger.level
    wire_logger.setLevel(logging.DEBUG)
    library = logging.getLogger("uvicorn.error.test_wirelog")
    try:

        def log(message: str) -> None:
            library.error(message)

        threads = (
            ("wpfprobe-mcp-http", "from the probe"),
            # The start-up's thread imports uvicorn and makes the HTTP server (starting.py).
            ("wpfprobe-start", "from the probe's start-up"),
            ("someone-else", "from the app"),
        )
        for name, message in threads:
            thread = threading.Thread(target=log, args=(message,), name=name)
            thread.start()
            thread.join()
        logging.getLogger("uvicorn.access").warning("GET /mcp")  # this thread: the app's own
    finally:
        logging.getLogger().removeHandler(root)
        wire_logger.removeHandler(wire)
        wire_logger.setLevel(previous)
    assert [(r.getMessage(), r.levelname) for r in wire.records] == [
        ("from the probe", "DEBUG"),
        ("from the probe's start-up", "DEBUG"),
    ]
    # Further up, the probe's record is a wpfprobe DEBUG record like any other (this process
    # asked for DEBUG); the others reach the root logger's handlers as they were.
    assert {(r.getMessage(), r.levelname) for r in root.records} == {
        ("from the probe", "DEBUG"),
        ("from the probe's start-up", "DEBUG"),
        ("from the app", "ERROR"),
        ("GET /mcp", "WARNING"),
    }


SERVING = """
import json, logging, secrets, sys, urllib.request
from fake_toolkit import harness
from wpfprobe.core.settings import ProbeSettings
from wpfprobe.mcp import wirelog
from wpfprobe.mcp.catalog import ToolCatalog
from wpfprobe.mcp.server import _start_http

with harness(settings=ProbeSettings(audit=False)) as h:
    token = secrets.token_urlsafe(32)
    handle = _start_http(h.probe, ToolCatalog(h.engine, tier="read"), tier="read", port=0, token=token)
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}}}}
    headers = {"Authorization": "Bearer " + token, "Content-Type": "application/json",
               "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2026-07-28",
               "Mcp-Method": "tools/list"}
    request = urllib.request.Request(handle.url, data=json.dumps(body).encode(), headers=headers)
    with urllib.request.urlopen(request, timeout=60) as answer:
        listed = len(json.loads(answer.read())["result"]["tools"])
    handle.stop()
print(json.dumps({
    "listed": listed,
    "routed": list(wirelog.LIBRARIES),
    "imported": sorted({m.split(".")[0] for m in sys.modules}),
    "loggers": sorted({n.split(".")[0] for n in logging.root.manager.loggerDict}),
}))
"""


def test_the_libraries_wirelog_routes_are_the_ones_serving_loads_that_log() -> None:
    """wirelog once routed the MCP SDK's, Starlette's and sse_starlette's loggers, which the app no
    longer loads (its kernel serves, under uvicorn); a process that serves names each library
    that logs, and only those."""
    import subprocess

    unit = Path(__file__).resolve().parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(unit), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run(
        [sys.executable, "-c", SERVING], capture_output=True, text=True, check=True, timeout=120, cwd=unit, env=env
    )
    seen = json.loads(out.stdout)
    assert seen["listed"] > 0, "the server answered"
    routed, imported = set(seen["routed"]), set(seen["imported"])
    assert routed <= imported, f"routed but never loaded by a serving process: {sorted(routed - imported)}"
    # Every library with a logger: routed (the standard library's own are the app's too; the probe's
    # loops report to wirelog.loop_exception instead of the asyncio logger).
    libraries = set(seen["loggers"]) - set(sys.stdlib_module_names) - {"wpfprobe"}
    assert libraries == routed
