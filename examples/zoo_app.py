"""The widget zoo: every standard WinForms control and pattern in one app, for trying wpfprobe on.

    python examples/zoo_app.py [--rows N] [--items N]

In the spirit of FlaUI's test applications. It knows nothing of wpfprobe;
every handler reports what it did in the status bar (``statusText``), which is
how a user, an agent or a test sees that the app's own code ran. Names are
chosen so locators read well: ``#helloButton``, ``#fruitList > text="Banana"``,
``menu:File/Find...``. ``--rows`` sets the orders grid's rows (default 3000)
and ``--items`` the catalog list's items (default 200): the big data that
benchmarks scale. Its parts are in ``examples/zoo/``, one module per area.

zooWindow (WidgetZoo.ZooWindow: a Form subclass written in Python, with the clrproperty EventCount)
  zooMenu (MenuStrip): File (Find... Ctrl+F, Documents, Exit), View (Status bar, Tool bar:
      check marks), Help (About the zoo)
  zooToolBar (ToolStrip): New, Bold (a check button), zoom (ToolStripComboBox),
      Share (a drop-down button: Email, Print), a label
  zooStatusBar (StatusStrip): statusText (the last thing a handler did), rowCountText, busyBar
  mainSplit (SplitContainer)
    navPanel: animalTree (TreeView: Mammals expanded, Horses, Birds and Reptiles collapsed;
        its ContextMenuStrip animalMenu: Feed, Expand all, Collapse all)
    pagesPanel: zooTabs (TabControl), one page each:
      Buttons  helloButton, lockedButton, wrapCheck (CheckBox), notifyCheck (three-state),
               sizeGroup (GroupBox: smallRadio, mediumRadio, largeRadio), helpLink (LinkLabel),
               swatchFlow (FlowLayoutPanel of four buttons) colouring swatchPreview (Panel)
      Lists    fruitList (ListBox), toppingList (CheckedListBox), cityCombo (ComboBox, DropDown),
               portionCombo (ComboBox, DropDownList), paintList (an owner-drawn ListBox),
               catalogList (ListBox, --items parts), peopleView (ListView: details, columns,
               check boxes; a column click sorts)
      Text     formTable (TableLayoutPanel: visitorBox, phoneBox (MaskedTextBox "(999) 000-0000"),
               emailBox and their labels), welcomeLabel (follows visitorBox), notesBox (RichTextBox)
      Values   quantityUpDown (NumericUpDown), volumeTrack (TrackBar) driving volumeBar
               (ProgressBar), startPicker (DateTimePicker), meetingCalendar (MonthCalendar)
      Grid     ordersGrid (DataGridView bound to a DataTable of --rows orders:
               Id, Customer, Product, Quantity, Shipped)
      Custom   addressEditor (AddressEditor: a UserControl subclass without __namespace__:
               streetBox, townBox, copyAddressButton), levelGauge (WidgetZoo.GaugePanel: a Panel
               subclass with the clrproperty Level, drawn by the app), raiseLevelButton,
               tallyButton (WidgetZoo.TallyButton: counts its clicks in the clrproperty Tally),
               logoPicture (PictureBox), gaugeProperties (PropertyGrid showing levelGauge)
findWindow (modeless, owned by zooWindow): findBox, matchCaseCheck, findNextButton: finds a
    fruit or a catalog part, selects it and says so
documentsWindow (an MDI parent with the old-style MainMenu documentsMenu: File (New document,
    Close document), Window (the open documents, Cascade, Tile horizontally)), holding
    document1 and document2 (MDI children, each with a text box); the title names the active one

Closing findWindow or documentsWindow hides it; the File menu shows it again.

The tests run it through tests/integration/widget_zoo.py. The Python-defined
controls' hard cases (getters that fail or hold secrets, garbage collections
forced to orphan pythonnet's objects, the CLR loaded by the app first) have an
app of their own, tests/integration/scripts/zoo_app.py, run in a process per
probe mode: they are test instruments, not something to show a user.
"""

from __future__ import annotations

import argparse
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if "clr" not in sys.modules:
    import os

    import pythonnet

    # Mono's default thread-suspend mode can deadlock pythonnet calls made from
    # several threads during a garbage collection; signals do not.
    os.environ.setdefault("MONO_THREADS_SUSPEND", "preemptive")
    pythonnet.load()  # Mono on Linux and macOS, .NET Framework on Windows

import clr

clr.AddReference("System.Windows.Forms")
clr.AddReference("System.Drawing")
clr.AddReference("System.Data")

from System import Func, Object
from System.Drawing import Point, Size
from System.Threading import ApartmentState, Thread, ThreadStart
from System.Windows.Forms import Application, DockStyle, FormStartPosition, SplitContainer, TabControl

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the zoo's parts, also when loaded by path
from zoo import basics, chrome, custom, editors, lists, windows
from zoo.common import Journal

TITLE = "Widget zoo"
DEFAULT_ROWS = 3000
DEFAULT_ITEMS = 200


@dataclass
class Zoo:
    """The zoo's windows, its journal and its data, as built (use them on the UI thread)."""

    form: Any
    journal: Journal
    table: Any
    find_window: Any
    documents_window: Any
    rows: int
    items: int

    def control(self, name: str) -> Any:
        """The window or control named ``name`` in any of the zoo's windows (call on the UI thread)."""
        for window in (self.form, self.find_window, self.documents_window):
            if window.Name == name:
                return window
            found = window.Controls.Find(name, True)
            if len(found):
                return found[0]
        raise LookupError(f"the zoo has no control named {name!r}")


