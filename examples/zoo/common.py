"""What every part of the zoo shares: placing a named control, and the journal its handlers report to."""

from __future__ import annotations

from typing import Any

from System.Drawing import Point, Size


def place(control: Any, name: str, x: int, y: int, width: int, height: int, text: str | None = None) -> Any:
    """Name, position and size ``control`` (and set its text); returns it, to be added by the caller."""
    control.Name = name
    control.Location = Point(x, y)
    control.Size = Size(width, height)
    if text is not None:
        control.Text = text
    return control


def add(parent: Any, *controls: Any) -> None:
    for control in controls:
        parent.Controls.Add(control)


class Journal:
    """What the app's handlers did, in order; the last entry also shows in the status bar.

    The status bar's text is how a user (or an agent) sees that a handler ran;
    ``events`` is the same record for code in the app's process (the tests).
    """

    def __init__(self) -> None:
        self.events: list[str] = []
        self.status: Any = None  # the status bar's label, once the status bar is built

    def __call__(self, text: str) -> None:
        self.events.append(text)
        if self.status is not None:
            self.status.Text = text

    @property
    def last(self) -> str | None:
        return self.events[-1] if self.events else None
