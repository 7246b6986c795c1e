"""The probe makes a Python class only for the .NET classes it uses, not for every class it knows.

pythonnet builds a Python class for a .NET class (reflecting all its members;
Mono loads its metadata too) the first time Python names it or meets an object
of it: 20 ms and 1.7 MiB for DataGridView. The WinForms toolkit used to import
some 100 classes by name at its top, so every app paid for all of them at the
probe's start, and the walk's type tests made them again if imports had not.
Now a class is named through ``net.lazy`` (``WF.DataGridView``) when the probe
first needs it, and a type test uses the ``System.Type`` alone
(``WF.types.DataGridView``), for which pythonnet builds nothing.

Observed in pythonnet itself: ``Python.Runtime.ClassManager``'s cache holds
every class it has built. The app is scripts/zoo_app.py in a process of its
own (Panels, Buttons, TextBoxes, Labels, most of them Python-defined), so the
classes counted are the probe's doing and nobody else's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from zoo_harness import run_driver

#: WinForms controls the zoo has none of, each of which the toolkit knows (walks, items, actions).
NOT_IN_THE_APP = ("DataGridView", "ListView", "TreeView", "TabControl", "NumericUpDown", "DateTimePicker", "TrackBar")


def built_classes() -> set[str]:
    """The full names of the .NET types pythonnet has made Python classes for, in this process."""
    from System import Type
    from System.Reflection import BindingFlags

    manager = Type.GetType("Python.Runtime.ClassManager, Python.Runtime", True)
    cache = manager.GetField("cache", BindingFlags.NonPublic | BindingFlags.Static)
    assert cache is not None, "pythonnet's ClassManager keeps its classes elsewhere now: find where"
    # Another thread (the walk's compile) may add a class while this reads the cache, which then
    # refuses to go on (pythonnet 3.1 guards it with no lock): read it again.
    from System import InvalidOperationException

    for _attempt in range(20):
        try:
            return {str(key) for key in cache.GetValue(None).Keys}
        except InvalidOperationException:
            continue
    raise AssertionError("pythonnet's class cache kept changing while it was read")


def what_the_first_answers_build(probe: Any, facts: Any, collect: Any) -> dict[str, Any]:
    """Runs inside zoo_app.py, the probe attached: the first answers a client asks for, then pythonnet's classes."""
    windows = probe.windows()
    tree = probe.tree(max_depth=10)
    found = probe.locator("TextBox#innerBox").count()
    built = built_classes()
    return {
        "windows": [w.name for w in windows],
        "nodes": len(tree.walk()),
        "found": found,
        "form": "System.Windows.Forms.Form" in built,
        "unused": sorted(n for n in NOT_IN_THE_APP if f"System.Windows.Forms.{n}" in built),
    }


def test_the_first_answers_build_no_class_for_controls_the_app_does_not_have(
    display: str | None, tmp_path: Path
) -> None:
    seen, facts, _ = run_driver(tmp_path, what_the_first_answers_build, "--load", "mono")
    assert seen["windows"] == ["zooWindow"] and seen["nodes"] > 10 and seen["found"] == 1, seen
    assert seen["form"], "the cache read is pythonnet's: the app's own Form class is in it"
    assert seen["unused"] == [], f"the probe made classes for controls the app has none of: {seen['unused']}"
    assert facts["threadExceptions"] == []
