"""A pythonnet WinForms app that never imports wpfprobe: what `wpfprobe attach` enters.

    python attach_target.py STATS_FILE [--ui-thread main|worker] [--python-controls]

Run as a user runs an app (plain `python`, not `wpfprobe run`). It prints one line on
stdout and one on stderr once its form is shown, then nothing until it ends.

A WinForms timer ticks every 20 ms on the UI thread with a Python handler and records
its own gaps, so the app measures how responsive its UI stayed: STATS_FILE (JSON,
rewritten every half second, atomically) holds the tick count, the longest gap and
every gap of 0.25 s or more with its time (time.time()). The same handler does what
the test asks through files beside STATS_FILE: ``STATS_FILE.block`` holding N blocks
the UI thread for N seconds (time.sleep on the UI thread: a UI thread that does not
answer), ``STATS_FILE.close`` closes the form (the app then ends).

``--ui-thread worker`` runs the message loop on a .NET thread the main thread joins.
``--python-controls`` puts Python-defined controls (classes with __namespace__ and a
clrproperty) on the form: a panel holding a button that counts its clicks.
"""

import json
import os
import sys
import time

import pythonnet

pythonnet.load("mono")

import clr  # noqa: E402

clr.AddReference("System.Windows.Forms")
clr.AddReference("System.Drawing")

from System import Int32  # noqa: E402
from System.Drawing import Point, Size  # noqa: E402
from System.Threading import ApartmentState, Thread, ThreadStart  # noqa: E402
from System.Windows.Forms import (  # noqa: E402
    Application,
    Button,
    Form,
    FormStartPosition,
    Label,
    Panel,
    TextBox,
    Timer,
)

STATS = sys.argv[1]
WORKER = "--ui-thread" in sys.argv and sys.argv[sys.argv.index("--ui-thread") + 1] == "worker"
PYTHON_CONTROLS = "--python-controls" in sys.argv
KIND = ("worker" if WORKER else "main") + (" python-controls" if PYTHON_CONTROLS else "")


class CountingPanel(Panel):
    __namespace__ = "AttachTarget"

    def __init__(self) -> None:
        super().__init__()
        self._level = 4

    @clr.clrproperty(Int32)
    def Level(self) -> int:
        return self._level


class CountingButton(Button):
    __namespace__ = "AttachTarget"

    def __init__(self) -> None:
        super().__init__()
        self.clicks = 0

    @clr.clrproperty(Int32)
    def Clicks(self) -> int:
        return self.clicks


def build() -> Form:
    form = Form()
    form.Name = "targetWindow"
    form.Text = f"attach target {KIND}"
    form.StartPosition = FormStartPosition.Manual
    form.Location = Point(40, 40)
    form.ClientSize = Size(320, 200)
    status = Label()
    status.Name = "statusLabel"
    status.Text = "Idle"
    status.Location = Point(10, 80)
    status.Size = Size(280, 20)
    ping = Button()
    ping.Name = "pingButton"
    ping.Text = "Ping"
    ping.Location = Point(10, 10)
    pings = [0]

    def on_ping(sender: object, args: object) -> None:
        pings[0] += 1
        status.Text = f"Pinged {pings[0]}"

    ping.Click += on_ping
    box = TextBox()
    box.Name = "nameBox"
    box.Location = Point(10, 45)
    form.Controls.Add(ping)
    form.Controls.Add(box)
    form.Controls.Add(status)
    if PYTHON_CONTROLS:
        panel = CountingPanel()
        panel.Name = "countingPanel"
        panel.Location = Point(10, 110)
        panel.Size = Size(200, 60)
        counter = CountingButton()
        counter.Name = "countingButton"
        counter.Text = "Count"
        counter.Location = Point(5, 5)

        def on_count(sender: object, args: object) -> None:
            counter.clicks += 1
            status.Text = f"Counted {counter.clicks}"

        counter.Click += on_count
        panel.Controls.Add(counter)
        form.Controls.Add(panel)
    watch(form)
    return form


def watch(form: Form) -> None:
    """The app's own timer: its gaps, and what the test asks through files."""
    timer = Timer()
    timer.Interval = 20
    state = {"last": None, "ticks": 0, "max": 0.0, "gaps": [], "written": 0.0}

    def write() -> None:
        data = {"pid": os.getpid(), "ticks": state["ticks"], "maxGap": state["max"], "gaps": state["gaps"]}
        temp = f"{STATS}.tmp"
        with open(temp, "w", encoding="utf-8") as fh:
            json.dump(data, fh)
        os.replace(temp, STATS)

    def tick(sender: object, args: object) -> None:
        now = time.monotonic()
        if state["last"] is not None:
            gap = now - state["last"]
            state["max"] = max(state["max"], gap)
            if gap >= 0.25:
                state["gaps"].append([time.time(), round(gap, 3)])
        state["last"] = now
        state["ticks"] += 1
        if now - state["written"] >= 0.5:
            state["written"] = now
            write()
        if os.path.exists(STATS + ".block"):
            with open(STATS + ".block", encoding="utf-8") as fh:
                seconds = float(fh.read().strip() or 0)
            os.unlink(STATS + ".block")
            time.sleep(seconds)
            state["last"] = time.monotonic()  # the block is what the test asked for, not a gap
        if os.path.exists(STATS + ".close"):
            timer.Stop()
            write()
            form.Close()

    timer.Tick += tick

    def shown(sender: object, args: object) -> None:
        timer.Start()
        print(f"attach target: shown ({KIND})", flush=True)
        print("attach target: a line on stderr", file=sys.stderr, flush=True)

    form.Shown += shown
    form.FormClosed += lambda sender, args: timer.Dispose()


def run_ui() -> None:
    Application.Run(build())


if WORKER:
    ui = Thread(ThreadStart(run_ui))
    ui.SetApartmentState(ApartmentState.STA)
    ui.Start()
    ui.Join()
else:
    run_ui()
