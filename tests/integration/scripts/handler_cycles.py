"""Start and stop the probe several times in one app, counting the app's .NET event handlers.

For test_lifecycle.py (``test_detach_then_attach_leaves_one_set_of_handlers``; with the
argument ``notebook``, ``test_attach_run_again_in_a_notebook_leaves_one_set_of_handlers``:
``wpfprobe.attach`` in a cell run again and again, no server).
The counts are read from the app's own .NET state by reflection, not from the
probe's bookkeeping: the delegate behind each event (a field-like event's
backing field, or the entry of a component's ``Events`` list), and the length
of its invocation list. A test process may start the server only once, so the
cycles run here; WPFPROBE_HOME must be set by the caller. Prints one line,
``RESULT {json}``, and exits 0.
"""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path
from typing import Any

from example_app import load_example

ROOT = Path(__file__).resolve().parents[3]
CYCLES = 3
PROBE_PACKAGES = (str(ROOT / "src" / "wpfprobe"), str(ROOT / "src" / "wpfprobe_clr"))


def _delegate(owner: Any, target: Any, name: str) -> Any:
    """The delegate behind event ``name`` of ``target`` (None: static, on ``owner``), or None."""
    from System.Reflection import BindingFlags

    scope = BindingFlags.Static if target is None else BindingFlags.Instance
    flags = scope | BindingFlags.NonPublic | BindingFlags.Public | BindingFlags.DeclaredOnly
    kind = owner if target is None else target.GetType()
    while kind is not None:
        field = kind.GetField(name, flags)
        if field is not None:  # a field-like event: the field holds the delegate
            return field.GetValue(target)
        # A component's event kept in its Events list, under a static key object.
        key = kind.GetField(name + "Event", BindingFlags.Static | BindingFlags.NonPublic | BindingFlags.DeclaredOnly)
        if key is not None and target is not None:
            events_property = kind.GetProperty("Events", BindingFlags.Instance | BindingFlags.NonPublic)
            holder = kind
            while events_property is None and holder is not None:
                events_property = holder.GetProperty(
                    "Events", BindingFlags.Instance | BindingFlags.NonPublic | BindingFlags.DeclaredOnly
                )
                holder = holder.BaseType
            return events_property.GetValue(target, None)[key.GetValue(None)]
        kind = kind.BaseType
    raise LookupError(f"no backing store found for event {name} on {owner or target.GetType()}")


def count(owner: Any, target: Any, name: str) -> int:
    found = _delegate(owner, target, name)
    return 0 if found is None else len(found.GetInvocationList())


def census(app: Any) -> dict[str, int]:
    """How many handlers each event the probe hooks has now (on the UI thread)."""
    import clr
    from System import AppDomain
    from System.Windows.Forms import Application, ToolStrip

    form = app.app
    menu = form.MainMenuStrip
    greeting = form.Controls.Find("greetingLabel", True)[0]
    binding = greeting.DataBindings[0]
    panel = form.Controls.Find("formPanel", True)[0]
    application = clr.GetClrType(Application)
    return {
        "Application.ThreadExit": count(application, None, "ThreadExit"),
        "AppDomain.UnhandledException": count(None, AppDomain.CurrentDomain, "UnhandledException"),
        "form.ControlAdded": count(None, form, "ControlAdded"),
        "form.ControlRemoved": count(None, form, "ControlRemoved"),
        "panel.ControlAdded": count(None, panel, "ControlAdded"),
        "menu.ItemAdded": count(clr.GetClrType(ToolStrip), menu, "ItemAdded"),
        "greeting.Binding.BindingComplete": count(None, binding, "BindingComplete"),
    }


def probe_frames_while(app: Any, fire: Any) -> list[str]:
    """The probe's Python functions that ran on the UI thread while ``fire()`` ran there."""
    seen: list[str] = []

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code.co_filename.startswith(PROBE_PACKAGES):
            seen.append(f"{Path(frame.f_code.co_filename).name}:{frame.f_code.co_name}")

    def on_ui() -> None:
        sys.setprofile(profile)
        try:
            fire()
        finally:
            sys.setprofile(None)

    app.invoke(on_ui)
    return seen


def fire_events(app: Any) -> None:
    """On the UI thread: a control added to and removed from a watched container, and a binding
    that completes (the bound row's value changes and the label is updated from it)."""
    from System.Windows.Forms import Label

    form = app.app
    panel = form.Controls.Find("formPanel", True)[0]
    extra = Label()
    extra.Name = "extraLabel"
    panel.Controls.Add(extra)
    panel.Controls.Remove(extra)
    greeting = form.Controls.Find("greetingLabel", True)[0]
    binding = greeting.DataBindings[0]
    binding.FormattingEnabled = True  # Mono raises BindingComplete only then
    binding.DataSource.Rows[0]["Greeting"] = "Hello again"
    binding.ReadValue()


