"""The example WinForms app with hostile-input bait, serving MCP, in a process of its own.

    python fuzz_app.py --secret S [--allow TIER]

For the hostile-input and fuzz tests (tests/integration/test_hostile_input.py,
test_fuzz_mcp.py, benchmarks/fuzz_mcp.py). It is examples/winforms_app.py plus:

- bombBox (TextBox) and bombLabel (Label) holding 40 ``a``s and a ``!``, the text
  a backtracking regex (``^(a+)+$``) never finishes with;
- vaultPanel (VaultPanel, a Panel written in Python): clrproperties ApiKey and
  ConnectionString returning the secret, each getter counting its calls;
- passwordBox holding the secret instead of "hunter2".

The secret comes from the command line, so a test can look for it in every
answer. The UI runs on an STA thread of its own; exceptions that reach its
message loop are recorded, not shown. It prints one JSON line {"url", "token",
"pid"} when it serves, then nothing until it ends: on "close" on stdin, or when
its main window is closed (a fuzzer may click File > Exit), it prints
{"facts": ...} and exits 0. Anything else on stdout or stderr was printed by
the app, the probe or a library in it, which must print nothing.

Custom tool ``fuzz_facts`` (read tier, on the UI thread): repaints every open
form at once (a paint is where a control too large for X11 kills the UI
thread), then returns the facts: thread exceptions, secret getter calls.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import threading
import warnings
from pathlib import Path
from typing import Any

parser = argparse.ArgumentParser()
parser.add_argument("--secret", required=True)
parser.add_argument("--allow", default="mutate")
options = parser.parse_args()

# Debian's Mono is 6.8: clr_loader warns about it on every start (DESIGN.md: it works).
warnings.filterwarnings("ignore", message="Hosting Mono versions before")
os.environ.setdefault("MONO_THREADS_SUSPEND", "preemptive")
import pythonnet  # noqa: E402

pythonnet.load("mono")
import clr  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
spec = importlib.util.spec_from_file_location("example_winforms_app", ROOT / "examples" / "winforms_app.py")
assert spec is not None and spec.loader is not None
example = importlib.util.module_from_spec(spec)
spec.loader.exec_module(example)

import System  # noqa: E402
from System import String  # noqa: E402
from System.Drawing import Point, Size  # noqa: E402
from System.Threading import ApartmentState, Thread, ThreadStart  # noqa: E402
from System.Windows.Forms import (  # noqa: E402
    Application,
    Form,
    Label,
    Panel,
    TextBox,
    UnhandledExceptionMode,
)

BOMB = "a" * 40 + "!"
FACTS: dict[str, Any] = {"threadExceptions": [], "secretReads": 0}


class VaultPanel(Panel):
    __namespace__ = "FuzzApp"

    @clr.clrproperty(String)
    def ApiKey(self) -> str:
        FACTS["secretReads"] += 1
        return options.secret

    @clr.clrproperty(String)
    def ConnectionString(self) -> str:
        FACTS["secretReads"] += 1
        return f"Server=db;Password={options.secret}"


def build() -> Form:
    form = example.build()
    panel = form.Controls.Find("formPanel", False)[0]
    form.Controls.Find("passwordBox", True)[0].Text = options.secret
    for control, name, x, y in ((TextBox(), "bombBox", 250, 300), (Label(), "bombLabel", 250, 330)):
        control.Name = name
        control.Text = BOMB
        control.Location = Point(x, y)
        control.Size = Size(190, 22)
        panel.Controls.Add(control)
    vault = VaultPanel()
    vault.Name = "vaultPanel"
    vault.Location = Point(400, 270)
    vault.Size = Size(40, 20)
    panel.Controls.Add(vault)
    FACTS["vault"] = vault  # held, so pythonnet keeps the .NET object's Python half
    return form


def on_thread_exception(sender: Any, args: Any) -> None:
    FACTS["threadExceptions"].append(f"{args.Exception.GetType().FullName}: {args.Exception.Message}")


def public_facts() -> dict[str, Any]:
    return {"threadExceptions": list(FACTS["threadExceptions"]), "secretReads": FACTS["secretReads"]}


def main() -> None:
    ready = threading.Event()
    ended = threading.Event()
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            Application.SetUnhandledExceptionMode(UnhandledExceptionMode.CatchException)
            Application.ThreadException += on_thread_exception
            form = build()
            form.Shown += lambda sender, args: ready.set()
            box["form"] = form
            Application.Run(form)
        finally:
            ended.set()
            ready.set()

    thread = Thread(ThreadStart(run))
    thread.SetApartmentState(ApartmentState.STA)
    thread.Start()
    if not ready.wait(60) or ended.is_set():
        raise SystemExit("the app did not come up")
    form = box["form"]

    import wpfprobe

    @wpfprobe.tool(ui_thread=True)
    def fuzz_facts() -> dict[str, Any]:
        """Repaint every open form now, then the exceptions that reached the message loop and secret reads."""
        for open_form in list(Application.OpenForms):
            open_form.Refresh()
        return public_facts()

    handle = wpfprobe.start(form, allow=options.allow, name="fuzz")
    print(json.dumps({"url": handle.url, "token": handle.token, "pid": os.getpid()}), flush=True)
    asked = threading.Event()

    def watch_stdin() -> None:
        for line in sys.stdin:
            if line.strip() == "close":
                break
        asked.set()
        ended.set()

    threading.Thread(target=watch_stdin, daemon=True).start()
    ended.wait()
    closed = "stdin" if asked.is_set() else "form"
    if asked.is_set():
        try:
            form.BeginInvoke(System.Func[System.Object](lambda: form.Close()))
        except Exception:
            pass
    thread.Join(30_000)
    handle.stop()
    print(json.dumps({"facts": {**public_facts(), "ended": closed}}), flush=True)


if __name__ == "__main__":
    main()