def build(*, rows: int = DEFAULT_ROWS, items: int = DEFAULT_ITEMS) -> Zoo:
    """The zoo. Call on the thread that will run its message loop; show ``zoo.form``."""
    journal = Journal()
    lifetime = windows.Lifetime()
    form = custom.ZooWindow()
    form.journal = journal
    form.Name = "zooWindow"
    form.Text = TITLE
    form.StartPosition = FormStartPosition.Manual
    form.Location = Point(10, 10)
    form.ClientSize = Size(980, 680)

    table = lists.orders_table(rows)
    tabs = TabControl()
    tabs.Name = "zooTabs"
    tabs.Dock = DockStyle.Fill
    for page in (
        basics.buttons_page(journal),
        lists.lists_page(journal, items),
        editors.text_page(journal),
        editors.values_page(journal),
        lists.grid_page(journal, table),
        custom.custom_page(journal),
    ):
        tabs.TabPages.Add(page)
    tabs.SelectedIndexChanged += lambda sender, args: journal(f"Tab {tabs.SelectedTab.Text}")

    split = SplitContainer()
    split.Name = "mainSplit"
    split.Dock = DockStyle.Fill
    split.Panel1.Name = "navPanel"
    split.Panel2.Name = "pagesPanel"
    split.Panel1.Controls.Add(chrome.navigation_tree(journal))
    split.Panel2.Controls.Add(tabs)
    split.SplitterMoved += lambda sender, args: journal(f"Split at {split.SplitterDistance}")

    def find(text: str, match_case: bool) -> str | None:
        """The first fruit, else catalog part, whose text contains ``text``: selected, on its page."""
        wanted = text if match_case else text.lower()
        for list_name in ("fruitList", "catalogList"):
            box = form.Controls.Find(list_name, True)[0]
            for i in range(box.Items.Count):
                candidate = str(box.Items[i])
                if wanted and wanted in (candidate if match_case else candidate.lower()):
                    tabs.SelectedTab = box.Parent
                    box.SelectedIndex = i
                    return candidate
        return None

    find_window = windows.find_window(journal, lifetime, find)
    documents = windows.documents_window(journal, lifetime)
    tool_bar = chrome.tool_bar(journal)
    status_bar = chrome.status_bar(journal, rows)

    def show(window: Any) -> None:
        window.Show()
        window.Activate()

    actions: dict[str, Callable[..., None]] = {
        "find": lambda: show(find_window),
        "documents": lambda: show(documents),
        "exit": form.Close,
        "status bar": lambda shown: setattr(status_bar, "Visible", shown),
        "tool bar": lambda shown: setattr(tool_bar, "Visible", shown),
    }
    menu = chrome.menu_bar(journal, actions)

    # Docking order: the fill first, then the bars from the inside out.
    for control in (split, tool_bar, menu, status_bar):
        form.Controls.Add(control)
    form.MainMenuStrip = menu
    split.SplitterDistance = 180

    def on_shown(sender: Any, args: Any) -> None:
        find_window.Owner = form  # modeless, but it stays in front of the zoo and closes with it
        find_window.Show()
        documents.Show()
        form.Activate()

    form.Shown += on_shown
    form.FormClosing += lambda sender, args: lifetime.end()
    return Zoo(form, journal, table, find_window, documents, rows, items)


class BackgroundZoo:
    """The zoo running on a UI thread of its own (how the tests use it)."""

    toolkit = "winforms"

    def __init__(self, zoo: Zoo, thread: Thread) -> None:
        self.zoo = zoo
        self.app = zoo.form
        self.main_window = zoo.form
        self._thread = thread

    def invoke(self, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` on the UI thread and return its result."""
        return self.app.Invoke(Func[Object](fn))

    def close(self, timeout: float = 10.0) -> None:
        if self._thread.IsAlive and not self.app.IsDisposed:
            try:
                self.app.BeginInvoke(Func[Object](lambda: self.app.Close()))
            except Exception:
                pass
        self._thread.Join(int(timeout * 1000))


def start_in_background(
    *, rows: int = DEFAULT_ROWS, items: int = DEFAULT_ITEMS, timeout: float = 60.0
) -> BackgroundZoo:
    """Start the zoo on a new STA thread and return once its windows are shown."""
    shown = threading.Event()
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            zoo = build(rows=rows, items=items)
            zoo.form.Shown += lambda sender, args: shown.set()
            box["zoo"] = zoo
            Application.Run(zoo.form)
        except Exception as exc:
            box["error"] = exc
            shown.set()

    thread = Thread(ThreadStart(run))
    thread.SetApartmentState(ApartmentState.STA)
    thread.IsBackground = True
    thread.Start()
    if not shown.wait(timeout):
        raise TimeoutError(f"the widget zoo did not show its window within {timeout} s")
    if "error" in box:
        raise RuntimeError(f"the widget zoo failed to start: {box['error']}")
    return BackgroundZoo(box["zoo"], thread)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Every standard WinForms control in one app.")
    parser.add_argument("--rows", type=int, default=DEFAULT_ROWS, help="orders in the grid")
    parser.add_argument("--items", type=int, default=DEFAULT_ITEMS, help="parts in the catalog list")
    options = parser.parse_args(argv)
    Application.EnableVisualStyles()
    Application.Run(build(rows=options.rows, items=options.items).form)


if __name__ == "__main__":
    main()
