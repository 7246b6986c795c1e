"""The Text and Values pages: text boxes (plain, masked, rich) in a table layout; numbers, a track bar, dates."""

from __future__ import annotations

from typing import Any

from System import DateTime, Decimal
from System.Windows.Forms import (
    DateTimePicker,
    DateTimePickerFormat,
    DockStyle,
    Label,
    MaskedTextBox,
    MonthCalendar,
    NumericUpDown,
    ProgressBar,
    RichTextBox,
    TableLayoutPanel,
    TabPage,
    TextBox,
    TrackBar,
)

from zoo.common import Journal, add, place

#: The dates the pickers start at: fixed, so a test reads the same thing every day.
START_DATE = (2024, 1, 15)
MEETING_DATE = (2024, 3, 10)


def _date(text: Any) -> str:
    return str(text.ToString("yyyy-MM-dd"))


def text_page(journal: Journal) -> Any:
    page = TabPage("Text")
    page.Name = "textPage"

    table = place(TableLayoutPanel(), "formTable", 10, 10, 430, 96)
    table.ColumnCount = 2
    table.RowCount = 3
    name = place(TextBox(), "visitorBox", 0, 0, 300, 24, "Ada")
    phone = place(MaskedTextBox("(999) 000-0000"), "phoneBox", 0, 0, 300, 24)
    email = place(TextBox(), "emailBox", 0, 0, 300, 24)
    for row, (caption, box) in enumerate((("&Name", name), ("&Phone", phone), ("&Email", email))):
        label = place(Label(), f"{box.Name.removesuffix('Box')}Label", 0, 0, 110, 24, caption)
        table.Controls.Add(label, 0, row)
        table.Controls.Add(box, 1, row)
    for control in (name, phone, email):
        control.Dock = DockStyle.Fill

    greeting = place(Label(), "welcomeLabel", 10, 112, 430, 22, "Hello, Ada")
    name.TextChanged += lambda sender, args: setattr(greeting, "Text", f"Hello, {name.Text}")

    def on_phone(sender: Any, args: Any) -> None:
        if phone.MaskCompleted:
            journal(f"Phone {phone.Text}")

    phone.TextChanged += on_phone
    phone.MaskInputRejected += lambda sender, args: journal(f"Phone rejected at {args.Position}")

    notes = place(RichTextBox(), "notesBox", 10, 140, 430, 150, "Notes:")
    notes.TextChanged += lambda sender, args: journal(f"Notes {len(list(notes.Lines))} lines")

    add(page, table, greeting, notes)
    return page


def values_page(journal: Journal) -> Any:
    page = TabPage("Values")
    page.Name = "valuesPage"

    quantity = place(NumericUpDown(), "quantityUpDown", 10, 10, 100, 24)
    quantity.Minimum = Decimal(0)
    quantity.Maximum = Decimal(100)
    quantity.Value = Decimal(5)
    quantity.ValueChanged += lambda sender, args: journal(f"Quantity {quantity.Value}")

    volume = place(TrackBar(), "volumeTrack", 10, 50, 240, 45)
    volume.Minimum = 0
    volume.Maximum = 100
    volume.TickFrequency = 10
    volume.SmallChange = 1
    volume.LargeChange = 10
    volume.Value = 30
    level = place(ProgressBar(), "volumeBar", 10, 100, 240, 20)
    level.Value = 30

    def on_volume(sender: Any, args: Any) -> None:
        level.Value = volume.Value  # the bar shows what the track bar is set to
        journal(f"Volume {volume.Value}")

    volume.ValueChanged += on_volume

    start = place(DateTimePicker(), "startPicker", 10, 140, 200, 24)
    start.Format = DateTimePickerFormat.Short
    start.Value = DateTime(*START_DATE)
    start.ValueChanged += lambda sender, args: journal(f"Start {_date(start.Value)}")

    meeting = place(MonthCalendar(), "meetingCalendar", 270, 10, 230, 170)
    meeting.MaxSelectionCount = 1
    meeting.SetDate(DateTime(*MEETING_DATE))
    meeting.DateChanged += lambda sender, args: journal(f"Meeting {_date(args.Start)}")

    add(page, quantity, volume, level, start, meeting)
    return page
