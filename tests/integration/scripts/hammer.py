"""Many threads calling the probe while the CLR collects garbage: must finish, never hang.

Run by test_concurrency.py in a subprocess with a deadline. Prints DONE <calls> at the end.
"""

from __future__ import annotations

import sys
import threading

from example_app import load_example

CALLS_PER_THREAD = int(sys.argv[1]) if len(sys.argv) > 1 else 150


def main() -> None:
    import wpfprobe
    import wpfprobe_clr
    from wpfprobe.testing import virtual_display

    wpfprobe_clr.ensure_clr()  # the probe loads the CLR, as for an app that lets it

    with virtual_display():
        example = load_example()
        from System import GC

        app = example.start_in_background()
        try:
            probe = wpfprobe.attach(app.app)
            stop = threading.Event()
            errors: list[BaseException] = []
            done = [0]

            def reader() -> None:
                try:
                    for _ in range(CALLS_PER_THREAD):
                        probe.locator("#saveButton").inspect()
                        probe.tree(max_depth=3)
                        done[0] += 1
                except BaseException as exc:
                    errors.append(exc)

            def collector() -> None:
                while not stop.is_set():
                    GC.Collect()

            threads = [threading.Thread(target=reader) for _ in range(3)]
            gc_thread = threading.Thread(target=collector)
            gc_thread.start()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            stop.set()
            gc_thread.join()
            if errors:
                raise errors[0]
            print(f"DONE {done[0]}", flush=True)
        finally:
            app.close()


if __name__ == "__main__":
    main()
