"""Where a run keeps what it did: ``<artifacts>/sessions/<session_id>/``.

A session folder holds ``steps.jsonl`` (every step, the recorded format of
``wpfprobe.core.trace``), ``trees/`` (the compact element tree after each
step), ``screens/`` (screenshots: on a failure, or after every step when
asked) and ``runner.log`` (what the runner did and decided, for a person).
Tickets go to ``<artifacts>/tickets/<session_id>/``.
"""

from __future__ import annotations

import datetime as _dt
import logging
import os
import re
from pathlib import Path

DEFAULT_ARTIFACTS = Path("artifacts")
LOGGER = "wpfprobe.testkit"


def new_session_id(kind: str) -> str:
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return f"{kind}-{stamp}-{os.urandom(3).hex()}"


def safe_name(text: str, limit: int = 60) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-")[:limit] or "x"


class SessionDir:
    """One run's folder, and its ``runner.log`` (a handler on the test kit's logger while it is open)."""

    def __init__(self, artifacts: str | os.PathLike[str], session_id: str) -> None:
        self.artifacts = Path(artifacts)
        self.session_id = session_id
        self.path = self.artifacts / "sessions" / session_id
        self.path.mkdir(parents=True, exist_ok=True)
        (self.path / "trees").mkdir(exist_ok=True)
        (self.path / "screens").mkdir(exist_ok=True)
        self._handler = logging.FileHandler(self.path / "runner.log", encoding="utf-8")
        self._handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        self._handler.setLevel(logging.DEBUG)
        # A logger of its own, outside logging's registry: the run's log goes to its file only. A registered
        # one is kept by the registry for good (one per run, minimization makes dozens), and pytest copies
        # every non-propagating registered logger into a failing test's report, beside the failure that
        # already says where runner.log is.
        self.log = logging.Logger(f"{LOGGER}.{session_id}", logging.DEBUG)
        self.log.propagate = False
        self.log.addHandler(self._handler)

    @property
    def tickets(self) -> Path:
        return self.artifacts / "tickets" / self.session_id

    @property
    def steps_path(self) -> Path:
        return self.path / "steps.jsonl"

    def relative(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.path))
        except ValueError:
            return str(path)

    def close(self) -> None:
        self.log.removeHandler(self._handler)
        self._handler.close()
