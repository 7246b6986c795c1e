"""The widget zoo (examples/zoo_app.py) as an app under test, or a changed build of it.

    python zoo_variant.py [--rows N] [--items N]
    ZOO_VARIANT=changed python zoo_variant.py ...

With ``ZOO_VARIANT=changed`` one handler says something else: turning word
wrap off reports "Word wrap disabled" instead of "Word wrap off". Everything
else is the zoo as it ships: a test recorded on the zoo must pass on it and
fail on the changed build at exactly that step.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
sys.path.insert(0, str(EXAMPLES))

import zoo_app  # noqa: E402 - loads the CLR and the zoo's parts from examples/
from zoo import common  # noqa: E402

if os.environ.get("ZOO_VARIANT") == "changed":
    report = common.Journal.__call__

    def changed(self: common.Journal, text: str) -> None:
        report(self, "Word wrap disabled" if text == "Word wrap off" else text)

    common.Journal.__call__ = changed  # type: ignore[method-assign]

if __name__ == "__main__":
    zoo_app.main(sys.argv[1:])
