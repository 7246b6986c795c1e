"""The README's demo: the example app with the probe inside, and what the probe sees.

    ./run demo            (or: python examples/demo.py)

It starts the example app on its own UI thread (WinForms under a private
Xvfb on Linux, WPF on Windows), attaches wpfprobe from this thread, prints
the windows, the tree, one element's properties and how a secret is shown,
saves screenshots under artifacts/, and closes everything it started.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "artifacts"


def load_example(kind: str) -> Any:
    spec = importlib.util.spec_from_file_location(f"{kind}_app", ROOT / "examples" / f"{kind}_app.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def heading(text: str) -> None:
    print(f"\n== {text} " + "=" * max(0, 66 - len(text)))


def main() -> int:
    import wpfprobe
    from wpfprobe.testing import virtual_display

    kind = "wpf" if sys.platform.startswith("win") else "winforms"
    with virtual_display() as display:
        example = load_example(kind)
        app = example.start_in_background()
        try:
            started = time.perf_counter()
            probe = wpfprobe.attach(app.app, name="wpfprobe-demo")
            attach_ms = (time.perf_counter() - started) * 1000
            info = probe.session_info()
            heading("session")
            print(f"app {info.app_id}  pid {info.pid}  toolkit {info.toolkit}  runtime {info.runtime.description}")
            print(f"display {display or '(desktop)'}  attached in {attach_ms:.1f} ms")

            heading("windows")
            for w in probe.windows():
                b = w.bounds
                where = f"{b.x},{b.y} {b.width}x{b.height}" if b else "?"
                print(f"{w.node_id:>6}  {w.type:<10} {w.title!r:<20} {where}  locator {w.locator}")

            heading("visual tree (max depth 4)")
            tree = probe.tree(max_depth=4)
            print(tree)
            print(f"({tree.returned_node_count} nodes, truncated={tree.truncated})")

            heading("#greetingLabel: inspect and its non-default properties")
            label = probe.locator("#greetingLabel")
            el = label.inspect()
            print(f"path {el.path}\nlocator {el.locator}\nbounds {el.bounds}\ndataContextType {el.data_context_type}")
            for p in label.properties().items:
                bound = "  (data-bound)" if p.is_data_bound else ""
                print(f"  {p.name:<28} {str(p.value)!r:<34} {p.value_source}{bound}")

            heading("#passwordBox: secrets stay secret")
            secret = probe.locator("#passwordBox")
            print(f"text shown as {secret.node().text!r}")
            for p in secret.properties(include_defaults=True, take=200).items:
                if p.is_redacted:
                    print(f"  {p.name:<28} {p.value}  (getter never called)")

            heading("locators")
            for query in ('text="Save"', "Button[IsEnabled=false]", "#buttonPanel > Button:nth(0)"):
                found = [r.node for r in probe.find(query).results]
                print(f"  {query:<32} -> " + ", ".join(f"{n.type}#{n.name} [{n.node_id}]" for n in found))

            heading("screenshots")
            ARTIFACTS.mkdir(exist_ok=True)
            window_png = ARTIFACTS / "demo-window.png"
            probe.screenshot().save(window_png)
            button_png = ARTIFACTS / "demo-save-button.png"
            probe.locator("#saveButton").screenshot().save(button_png)
            for path in (window_png, button_png):
                print(f"  saved {path.relative_to(ROOT)} ({path.stat().st_size} bytes)")
        finally:
            # The UI thread must end before the interpreter does.
            app.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
