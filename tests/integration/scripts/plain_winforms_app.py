"""A WinForms app that knows nothing of wpfprobe: what `wpfprobe run` must run unchanged.

    python plain_winforms_app.py CONTROL_FILE [--ui-thread main|worker] [ARGS...]

Loads Mono through pythonnet, shows a form, prints known lines on stdout and
stderr (and what python gave it: argv, __name__, __file__, sys.path[0], cwd),
and closes its form once CONTROL_FILE exists. The file's content says how the
program ends: "exit N" (sys.exit(N)), "raise" (an uncaught exception) or
anything else (it returns, exit status 0). The UI's message loop runs on the
main thread, or with --ui-thread worker on a .NET thread of its own that the
main thread joins.
"""

import json
import os
import sys

import pythonnet

pythonnet.load("mono")

import clr  # noqa: E402

clr.AddReference("System.Windows.Forms")
clr.AddReference("System.Drawing")

from System.Drawing import Point, Size  # noqa: E402
from System.Threading import ApartmentState, Thread, ThreadStart  # noqa: E402
from System.Windows.Forms import Application, Button, Form, FormStartPosition, Label, Timer  # noqa: E402

control = sys.argv[1]
worker = "--ui-thread" in sys.argv and sys.argv[sys.argv.index("--ui-thread") + 1] == "worker"

print(json.dumps({
    "argv": sys.argv, "name": __name__, "file": __file__, "path0": sys.path[0], "cwd": os.getcwd(),
}))  # fmt: skip
print("plain app: starting", flush=True)
print("plain app: a line on stderr", file=sys.stderr, flush=True)


def build() -> Form:
    form = Form()
    form.Name = "plainWindow"
    form.Text = "plain app"
    form.StartPosition = FormStartPosition.Manual
    form.Location = Point(30, 30)
    form.ClientSize = Size(240, 120)
    status = Label()
    status.Name = "plainStatus"
    status.Text = "Idle"
    status.Location = Point(10, 50)
    button = Button()
    button.Name = "pingButton"
    button.Text = "Ping"
    button.Location = Point(10, 10)
    button.Click += lambda sender, args: setattr(status, "Text", "Pinged")
    form.Controls.Add(button)
    form.Controls.Add(status)
    # The app's own way to be told to end (a test writes the file): its timer, its thread.
    timer = Timer()
    timer.Interval = 50

    def tick(sender: object, args: object) -> None:
        if os.path.exists(control):
            timer.Stop()
            form.Close()

    timer.Tick += tick
    form.Shown += lambda sender, args: timer.Start()
    form.FormClosed += lambda sender, args: timer.Dispose()
    return form


def run_ui() -> None:
    Application.Run(build())


if worker:
    thread = Thread(ThreadStart(run_ui))
    thread.SetApartmentState(ApartmentState.STA)
    thread.Start()
    thread.Join()
else:
    run_ui()

print("plain app: closed", flush=True)
with open(control, encoding="utf-8") as fh:
    how = fh.read().split()
print("plain app: ending with " + " ".join(how), file=sys.stderr, flush=True)
if how[:1] == ["exit"]:
    sys.exit(int(how[1]))
if how[:1] == ["raise"]:
    raise RuntimeError("the plain app failed on purpose")
