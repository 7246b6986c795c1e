"""A Mono WinForms app that spawns processes from its main thread while the probe works.

    python spawning_app.py --while starting|serving

The form (200 buttons) runs on a UI thread of its own. ``starting``: the main
thread calls ``wpfprobe.start()`` and spawns ``true`` in a loop until the
probe's start-up is over (``wait_ready`` and the walk's compile), then prints
``SPAWNED <n>``. ``serving``: the probe is started and ready first; the app
prints ``STARTED <url> <token>`` and spawns in a loop until a line comes on
stdin (a client reads trees meanwhile), then prints ``SPAWNED <n>``. Either
way it then stops the probe, closes the form and prints ``ENDED``.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import threading

import pythonnet

pythonnet.load("mono")

import clr  # noqa: E402

clr.AddReference("System.Windows.Forms")

from System import Action  # noqa: E402
from System.Threading import ApartmentState, Thread, ThreadStart  # noqa: E402
from System.Windows.Forms import Application, Button, Form  # noqa: E402

import wpfprobe  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--while", dest="during", choices=("starting", "serving"), required=True)
options = parser.parse_args()
TRUE = shutil.which("true") or "/bin/true"


def say(line: str) -> None:
    print(line, flush=True)


shown = threading.Event()
box: dict[str, Form] = {}


def run() -> None:
    form = box["form"] = Form()
    form.Name = "spawningWindow"
    form.Text = "spawning"
    for i in range(200):
        button = Button()
        button.Name = f"button{i}"
        button.Text = f"Button {i}"
        button.Left, button.Top = (i % 10) * 60, (i // 10) * 25
        form.Controls.Add(button)
    form.Shown += lambda sender, args: shown.set()
    Application.Run(form)


ui = Thread(ThreadStart(run))
ui.SetApartmentState(ApartmentState.STA)
ui.Start()
if not shown.wait(60):
    sys.exit("the form was never shown")
form = box["form"]
handle = wpfprobe.start(form, name="spawning")
spawned = 0


def spawn() -> None:
    global spawned
    subprocess.run([TRUE], check=True)
    spawned += 1


if options.during == "starting":
    ready = threading.Event()

    def wait_ready() -> None:
        from wpfprobe_clr._compiling import wait  # the walk's compile: the end of the start-up

        handle.wait_ready(120)
        wait(120)
        ready.set()

    threading.Thread(target=wait_ready, daemon=True).start()
    while not ready.is_set():
        spawn()
    for _ in range(20):
        spawn()
else:
    handle.wait_ready(120)
    say(f"STARTED {handle.url} {handle.token}")
    done = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.readline(), done.set()), daemon=True).start()
    while not done.is_set():
        spawn()
say(f"SPAWNED {spawned}")
handle.stop()
form.BeginInvoke(Action(form.Close))
ui.Join()
say("ENDED")
