"""A reproduction of a pythonnet deadlock, with no probe: ``python benchmarks/repro_pythonnet_class_race.py``.

Three threads make pythonnet build the Python classes of .NET types at once, while every
collection of Python's heap runs a Python callback (gc.callbacks). Prints "ok" and exits 0
when all three finish; a deadlock never prints (end it with Ctrl+C or a timeout).

pythonnet 3.2.0 and 3.2.1 hold a lock of their own (the class cache's) while they build a class,
and building one allocates, so a collection can run there, and its Python callback (as any
``__del__`` or weakref callback can) gives up the GIL at a switch. A second thread then takes the
GIL and waits for that lock, GIL held: neither goes on. Here (Mono 6.8): 3.2.0 and 3.2.1 deadlocked
every time, 3.0.5 and 3.1.0 never (docs/compatibility.md).
"""

from __future__ import annotations

import gc
import importlib
import os
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))
import wpfprobe_clr

wpfprobe_clr.ensure_clr()
import clr  # noqa: E402

for name in ("System.Windows.Forms", "System.Xml", "System.Data"):
    clr.AddReference(name)
from System import AppDomain  # noqa: E402

WANTED = ("System.Windows.Forms", "System.Xml", "System.Data", "mscorlib", "System")
names = [
    (t.Namespace, t.Name)
    for a in AppDomain.CurrentDomain.GetAssemblies()
    if a.GetName().Name in WANTED
    for t in a.GetExportedTypes()
    if t.Namespace and not t.IsGenericTypeDefinition and "`" not in t.Name
]
collections = [0]
gc.callbacks.append(lambda phase, info: collections.__setitem__(0, collections[0] + 1))


def build(part: list[tuple[str, str]]) -> None:
    for namespace, name in part:
        try:
            getattr(importlib.import_module(namespace), name)
        except Exception:
            continue


threads = [threading.Thread(target=build, args=(names[i::3],), daemon=True) for i in range(3)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(f"ok: {len(names)} classes, {collections[0]} collections", flush=True)
os._exit(0)  # the threads' classes stay; nothing else to wait for
