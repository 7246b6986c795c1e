"""An app whose probe is asked for before it has attached: what test_start_path.py talks to.

    python early_start_app.py --mode before-loop|busy-ui

``before-loop``: the app builds its form on the main thread, calls
``wpfprobe.start()`` before ``Application.Run``, prints ``STARTED <url> <token>``,
then waits for a line on stdin before it runs its message loop: the probe
cannot attach until then, so every tool call meanwhile waits for it.

``busy-ui``: the form runs on a UI thread of its own, held busy (a call posted
to it waits for a line on stdin) while ``wpfprobe.start(timeout=1)`` is called.
It prints ``STARTED ...``, releases the UI thread on the next line of stdin,
then prints ``READY ok`` or ``READY <code>`` with what ``wait_ready()`` raised:
the attach waits for a busy UI thread past a call's timeout.

``stuck-ui``: the same, but the UI thread stays busy past the attach's own wait
(``ProbeSettings.attach_wait``, 2 s here, a minute by default), so the attach
fails in the background with DISPATCHER_BUSY: ``READY <code>`` comes before
the line that releases the UI thread.

Either way, a further line (``close``) closes the form and ends the app.
"""

from __future__ import annotations

import argparse
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
parser.add_argument("--mode", choices=("before-loop", "busy-ui", "stuck-ui"), required=True)
options = parser.parse_args()


def say(line: str) -> None:
    print(line, flush=True)


def build() -> Form:
    form = Form()
    form.Name = "earlyWindow"
    form.Text = "early start"
    button = Button()
    button.Name = "okButton"
    button.Text = "OK"
    form.Controls.Add(button)
    return form


def close_on_request(form: Form) -> None:
    sys.stdin.readline()
    form.BeginInvoke(Action(form.Close))


if options.mode == "before-loop":
    form = build()
    handle = wpfprobe.start(form, name="early-start")
    say(f"STARTED {handle.url} {handle.token}")
    sys.stdin.readline()  # the loop runs only now
    threading.Thread(target=close_on_request, args=(form,), daemon=True).start()
    Application.Run(form)
else:
    shown = threading.Event()
    release = threading.Event()
    box: dict[str, Form] = {}

    def run() -> None:
        form = box["form"] = build()
        form.Shown += lambda sender, args: shown.set()
        Application.Run(form)

    ui = Thread(ThreadStart(run))
    ui.SetApartmentState(ApartmentState.STA)
    ui.Start()
    shown.wait(60)
    form = box["form"]
    # The UI thread is busy until released: the probe's first call to it cannot be answered.
    form.BeginInvoke(Action(lambda: release.wait(120) and None))
    # stuck-ui: the attach waits 2 s for the UI thread (a minute by default).
    settings = wpfprobe.ProbeSettings(attach_wait=2.0) if options.mode == "stuck-ui" else None
    handle = wpfprobe.start(form, name="early-start", timeout=1.0, settings=settings)
    say(f"STARTED {handle.url} {handle.token}")

    def ready() -> None:
        try:
            handle.wait_ready(60)
            say("READY ok")
        except wpfprobe.ProbeError as err:
            say(f"READY {err.code}")

    if options.mode == "stuck-ui":
        ready()
    sys.stdin.readline()
    release.set()
    if options.mode == "busy-ui":
        ready()
    close_on_request(form)
    ui.Join()
say("ENDED")
