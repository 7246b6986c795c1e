"""A plain pythonnet WinForms app that ends in a chosen way: what test_lifecycle.py ends.

    python ending_app.py --ui main|thread|dotnet-thread [--join] [--probe]
                         [--close-when FILE] [--then return|raise|exit:N]
                         [--refuse-close] [--slow-close SECONDS] [--show-env VAR]
                         [--modal box|dialog]

It knows nothing of wpfprobe unless ``--probe`` (then it calls ``wpfprobe.start``
as an app would, allowing interact so a test can click Quit). Its UI runs on
the main thread, on a Python thread (``thread``: the main thread then returns,
or joins it with ``--join``), or on a .NET thread the main thread joins
(``dotnet-thread``: the main thread sits in native code until the UI ends).
The form closes itself once FILE exists (its timer looks every 50 ms), or when
its Quit button is clicked, or not at all (the test signals the process).

stdout, one line each: ``UP <time>`` once the form is shown, ``UI-ENDED <time>``
when its message loop has returned, and ``MAIN-ENDS`` as the main code ends
(times are ``time.time()``). After the UI, ``--then`` decides how the main code
ends: it returns (0), raises RuntimeError (1), or calls sys.exit(N).
``--refuse-close``: the form refuses every close (FormClosing is cancelled), as
an app asking "save changes?" would. ``--slow-close SECONDS``: the form's FormClosing handler takes that long (an app saving
its work as it closes). ``--show-env VAR``: prints ``ENV <value>``
(or ``ENV None``) first, what the app sees of VAR in its environment. ``--modal``: once
shown, the form opens a modal MessageBox (``box``) or a form with ShowDialog
(``dialog``), printing ``MODAL-OPENS`` first and ``MODAL-RETURNED <result>`` when it returns, as a user
closing it would have it.
"""

import argparse
import os
import sys
import threading
import time

import pythonnet

pythonnet.load("mono")

import clr  # noqa: E402

clr.AddReference("System.Windows.Forms")
clr.AddReference("System.Drawing")

from System import Action  # noqa: E402
from System.Drawing import Point, Size  # noqa: E402
from System.Threading import ApartmentState, Thread, ThreadStart  # noqa: E402
from System.Windows.Forms import Application, Button, Form, FormStartPosition, MessageBox, Timer  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--ui", choices=("main", "thread", "dotnet-thread"), default="main")
parser.add_argument("--join", action="store_true")
parser.add_argument("--probe", action="store_true")
parser.add_argument("--close-when", default=None)
parser.add_argument("--then", default="return")
parser.add_argument("--refuse-close", action="store_true")
parser.add_argument("--slow-close", type=float, default=0.0)
parser.add_argument("--show-env", default=None)
parser.add_argument("--modal", choices=("box", "dialog"), default=None)
options = parser.parse_args()

shown = threading.Event()


def say(line: str) -> None:
    print(line, flush=True)


if options.show_env:
    say(f"ENV {os.environ.get(options.show_env)}")


def build() -> Form:
    form = Form()
    form.Name = "endingWindow"
    form.Text = "ending app"
    form.StartPosition = FormStartPosition.Manual
    form.Location = Point(40, 40)
    form.ClientSize = Size(220, 90)
    quit_button = Button()
    quit_button.Name = "quitButton"
    quit_button.Text = "Quit"
    quit_button.Location = Point(10, 10)
    quit_button.Click += lambda sender, args: form.Close()
    form.Controls.Add(quit_button)

    def open_modal() -> None:
        # Anything posted to the UI thread after this line runs inside the dialog's own loop.
        say("MODAL-OPENS")
        if options.modal == "box":
            result = MessageBox.Show("Save changes?", "modal")
        else:
            dialog = Form()
            dialog.Name = "modalDialog"
            dialog.Text = "modal"
            result = dialog.ShowDialog(form)
        say(f"MODAL-RETURNED {result}")

    def on_shown(sender: object, args: object) -> None:
        say(f"UP {time.time():.3f}")
        shown.set()
        if options.close_when:
            timer.Start()
        if options.modal:
            form.BeginInvoke(Action(open_modal))

    timer = Timer()
    timer.Interval = 50

    def tick(sender: object, args: object) -> None:
        if os.path.exists(options.close_when):
            timer.Stop()
            form.Close()

    timer.Tick += tick
    form.Shown += on_shown
    if options.refuse_close:
        form.FormClosing += lambda sender, args: setattr(args, "Cancel", True)
    if options.slow_close:
        form.FormClosing += lambda sender, args: time.sleep(options.slow_close)
    return form


form = build() if options.ui == "main" else None


def run_ui() -> None:
    global form
    try:
        if form is None:
            form = build()
    except BaseException:
        shown.set()  # a UI that could not be built (no display) must not leave the main thread waiting
        raise
    Application.Run(form)
    say(f"UI-ENDED {time.time():.3f}")


def start_probe() -> None:
    import wpfprobe

    wpfprobe.start(form, allow="interact", name="ending-app")


if options.ui == "main":
    if options.probe:
        start_probe()  # before Application.Run, as an app with its UI on the main thread would
    run_ui()
elif options.ui == "thread":
    ui = threading.Thread(target=run_ui, name="ui")
    ui.start()
    shown.wait()
    if options.probe:
        start_probe()
    if options.join:
        ui.join()
else:
    net = Thread(ThreadStart(run_ui))
    net.SetApartmentState(ApartmentState.STA)
    net.Start()
    shown.wait()
    if options.probe:
        start_probe()
    net.Join()

say("MAIN-ENDS")
if options.then == "raise":
    raise RuntimeError("the app's main code failed after its UI")
if options.then.startswith("exit:"):
    sys.exit(int(options.then.split(":", 1)[1]))
