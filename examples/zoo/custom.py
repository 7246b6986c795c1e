"""The Custom page: controls whose classes are written in Python, a user control, a picture, a property grid.

Classes with ``__namespace__`` become .NET types of their own (``WidgetZoo.GaugePanel``):
.NET code, a PropertyGrid or the probe, sees their ``clrproperty``s as real
properties. A class without it (``AddressEditor``) is a Python subclass only:
.NET sees its base type, a ``UserControl``. A .NET type can be defined once
per process, so this module must be imported once (zoo_app imports it).
"""

from __future__ import annotations

from typing import Any

import clr
from System import Int32
from System.Drawing import Bitmap, Color, Font, Graphics, Pen, Rectangle, SolidBrush
from System.Windows.Forms import (
    Button,
    Form,
    Label,
    Panel,
    PictureBox,
    PictureBoxSizeMode,
    PropertyGrid,
    TabPage,
    TextBox,
    UserControl,
)

from zoo.common import Journal, add, place


class ZooWindow(Form):
    """The main window: a Form subclass that .NET knows by its own name, with a read-only property."""

    __namespace__ = "WidgetZoo"

    def __init__(self) -> None:
        super().__init__()
        self.journal: Journal | None = None

    @clr.clrproperty(Int32)
    def EventCount(self) -> int:
        """How many handlers have reported to the journal."""
        return len(self.journal.events) if self.journal is not None else 0


class GaugePanel(Panel):
    """A bar drawn by the app, as full as ``Level`` (0 to 100), a property .NET code can read and set."""

    __namespace__ = "WidgetZoo"

    def __init__(self) -> None:
        super().__init__()
        self._level = 40
        # The Paint event, not an OnPaint override: pythonnet overrides only public virtual
        # members, so WinForms would never call an OnPaint written here.
        self.Paint += self._draw

    @clr.clrproperty(Int32)
    def Level(self) -> int:
        return self._level

    @Level.setter
    def Level(self, value: int) -> None:
        self._level = max(0, min(100, int(value)))
        self.Invalidate()

    def _draw(self, sender: Any, args: Any) -> None:
        width = (self.ClientSize.Width - 1) * self._level // 100
        args.Graphics.FillRectangle(SolidBrush(Color.SeaGreen), Rectangle(0, 0, width, self.ClientSize.Height))
        args.Graphics.DrawRectangle(
            Pen(Color.Black), Rectangle(0, 0, self.ClientSize.Width - 1, self.ClientSize.Height - 1)
        )


class TallyButton(Button):
    """A button that counts its own clicks in ``Tally``."""

    __namespace__ = "WidgetZoo"

    def __init__(self) -> None:
        super().__init__()
        self._tally = 0
        self.journal: Journal | None = None
        self.Click += self._count

    @clr.clrproperty(Int32)
    def Tally(self) -> int:
        return self._tally

    def _count(self, sender: Any, args: Any) -> None:
        self._tally += 1
        if self.journal is not None:
            self.journal(f"Tally {self._tally}")


class AddressEditor(UserControl):
    """A user control made of a few others; no ``__namespace__``, so .NET sees a plain UserControl."""

    def __init__(self, journal: Journal) -> None:
        super().__init__()
        self.street = place(TextBox(), "streetBox", 80, 8, 200, 24, "1 Main St")
        self.town = place(TextBox(), "townBox", 80, 38, 200, 24, "Springfield")
        copy = place(Button(), "copyAddressButton", 80, 68, 120, 26, "&Copy address")
        copy.Click += lambda sender, args: journal(f"Address {self.street.Text}, {self.town.Text}")
        add(
            self,
            place(Label(), "streetLabel", 4, 10, 70, 20, "&Street"),
            self.street,
            place(Label(), "townLabel", 4, 40, 70, 20, "&Town"),
            self.town,
            copy,
        )


def logo() -> Any:
    """The picture: drawn in code, so the example needs no image file."""
    image = Bitmap(96, 64)
    graphics = Graphics.FromImage(image)
    try:
        graphics.Clear(Color.LightYellow)
        graphics.FillEllipse(SolidBrush(Color.DarkOrange), Rectangle(8, 8, 48, 48))
        graphics.DrawString("ZOO", Font("Sans", 12.0), SolidBrush(Color.Black), 56.0, 22.0)
    finally:
        graphics.Dispose()
    return image


def custom_page(journal: Journal) -> Any:
    page = TabPage("Custom")
    page.Name = "customPage"

    address = place(AddressEditor(journal), "addressEditor", 10, 10, 300, 100)
    gauge = place(GaugePanel(), "levelGauge", 330, 10, 200, 30)
    raise_level = place(Button(), "raiseLevelButton", 330, 50, 110, 28, "&Raise level")
    tally = place(TallyButton(), "tallyButton", 450, 50, 110, 28, "&Tally")
    tally.journal = journal
    picture = place(PictureBox(), "logoPicture", 330, 90, 96, 64)
    picture.SizeMode = PictureBoxSizeMode.Zoom
    picture.Image = logo()
    picture.Click += lambda sender, args: journal("Logo clicked")

    inspector = place(PropertyGrid(), "gaugeProperties", 10, 170, 520, 300)
    inspector.SelectedObject = gauge  # Level is listed with the Panel's own properties

    def on_raise(sender: Any, args: Any) -> None:
        gauge.Level = gauge.Level + 10
        inspector.Refresh()
        journal(f"Level {gauge.Level}")

    raise_level.Click += on_raise
    add(page, address, gauge, raise_level, tally, picture, inspector)
    return page
