"""A small WinForms app that knows nothing of wpfprobe: type a name, press Greet, read the greeting.

    python -m wpfprobe.examples.greeter          # run it as any pythonnet app
    wpfprobe demo                                # the same app with the probe inside, driven as an agent would

Its elements: greeterWindow (the form), nameBox, greetButton (the form's default button), greetingLabel,
and clearButton. Greet with an empty name shows "Hello, stranger". On Linux it runs on Mono (apt-get
install mono-complete), on Windows on the .NET Framework.
"""

from __future__ import annotations

import os

# Mono's default thread-suspend mode can deadlock pythonnet calls made from two threads (the UI's and a
# probe's) during a garbage collection; Mono reads the mode when it loads.
os.environ.setdefault("MONO_THREADS_SUSPEND", "preemptive")

import pythonnet

pythonnet.load()  # Mono on Linux and macOS, the .NET Framework on Windows

import clr  # noqa: E402

clr.AddReference("System.Windows.Forms")
clr.AddReference("System.Drawing")

from System.Drawing import Point, Size  # noqa: E402
from System.Windows.Forms import Application, Button, Form, FormStartPosition, Label, TextBox  # noqa: E402


def build() -> Form:
    form = Form()
    form.Name = "greeterWindow"
    form.Text = "Greeter"
    form.ClientSize = Size(360, 130)
    form.StartPosition = FormStartPosition.CenterScreen

    name = TextBox()
    name.Name = "nameBox"
    name.Location = Point(12, 14)
    name.Size = Size(220, 24)

    greet = Button()
    greet.Name = "greetButton"
    greet.Text = "Greet"
    greet.Location = Point(244, 12)
    greet.Size = Size(100, 28)

    clear = Button()
    clear.Name = "clearButton"
    clear.Text = "Clear"
    clear.Location = Point(244, 48)
    clear.Size = Size(100, 28)

    greeting = Label()
    greeting.Name = "greetingLabel"
    greeting.Text = ""
    greeting.Location = Point(12, 90)
    greeting.Size = Size(330, 24)

    def on_greet(sender: object, args: object) -> None:
        greeting.Text = f"Hello, {name.Text.strip() or 'stranger'}"

    def on_clear(sender: object, args: object) -> None:
        name.Text = ""
        greeting.Text = ""

    greet.Click += on_greet
    clear.Click += on_clear
    form.AcceptButton = greet
    for control in (name, greet, clear, greeting):
        form.Controls.Add(control)
    return form


def main() -> None:
    Application.EnableVisualStyles()
    Application.Run(build())


if __name__ == "__main__":
    main()
