"""The Buttons page: buttons, check boxes (two- and three-state), radio buttons in a group, a link, a flow layout."""

from __future__ import annotations

from typing import Any

from System.Drawing import Color
from System.Windows.Forms import (
    Button,
    CheckBox,
    CheckState,
    FlowLayoutPanel,
    GroupBox,
    LinkLabel,
    Panel,
    RadioButton,
    TabPage,
)

from zoo.common import Journal, add, place

SWATCHES = ("Red", "Green", "Blue", "Gray")


def buttons_page(journal: Journal) -> Any:
    page = TabPage("Buttons")
    page.Name = "buttonsPage"

    hello = place(Button(), "helloButton", 10, 10, 110, 28, "Say &hello")
    hello.Click += lambda sender, args: journal("Hello clicked")
    disabled = place(Button(), "lockedButton", 130, 10, 110, 28, "Disabled")
    disabled.Enabled = False

    wrap = place(CheckBox(), "wrapCheck", 10, 50, 140, 24, "Word &wrap")
    wrap.Checked = True
    wrap.CheckedChanged += lambda sender, args: journal(f"Word wrap {'on' if wrap.Checked else 'off'}")
    notify = place(CheckBox(), "notifyCheck", 160, 50, 160, 24, "&Notify me")
    notify.ThreeState = True
    notify.CheckState = CheckState.Indeterminate
    notify.CheckStateChanged += lambda sender, args: journal(f"Notify {notify.CheckState}")

    group = place(GroupBox(), "sizeGroup", 10, 84, 230, 110, "Size")
    for i, size in enumerate(("Small", "Medium", "Large")):
        radio = place(RadioButton(), f"{size.lower()}Radio", 12, 22 + 26 * i, 200, 24, f"&{size}")
        radio.Checked = size == "Medium"

        def on_radio(sender: Any, args: Any, radio: Any = radio, size: str = size) -> None:
            if radio.Checked:  # the one that lost its check raises CheckedChanged too
                journal(f"Size {size}")

        radio.CheckedChanged += on_radio
        group.Controls.Add(radio)

    link = place(LinkLabel(), "helpLink", 10, 206, 200, 20, "Open the help page")
    link.AutoSize = True

    def on_link(sender: Any, args: Any) -> None:
        link.LinkVisited = True
        journal("Help link clicked")

    link.LinkClicked += on_link

    preview = place(Panel(), "swatchPreview", 260, 84, 80, 80)
    preview.BackColor = Color.White
    swatches = place(FlowLayoutPanel(), "swatchFlow", 260, 10, 360, 64)
    for colour in SWATCHES:
        swatch = place(Button(), f"{colour.lower()}Swatch", 0, 0, 80, 28, colour)

        def on_swatch(sender: Any, args: Any, colour: str = colour) -> None:
            preview.BackColor = Color.FromName(colour)
            journal(f"Colour {colour}")

        swatch.Click += on_swatch
        swatches.Controls.Add(swatch)

    add(page, hello, disabled, wrap, notify, group, link, swatches, preview)
    return page
