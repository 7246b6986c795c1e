"""Attach to the example app and print, as JSON, the order in which ``connect`` did its first
.NET work: the element-id delegate's compile ("id"), the toolkit's connection, which posts its
hooks to the UI thread ("toolkit"), and the walk's compile ("walk")."""

from __future__ import annotations

import json

import example_app

import wpfprobe
import wpfprobe_clr
from wpfprobe_clr import _compiling, _objects, toolkits

order: list[str] = []


def recorded(name: str, fn):  # type: ignore[no-untyped-def]
    def call(*args, **kwargs):  # type: ignore[no-untyped-def]
        order.append(name)
        return fn(*args, **kwargs)

    return call


_objects.id_delegate = recorded("id", _objects.id_delegate)
toolkits.connect = recorded("toolkit", toolkits.connect)
_compiling.compile_walk = recorded("walk", _compiling.compile_walk)

wpfprobe_clr.ensure_clr()
app = example_app.load_example().start_in_background()
probe = wpfprobe.attach(app.app, name="attach-order")
print(json.dumps({"order": order, "windows": len(probe.windows())}), flush=True)
app.close()
