"""A process whose probe poster made a post before the CLR was loaded (as the test suite's fake UI
threads do), then attaches to a real app, reads it, closes it and exits. Prints "EXITING" last;
the test times how long the process takes to end after it."""

from __future__ import annotations

import queue

import example_app

from wpfprobe_clr import _ui_thread

done: queue.SimpleQueue[None] = queue.SimpleQueue()
_ui_thread._POSTER.submit(lambda work: work(), lambda: done.put(None), on_error=None)  # no CLR yet
done.get(timeout=30)

import wpfprobe  # noqa: E402
import wpfprobe_clr  # noqa: E402

wpfprobe_clr.ensure_clr()
app = example_app.load_example().start_in_background()
probe = wpfprobe.attach(app.app, name="posted-before-clr")
print("WINDOWS", [w.title for w in probe.windows()], flush=True)  # the poster posts to the real UI now
app.close()
print("EXITING", flush=True)
