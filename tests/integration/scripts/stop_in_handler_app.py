"""A plain pythonnet WinForms app whose Stop button calls ``handle.stop()`` in its click handler.

    python stop_in_handler_app.py

The UI runs on a Python thread; the main thread reads commands on stdin:
``threads`` prints ``THREADS <json list of thread names>``; ``close`` closes the
form (posted to its UI thread). stdout: ``STARTED <url> <token>`` once the probe
is started, ``STOPPED <json>`` when the handler's stop() has returned (with the
threads then), ``UI-ENDED`` when the loop returns. It exits 0.
"""

import json
import sys
import threading

import pythonnet

pythonnet.load("mono")

import clr  # noqa: E402

clr.AddReference("System.Windows.Forms")
clr.AddReference("System.Drawing")

import System  # noqa: E402
from System.Drawing import Point  # noqa: E402
from System.Windows.Forms import Application, Button, Form  # noqa: E402

import wpfprobe  # noqa: E402

shown = threading.Event()
form = None
handle = None


def say(line: str) -> None:
    print(line, flush=True)


def names() -> list[str]:
    return sorted(thread.name for thread in threading.enumerate())


def stop_the_probe(sender: object, args: object) -> None:
    assert handle is not None
    handle.stop()  # here, on the UI thread, in a handler that a client's wpf_click ran
    say(f"STOPPED {json.dumps({'running': handle.running, 'threads': names()})}")


def run_ui() -> None:
    global form
    form = Form()
    form.Name = "stopWindow"
    form.Text = "stop in a handler"
    button = Button()
    button.Name = "stopButton"
    button.Text = "Stop"
    button.Location = Point(10, 10)
    button.Click += stop_the_probe
    form.Controls.Add(button)
    form.Shown += lambda sender, args: shown.set()
    Application.Run(form)
    say("UI-ENDED")


ui = threading.Thread(target=run_ui, name="ui")
ui.start()
shown.wait()
handle = wpfprobe.start(form, allow="interact", name="stop-in-handler")
say(f"STARTED {handle.url} {handle.token}")
for line in sys.stdin:
    command = line.strip()
    if command == "threads":
        say(f"THREADS {json.dumps(names())}")
    elif command == "close":
        form.BeginInvoke(System.Action(form.Close))
        break
ui.join()