def use(handle: Any) -> None:
    """What a client does that makes the probe hook the app: a lookup by name (the name index walks
    and watches every container) and a binding read, over MCP."""
    from wpfprobe.mcp import client
    from wpfprobe.mcp.manifest import Manifest

    manifest = Manifest.model_validate_json(Path(str(handle.manifest_path)).read_text(encoding="utf-8"))
    for tool, args in (
        ("wpf_find_elements", {"locator": "#greetingLabel"}),
        ("wpf_get_binding_info", {"locator": "#greetingLabel", "propertyName": "Text"}),
    ):
        result = client.call(manifest, tool, args)
        if result.is_error:
            raise RuntimeError(f"{tool} failed: {result.content}")


def use_api(probe: Any) -> None:
    """What a notebook does that makes the probe hook the app: a lookup by name (the name index
    walks and watches every container)."""
    found = probe.find("#greetingLabel")
    if not found.results:
        raise RuntimeError("#greetingLabel not found")


def census_after_dropped_closes(app: Any, deadline: float = 30.0) -> dict[str, int]:
    """The census once every dropped Probe's close is over: each runs on a thread of its own
    (``wpfprobe-detach``), joined here, ``deadline`` seconds at most in all."""
    import time

    end = time.monotonic() + deadline
    for thread in threading.enumerate():
        if thread.name == "wpfprobe-detach":
            thread.join(max(0.0, end - time.monotonic()))
    return app.invoke(lambda: census(app))


def notebook_cycles(app: Any) -> dict[str, Any]:
    """``probe = wpfprobe.attach(form)`` run again and again (the last Probe dropped each time),
    then closed by hand, then a ``with`` block; the census after each."""
    import wpfprobe
    from wpfprobe.errors import ProbeError

    facts: dict[str, Any] = {"before": app.invoke(lambda: census(app)), "attached": []}
    probe = wpfprobe.attach(app.app)
    use_api(probe)
    one_set = app.invoke(lambda: census(app))
    facts["attached"].append(one_set)
    for _ in range(CYCLES - 1):
        probe = wpfprobe.attach(app.app)  # the cell again: the last Probe is dropped here
        use_api(probe)
        facts["attached"].append(census_after_dropped_closes(app))
    probe.close()
    facts["closed"] = app.invoke(lambda: census(app))
    try:
        probe.find("#greetingLabel")
        facts["closedRead"] = "answered"
    except ProbeError as err:
        facts["closedRead"] = err.code
    facts["afterClosedRead"] = app.invoke(lambda: census(app))
    with wpfprobe.attach(app.app) as probe:
        use_api(probe)
        facts["inWith"] = app.invoke(lambda: census(app))
    facts["afterWith"] = app.invoke(lambda: census(app))
    return facts


def main() -> int:
    import wpfprobe
    import wpfprobe_clr
    from wpfprobe.testing import virtual_display

    wpfprobe_clr.ensure_clr()
    facts: dict[str, Any] = {}
    with virtual_display():
        example = load_example()
        app = example.start_in_background()
        try:
            if sys.argv[1:] == ["notebook"]:
                print("RESULT " + json.dumps(notebook_cycles(app)), flush=True)
                return 0
            facts["before"] = app.invoke(lambda: census(app))
            for _ in range(CYCLES):
                handle = wpfprobe.start(app.app, name="handler-cycles")
                handle.wait_ready(60)
                use(handle)
                facts.setdefault("attached", []).append(app.invoke(lambda: census(app)))
                handle.stop()
                facts.setdefault("stopped", []).append(app.invoke(lambda: census(app)))
            facts["probeFramesAfterStop"] = probe_frames_while(app, lambda: fire_events(app))
            facts["probeThreadsAfterStop"] = sorted(
                t.name for t in threading.enumerate() if t.name.startswith("wpfprobe")
            )
            handle = wpfprobe.start(app.app, name="handler-cycles")
            handle.wait_ready(60)
            use(handle)
            facts["attachedAgain"] = app.invoke(lambda: census(app))
            # The probe's own handlers run while attached: the check above could see them.
            facts["probeFramesAttached"] = probe_frames_while(app, lambda: fire_events(app))
            handle.stop()
        finally:
            app.close()
    print("RESULT " + json.dumps(facts), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
