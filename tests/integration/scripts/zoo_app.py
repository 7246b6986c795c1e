"""A WinForms app whose controls are classes written in Python, in a process of its own.

    python zoo_app.py [--load mono|clr|wpfprobe] [--probe start|start-form|attach|none]
                      [--allow TIER] [--driver FILE::FUNCTION] [--close-file PATH]

The app loads the CLR itself, the way real apps do, before anything of wpfprobe
is imported: ``--load mono`` calls ``pythonnet.load("mono")``, ``--load clr``
does a bare ``import clr`` (pythonnet's default runtime), ``--load wpfprobe``
lets the probe load it. Its UI is built in a function that keeps no Python
reference to any control, the common ``self.Controls.Add(FancyPanel())``
pattern, and then every Python reference is dropped and both garbage
collectors run, so every Python-defined control is orphaned (see
wpfprobe_clr/net/bridge.py) before the probe first looks:

    zooWindow (ZooForm: a Form subclass with __namespace__, clrproperty Visits)
      fancyPanel (FancyPanel: clrproperties Level, ApiKey, Password, Broken; OnPaint overridden)
        plainButton (Button)           fancyButton (FancyButton, "Go": counts clicks)
        innerPanel (FancyPanel)
          innerBox (TextBox)
      nonsPanel (PlainPanel: a Panel subclass without __namespace__, OnPaint overridden)
        nonsLabel (Label)
      fancyBox (FancyBox: a TextBox subclass with __namespace__)
      boundLabel (FancyLabel: a Label subclass, its Text bound to a DataTable row "Hello zoo")
      moodyPanel (MoodyPanel: its Visible and Enabled clrproperties throw)
        moodyButton (Button)
      statusLabel (Label: "Clicked N" after the N-th click of fancyButton)
      hiddenNote (Label, 0x0 with text: Mono makes it 1x1, and only text-truncated reports it)
      ellipsisNote (Label, AutoEllipsis), wrapNote (Label, too short for its wrapped lines),
      tinyButton (Button, too narrow for its caption): text that does not fit

ApiKey's and Password's getters count how often they run (a redacted property
must never be read). Application.ThreadException is caught and recorded: the
probe must never make the app's message loop see an exception.

``--probe start`` starts the MCP server over HTTP (auto-detecting the app:
the app no longer holds its form) and ``start-form`` hands it the form first
and then drops it; both print one JSON line {"url", "token"} and serve until
"close" arrives on stdin, with two custom tools: ``collect_garbage`` (both
collectors, as above) and ``app_facts`` (clicks, thread exceptions, secret
reads). ``--probe attach`` calls FUNCTION(wpfprobe.attach(), facts) from FILE
(a test module: the Python API used from inside the app, as a notebook would)
and prints its JSON-able result. ``--probe none`` knows nothing of wpfprobe
(for ``wpfprobe run``): it runs the message loop on the main thread and ends
when the file ``--close-file`` appears. Every mode prints {"facts": ...} last.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import os
import sys
import threading
from pathlib import Path
from typing import Any

parser = argparse.ArgumentParser()
parser.add_argument("--load", choices=["mono", "clr", "wpfprobe"], default="mono")
parser.add_argument("--probe", choices=["start", "start-form", "attach", "none"], default="start")
parser.add_argument("--allow", default="interact")
parser.add_argument("--driver", default=None)
parser.add_argument("--close-file", default=None)
options = parser.parse_args()

if options.load == "mono":
    import pythonnet

    pythonnet.load("mono")
    import clr
elif options.load == "clr":
    import clr
else:
    import wpfprobe_clr

    wpfprobe_clr.ensure_clr()
    import clr

clr.AddReference("System.Windows.Forms")
clr.AddReference("System.Drawing")
clr.AddReference("System.Data")

import System  # noqa: E402
from System import Int32, String  # noqa: E402
from System.Data import DataTable  # noqa: E402
from System.Drawing import Color, Pen, Point, Size  # noqa: E402
from System.Threading import ApartmentState, Thread, ThreadStart  # noqa: E402
from System.Windows.Forms import (  # noqa: E402
    Application,
    Button,
    Control,
    Form,
    FormStartPosition,
    Label,
    Panel,
    TextBox,
    Timer,
    UnhandledExceptionMode,
)

FACTS: dict[str, Any] = {"clicks": 0, "threadExceptions": [], "secretReads": 0, "paints": 0}


def _count_click(sender: Any, args: Any) -> None:
    # The sender is the orphaned FancyButton: using it would fail in the app's own code
    # as it would in the probe (pythonnet), so the handler counts without it.
    FACTS["clicks"] += 1
    FACTS["status"].Text = f"Clicked {FACTS['clicks']}"


class ZooForm(Form):
    __namespace__ = "ZooApp"

    def __init__(self) -> None:
        super().__init__()
        self._visits = 7

    @clr.clrproperty(Int32)
    def Visits(self) -> int:
        return self._visits


class FancyPanel(Panel):
    __namespace__ = "ZooApp"

    def __init__(self) -> None:
        super().__init__()
        self._level = 3

    @clr.clrproperty(Int32)
    def Level(self) -> int:
        return self._level

    @Level.setter
    def Level(self, value: int) -> None:
        self._level = value

    @clr.clrproperty(String)
    def ApiKey(self) -> str:
        FACTS["secretReads"] += 1
        return "sk-live-should-never-be-read"

    @clr.clrproperty(String)
    def Password(self) -> str:
        FACTS["secretReads"] += 1
        return "hunter2"

    @clr.clrproperty(String)
    def Broken(self) -> str:
        raise RuntimeError("the Broken getter fails on purpose")

    def OnPaint(self, e: Any) -> None:
        # pythonnet overrides only public virtual members, so WinForms never calls this
        # (OnPaint is protected); it must not matter to the probe either way.
        FACTS["paints"] += 1
        e.Graphics.DrawRectangle(Pen(Color.DarkGreen), 0, 0, 10, 10)


class FancyButton(Button):
    __namespace__ = "ZooApp"


class FancyBox(TextBox):
    __namespace__ = "ZooApp"


class FancyLabel(Label):
    __namespace__ = "ZooApp"


class MoodyPanel(Panel):
    """Its Visible and Enabled (new properties over Control's, which are not virtual) throw:
    WinForms reads its own, the probe reads the most derived, as Python code would."""

    __namespace__ = "ZooApp"

    @clr.clrproperty(bool)
    def Visible(self) -> bool:
        raise RuntimeError("Visible fails on purpose")

    @clr.clrproperty(bool)
    def Enabled(self) -> bool:
        raise RuntimeError("Enabled fails on purpose")


class PlainPanel(Panel):
    """No __namespace__: no .NET type of its own, so it converts as a Panel."""

    def OnPaint(self, e: Any) -> None:
        super().OnPaint(e)


def _add(parent: Any, control: Any, name: str, x: int, y: int, w: int, h: int, text: str | None = None) -> None:
    control.Name = name
    control.Location = Point(x, y)
    control.Size = Size(w, h)
    if text is not None:
        control.Text = text
    parent.Controls.Add(control)


def build() -> None:
    """The UI, with no Python reference kept to any control but the status label."""
    form = ZooForm()
    form.Name = "zooWindow"
    form.Text = "zoo"
    form.StartPosition = FormStartPosition.Manual
    form.Location = Point(40, 40)
    form.ClientSize = Size(420, 320)
    fancy = FancyPanel()
    _add(form, fancy, "fancyPanel", 10, 10, 250, 150)
    _add(fancy, Button(), "plainButton", 10, 10, 90, 26, "Plain")
    go = FancyButton()
    go.Click += _count_click
    _add(fancy, go, "fancyButton", 110, 10, 90, 26, "Go")
    inner = FancyPanel()
    inner.Level = 5
    _add(fancy, inner, "innerPanel", 10, 50, 200, 80)
    _add(inner, TextBox(), "innerBox", 10, 10, 120, 24)
    nons = PlainPanel()
    _add(form, nons, "nonsPanel", 270, 10, 140, 60)
    _add(nons, Label(), "nonsLabel", 5, 5, 120, 20, "not a .NET type")
    _add(form, FancyBox(), "fancyBox", 270, 150, 140, 24)
    bound = FancyLabel()
    model = DataTable("Zoo")
    model.Columns.Add("Greeting")
    model.Rows.Add("Hello zoo")
    bound.DataBindings.Add("Text", model, "Greeting")
    _add(form, bound, "boundLabel", 270, 180, 140, 20)
    moody = MoodyPanel()
    _add(form, moody, "moodyPanel", 270, 80, 140, 60)
    _add(moody, Button(), "moodyButton", 5, 5, 100, 26, "Moody")
    status = Label()
    _add(form, status, "statusLabel", 10, 170, 200, 20, "Idle")
    FACTS["status"] = status
    _add(form, Label(), "hiddenNote", 10, 200, 0, 0, "You cannot see me")
    ellipsis = Label()
    ellipsis.AutoEllipsis = True
    _add(form, ellipsis, "ellipsisNote", 10, 240, 60, 16, "A caption that ends in an ellipsis")
    _add(form, Label(), "wrapNote", 100, 240, 90, 20, "A caption long enough to need three lines")
    _add(form, Button(), "tinyButton", 220, 240, 30, 24, "Save changes")
    form.Show()


def orphan() -> int:
    """Drop what Python still holds and run both collectors: pythonnet frees the .NET side
    of every Python-defined control nobody in Python refers to any more."""
    gc.collect()
    System.GC.Collect()
    System.GC.WaitForPendingFinalizers()
    gc.collect()
    return int(System.GC.CollectionCount(0))


def on_thread_exception(sender: Any, args: Any) -> None:
    FACTS["threadExceptions"].append(f"{args.Exception.GetType().FullName}: {args.Exception.Message}")


def prepare_ui_thread() -> None:
    Application.SetUnhandledExceptionMode(UnhandledExceptionMode.CatchException)
    Application.ThreadException += on_thread_exception


def public_facts() -> dict[str, Any]:
    return {k: v for k, v in FACTS.items() if k != "status"}


def run_in_background() -> tuple[Any, Any]:
    """The UI on an STA thread of its own; returns (thread, a plain control that posts to it)."""
    ready = threading.Event()
    box: dict[str, Any] = {}

    def run() -> None:
        prepare_ui_thread()
        build()
        poster = Control()
        poster.CreateControl()
        _ = poster.Handle
        box["poster"] = poster
        ready.set()
        Application.Run()  # no main form: the app keeps none, only .NET holds the window

    thread = Thread(ThreadStart(run))
    thread.SetApartmentState(ApartmentState.STA)
    thread.Start()
    if not ready.wait(60):
        raise SystemExit("the zoo did not come up")
    return thread, box["poster"]


def on_ui(poster: Any, fn: Any) -> Any:
    return poster.Invoke(System.Func[System.Object](fn))


def main() -> None:
    if options.probe == "none":
        prepare_ui_thread()
        build()
        orphan()
        timer = Timer()
        timer.Interval = 50

        def tick(sender: Any, args: Any) -> None:
            if options.close_file and os.path.exists(options.close_file):
                timer.Stop()
                Application.ExitThread()

        timer.Tick += tick
        timer.Start()
        print(json.dumps({"ready": True}), flush=True)
        Application.Run()
        print(json.dumps({"facts": public_facts()}), flush=True)
        return

    thread, poster = run_in_background()
    import wpfprobe

    form = None
    if options.probe == "start-form":
        # The app hands its form over, then lets go of it: the probe must not need it alive in Python.
        form = on_ui(poster, lambda: Application.OpenForms[0])
    on_ui(poster, orphan)
    orphan()
    try:
        if options.probe == "attach":
            path, _, function = (options.driver or "").partition("::")
            sys.path.insert(0, str(Path(path).parent))  # the test module's own imports (its harness)
            spec = importlib.util.spec_from_file_location("zoo_driver", path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            probe = wpfprobe.attach()
            result = getattr(module, function)(probe, public_facts, orphan)
            print(json.dumps({"result": result}), flush=True)
        else:
            # On the UI thread: a server worker thread that called into the CLR would hold up
            # Mono's shutdown at exit (it waits for every such thread to end).
            @wpfprobe.tool(ui_thread=True)
            def collect_garbage() -> int:
                """Run Python's and .NET's garbage collectors."""
                return orphan()

            @wpfprobe.tool
            def app_facts() -> dict[str, Any]:
                """Clicks seen, exceptions that reached the message loop, secret getters run."""
                return public_facts()

            handle = wpfprobe.start(form, allow=options.allow, name="zoo")
            form = None
            orphan()
            print(json.dumps({"url": handle.url, "token": handle.token}), flush=True)
            try:
                for line in sys.stdin:
                    if line.strip() == "close":
                        break
            finally:
                handle.stop()
    finally:
        print(json.dumps({"facts": public_facts()}), flush=True)
        on_ui(poster, Application.ExitThread)
        thread.Join()


if __name__ == "__main__":
    main()
