"""The widget zoo's parts, one module per area of the app (see examples/zoo_app.py for the whole).

- ``common``: placing controls, and the ``Journal`` every handler reports to
- ``chrome``: the menu bar, tool bar, status bar, and the navigation tree with its context menu
- ``basics``: buttons, check boxes, radio buttons in a group, a link, a flow layout
- ``lists``: list boxes (plain, checked, owner-drawn, big), combo boxes, a list view, the data grid
- ``editors``: text boxes (plain, masked, rich) in a table layout; numbers, a track bar, dates
- ``custom``: controls whose classes are written in Python, a user control, a picture, a property grid
- ``windows``: the MDI parent with its old-style MainMenu and children, and the modeless Find window

Each module imports System.*: load the CLR before importing them (zoo_app does).
"""
