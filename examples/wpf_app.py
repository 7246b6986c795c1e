"""A small pythonnet-hosted WPF app to try wpfprobe on (Windows only).

Run it with ``python examples/wpf_app.py``, or import it and call ``start_in_background()``: the
integration tests do that. The element names are the shared example contract:
``examples/winforms_app.py`` uses the same ones, so the same tests run on both:
mainWindow, menuBar/fileMenu/saveMenuItem (Ctrl+S)/saveAsMenuItem/exitMenuItem,
formPanel (holding fieldsTable and buttonPanel), nameBox, passwordBox,
greetingLabel, brokenLabel, statusLabel, itemsList, sizeCombo, subscribeCheck,
saveButton (the window's default button), disabledButton, loadButton (sets the
status 600 ms later), coveredButton under coverPanel, hiddenLabel; Save As
opens the modal saveAsDialog with fileNameBox, okButton and cancelButton.
Every action a test drives reports itself in statusLabel.

What it shows: a menu with a key binding, nested layout, a working data binding
(``greetingLabel`` follows ``nameBox`` through the DataContext), a broken one
(``brokenLabel``), a style DataTrigger (``statusLabel`` turns red while
``nameBox`` is empty), a password box, a non-virtualized list, a combo box, a
check box, a disabled button, a button covered by a panel, a timer, a modal
dialog and a collapsed label.

Items of every kind, in itemsPanel (WPF only; tests/integration/test_wpf_items.py):
peopleList (200 DataRowViews shown by DisplayMemberPath="Name", virtualized),
accountsList (shown by their Password: a list of secrets), fruitCombo (strings,
one with a "_"), foodTree (a data-bound tree: Fruits expanded, Vegetables and
Root vegetables collapsed), ordersGrid (a DataGrid of 300 orders, Id
read-only), detailsTabs (generalTab with optionsList of check boxes,
emailOption reports itself, and notesTab), and View > Word Wrap, a checkable
menu item. Captions carry "_" access keys (_File, Save _As, _View, _General).

WPF types are imported by name and every WPF-typed variable is annotated, so
``tests/unit/wpf_surface.py`` can check this file against the WPF API.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

import clr

for _assembly in ("WindowsBase", "PresentationCore", "PresentationFramework", "System.Data"):
    clr.AddReference(_assembly)

from System import Action, Array, Boolean, DBNull, Double, Int32, Object, String, TimeSpan
from System.Data import DataRelation, DataRow, DataRowChangeEventArgs, DataRowView, DataSet, DataTable, DataView
from System.Threading import ApartmentState, Thread, ThreadStart
from System.Windows import Application, RoutedEventArgs, RoutedPropertyChangedEventArgs, ShutdownMode, Window
from System.Windows.Controls import (
    Button,
    CheckBox,
    ComboBox,
    ComboBoxItem,
    DataGrid,
    ListBox,
    ListBoxItem,
    MenuItem,
    PasswordBox,
    SelectionChangedEventArgs,
    TabControl,
    TabItem,
    TextBlock,
    TextBox,
    TreeView,
)
from System.Windows.Input import (
    ApplicationCommands,
    CommandBinding,
    ExecutedRoutedEventArgs,
    Key,
    KeyBinding,
    ModifierKeys,
)
from System.Windows.Markup import XamlReader
from System.Windows.Threading import Dispatcher, DispatcherPriority, DispatcherTimer

T = TypeVar("T")

PASSWORD = "hunter2"
#: What every Password of the people and accounts lists starts with: it must never be shown.
ACCOUNT_SECRET = "pin-7731"

# No code-behind with XamlReader: events are wired in build(). The DataContext is
# a DataRowView, which WPF binds to like a view model (its columns are its
# properties); Python objects are not bindable.
XAML = r"""
<Window xmlns="http://schemas.microsoft.com/winfx/2006/xaml/presentation"
        xmlns:x="http://schemas.microsoft.com/winfx/2006/xaml"
        x:Name="mainWindow" Title="wpfprobe demo"
        Width="940" Height="700" WindowStartupLocation="CenterScreen">
  <DockPanel>
    <Menu x:Name="menuBar" DockPanel.Dock="Top">
      <MenuItem x:Name="fileMenu" Header="_File">
        <MenuItem x:Name="saveMenuItem" Header="Quick _Save" InputGestureText="Ctrl+S"/>
        <MenuItem x:Name="saveAsMenuItem" Header="Save _As"/>
        <Separator/>
        <MenuItem x:Name="exitMenuItem" Header="E_xit"/>
      </MenuItem>
      <MenuItem x:Name="viewMenu" Header="_View">
        <MenuItem x:Name="wordWrapMenuItem" Header="_Word Wrap" IsCheckable="True"/>
      </MenuItem>
    </Menu>
    <!-- Items of every kind (issue 11): virtualized data lists, a data-bound tree with
         collapsed nodes, a combo box of strings, a grid of 300 rows, tabs, check box items. -->
    <StackPanel x:Name="itemsPanel" DockPanel.Dock="Right" Width="420" Margin="0,12,12,12">
      <ListBox x:Name="peopleList" Height="96" DisplayMemberPath="Name"/>
      <ListBox x:Name="accountsList" Height="44" Margin="0,4,0,0" DisplayMemberPath="Password"/>
      <ComboBox x:Name="fruitCombo" Width="160" Margin="0,4,0,0" HorizontalAlignment="Left"/>
      <TreeView x:Name="foodTree" Height="130" Margin="0,4,0,0" TextSearch.TextPath="Name">
        <TreeView.ItemContainerStyle>
          <Style TargetType="TreeViewItem">
            <Setter Property="IsExpanded" Value="{Binding Expanded, Mode=OneWay}"/>
          </Style>
        </TreeView.ItemContainerStyle>
        <TreeView.ItemTemplate>
          <HierarchicalDataTemplate ItemsSource="{Binding Children}">
            <TextBlock Text="{Binding Name}"/>
          </HierarchicalDataTemplate>
        </TreeView.ItemTemplate>
      </TreeView>
      <DataGrid x:Name="ordersGrid" Height="150" Margin="0,4,0,0" AutoGenerateColumns="False"
                CanUserAddRows="False" TextSearch.TextPath="Customer">
        <DataGrid.Columns>
          <DataGridTextColumn Header="Id" Binding="{Binding Id}" IsReadOnly="True"/>
          <DataGridTextColumn Header="Customer" Binding="{Binding Customer}" Width="*"/>
          <DataGridTextColumn Header="Amount" Binding="{Binding Amount}"/>
        </DataGrid.Columns>
      </DataGrid>
      <TabControl x:Name="detailsTabs" Height="110" Margin="0,4,0,0">
        <TabItem x:Name="generalTab" Header="_General">
          <ListBox x:Name="optionsList">
            <CheckBox x:Name="emailOption" Content="_Email me"/>
            <CheckBox x:Name="callOption" Content="Call me"/>
          </ListBox>
        </TabItem>
        <TabItem x:Name="notesTab" Header="_Notes">
          <TextBox x:Name="notesBox" Text="Nothing yet"/>
        </TabItem>
      </TabControl>
    </StackPanel>
    <StackPanel x:Name="formPanel" Margin="12">
      <Grid x:Name="fieldsTable" Margin="0,0,0,8">
        <Grid.ColumnDefinitions>
          <ColumnDefinition Width="Auto"/>
          <ColumnDefinition Width="*"/>
        </Grid.ColumnDefinitions>
        <Grid.RowDefinitions>
          <RowDefinition Height="Auto"/>
          <RowDefinition Height="Auto"/>
        </Grid.RowDefinitions>
        <Label x:Name="nameLabel" Grid.Row="0" Grid.Column="0" Content="Name"/>
        <TextBox x:Name="nameBox" Grid.Row="0" Grid.Column="1" Margin="4"
                 Text="{Binding Name, UpdateSourceTrigger=PropertyChanged}"/>
        <Label x:Name="passwordLabel" Grid.Row="1" Grid.Column="0" Content="Password"/>
        <PasswordBox x:Name="passwordBox" Grid.Row="1" Grid.Column="1" Margin="4"/>
      </Grid>
      <TextBlock x:Name="greetingLabel" Margin="4" Text="{Binding Name, StringFormat='Hello, {0}'}"/>
      <TextBlock x:Name="brokenLabel" Margin="4" Text="{Binding DoesNotExist}"/>
      <TextBlock x:Name="statusLabel" Margin="4" Text="Ready">
        <TextBlock.Style>
          <Style TargetType="TextBlock">
            <Setter Property="Foreground" Value="DarkGreen"/>
            <Style.Triggers>
              <DataTrigger Binding="{Binding Text, ElementName=nameBox}" Value="">
                <Setter Property="Foreground" Value="Red"/>
              </DataTrigger>
            </Style.Triggers>
          </Style>
        </TextBlock.Style>
      </TextBlock>
      <ListBox x:Name="itemsList" Height="80" Margin="4" VirtualizingStackPanel.IsVirtualizing="False">
        <ListBoxItem Content="Apple"/>
        <ListBoxItem Content="Banana"/>
        <ListBoxItem Content="Cherry"/>
      </ListBox>
      <ComboBox x:Name="sizeCombo" Width="120" Margin="4" HorizontalAlignment="Left" SelectedIndex="0">
        <ComboBoxItem Content="Small"/>
        <ComboBoxItem Content="Medium"/>
        <ComboBoxItem Content="Large"/>
      </ComboBox>
      <CheckBox x:Name="subscribeCheck" Content="Subscribe" Margin="4"/>
      <StackPanel x:Name="buttonPanel" Orientation="Horizontal">
        <Button x:Name="saveButton" Content="Save" Width="90" Margin="4" IsDefault="True"/>
        <Button x:Name="disabledButton" Content="Disabled" Width="90" Margin="4" IsEnabled="False"/>
        <Button x:Name="loadButton" Content="Load" Width="90" Margin="4"/>
        <TextBlock x:Name="hiddenLabel" Text="Hidden" Visibility="Collapsed"/>
      </StackPanel>
      <!-- A panel drawn over a button (later children of a Grid cell are on top):
           the button is there, but no click reaches it. -->
      <Grid HorizontalAlignment="Left" Margin="4">
        <Button x:Name="coveredButton" Content="Covered" Width="90" Margin="4"/>
        <Border x:Name="coverPanel" Background="SteelBlue" Width="110" Height="36"/>
      </Grid>
    </StackPanel>
  </DockPanel>
</Window>
"""


SAVE_AS_XAML = r"""
<Window xmlns="http://schemas.microsoft.com/winfx/2006/xaml/presentation"
        xmlns:x="http://schemas.microsoft.com/winfx/2006/xaml"
        x:Name="saveAsDialog" Title="Save As" Width="320" Height="140"
        WindowStartupLocation="CenterOwner" ResizeMode="NoResize" ShowInTaskbar="False">
  <StackPanel Margin="10">
    <TextBox x:Name="fileNameBox" Text="untitled.txt" Margin="0,0,0,10"/>
    <StackPanel Orientation="Horizontal" HorizontalAlignment="Right">
      <Button x:Name="okButton" Content="OK" Width="75" Margin="0,0,8,0" IsDefault="True"/>
      <Button x:Name="cancelButton" Content="Cancel" Width="75" IsCancel="True"/>
    </StackPanel>
  </StackPanel>
</Window>
"""


def build_save_as_dialog(status: TextBlock) -> Window:
    """The Save As dialog; OK reports the file name in the main window's status and closes it."""
    dialog: Window = XamlReader.Parse(SAVE_AS_XAML.strip())
    file_name: TextBox = dialog.FindName("fileNameBox")
    ok: Button = dialog.FindName("okButton")

    def on_ok(sender: Any, args: RoutedEventArgs) -> None:
        status.Text = f"Saved as {file_name.Text}"
        dialog.Close()

    # cancelButton needs no handler: IsCancel closes a dialog shown with ShowDialog.
    ok.Click += on_ok
    return dialog


def build() -> Window:
    """The demo window, with its data and event handlers. Call on an STA UI thread."""
    window: Window = XamlReader.Parse(XAML.strip())

    table = DataTable("Person")
    table.Columns.Add("Name")
    row = table.NewRow()
    row["Name"] = "Ada"
    table.Rows.Add(row)
    window.DataContext = table.DefaultView[0]

    # PasswordBox.Password is deliberately not a DependencyProperty, so it is set here.
    password: PasswordBox = window.FindName("passwordBox")
    password.Password = PASSWORD

    name_box: TextBox = window.FindName("nameBox")
    status: TextBlock = window.FindName("statusLabel")
    save: Button = window.FindName("saveButton")
    load: Button = window.FindName("loadButton")
    covered: Button = window.FindName("coveredButton")
    save_item: MenuItem = window.FindName("saveMenuItem")
    word_wrap: MenuItem = window.FindName("wordWrapMenuItem")
    email_option: CheckBox = window.FindName("emailOption")
    save_as: MenuItem = window.FindName("saveAsMenuItem")
    exit_item: MenuItem = window.FindName("exitMenuItem")
    items_list: ListBox = window.FindName("itemsList")
    size_combo: ComboBox = window.FindName("sizeCombo")
    subscribe: CheckBox = window.FindName("subscribeCheck")
    timer: DispatcherTimer = DispatcherTimer()
    timer.Interval = TimeSpan.FromMilliseconds(600)

    def on_save(sender: Any, args: RoutedEventArgs) -> None:
        status.Text = f"Saved {name_box.Text}"

    def on_save_command(sender: Any, args: ExecutedRoutedEventArgs) -> None:
        status.Text = f"Saved {name_box.Text}"

    def on_save_as(sender: Any, args: RoutedEventArgs) -> None:
        dialog = build_save_as_dialog(status)
        dialog.Owner = window
        dialog.ShowDialog()

    def on_exit(sender: Any, args: RoutedEventArgs) -> None:
        window.Close()

    def on_load(sender: Any, args: RoutedEventArgs) -> None:
        status.Text = "Loading"
        timer.Start()

    def on_tick(sender: Any, args: Any) -> None:
        timer.Stop()
        status.Text = "Loaded"

    def on_covered(sender: Any, args: RoutedEventArgs) -> None:
        status.Text = "Covered clicked"

    def on_subscribed(sender: Any, args: RoutedEventArgs) -> None:
        status.Text = "Subscribed"

    def on_unsubscribed(sender: Any, args: RoutedEventArgs) -> None:
        status.Text = "Unsubscribed"

    def on_item(sender: Any, args: SelectionChangedEventArgs) -> None:
        selected = items_list.SelectedItem
        if isinstance(selected, ListBoxItem):
            status.Text = f"Selected {selected.Content}"

    def on_size(sender: Any, args: SelectionChangedEventArgs) -> None:
        selected = size_combo.SelectedItem
        if isinstance(selected, ComboBoxItem):
            status.Text = f"Size {selected.Content}"

    def on_word_wrap(sender: Any, args: RoutedEventArgs) -> None:
        status.Text = f"Word wrap {'on' if word_wrap.IsChecked else 'off'}"

    def on_email_option(sender: Any, args: RoutedEventArgs) -> None:
        status.Text = f"Email me {'on' if email_option.IsChecked else 'off'}"

    # Ctrl+S and the Quick Save menu item run ApplicationCommands.Save, which the
    # window handles as saveButton's click does.
    save_command = CommandBinding(ApplicationCommands.Save)
    save_command.Executed += on_save_command
    window.CommandBindings.Add(save_command)
    window.InputBindings.Add(KeyBinding(ApplicationCommands.Save, Key.S, ModifierKeys.Control))
    save_item.Command = ApplicationCommands.Save

    save.Click += on_save
    save_as.Click += on_save_as
    exit_item.Click += on_exit
    load.Click += on_load
    timer.Tick += on_tick
    covered.Click += on_covered
    subscribe.Checked += on_subscribed
    subscribe.Unchecked += on_unsubscribed
    items_list.SelectionChanged += on_item
    size_combo.SelectionChanged += on_size
    word_wrap.Checked += on_word_wrap
    word_wrap.Unchecked += on_word_wrap
    email_option.Checked += on_email_option
    email_option.Unchecked += on_email_option
    build_items(window, status)
    return window


def people_table() -> DataTable:
    """200 people: a ListBox shows their Name (DisplayMemberPath) and virtualizes the rest."""
    table = DataTable("People")
    for column in ("Name", "Email", "Password"):
        table.Columns.Add(column)
    names = ["Ada Lovelace", "Alan Turing", "Grace Hopper", *(f"Person {n}" for n in range(4, 201))]
    for n, name in enumerate(names, start=1):
        row = table.NewRow()
        row["Name"] = name
        row["Email"] = f"user{n}@example.org"
        row["Password"] = f"{ACCOUNT_SECRET}-{n}"
        table.Rows.Add(row)
    return table


def accounts_table() -> DataTable:
    """Two accounts, shown by their Password column (DisplayMemberPath): a list of secrets."""
    table = DataTable("Accounts")
    table.Columns.Add("User")
    table.Columns.Add("Password")
    for user in ("ada", "alan"):
        row = table.NewRow()
        row["User"] = user
        row["Password"] = f"{ACCOUNT_SECRET}-{user}"
        table.Rows.Add(row)
    return table


def food_view() -> DataView:
    """A tree of food: a table related to itself ("Children"), its root rows, Fruits expanded."""
    data = DataSet("Food")
    table = DataTable("Food")
    data.Tables.Add(table)
    table.Columns.Add("Id", clr.GetClrType(Int32))
    table.Columns.Add("ParentId", clr.GetClrType(Int32))
    table.Columns.Add("Name")
    table.Columns.Add("Expanded", clr.GetClrType(Boolean))
    rows = [
        (1, None, "Fruits", True),
        (2, 1, "Apple", False),
        (3, 1, "Banana", False),
        (4, None, "Vegetables", False),
        (5, 4, "Carrot", False),
        (6, 4, "Pea", False),
        (7, 4, "Root vegetables", False),
        (8, 7, "Potato", False),
        (9, 7, "Beet", False),
    ]
    for ident, parent, name, expanded in rows:
        row = table.NewRow()
        row["Id"] = ident
        row["ParentId"] = DBNull.Value if parent is None else parent
        row["Name"] = name
        row["Expanded"] = expanded
        table.Rows.Add(row)
    data.Relations.Add(DataRelation("Children", table.Columns["Id"], table.Columns["ParentId"], False))
    roots = DataView(table)
    roots.RowFilter = "ParentId IS NULL"
    return roots


def orders_table() -> DataTable:
    """300 orders for a DataGrid that realises only the rows in view."""
    table = DataTable("Orders")
    table.Columns.Add("Id", clr.GetClrType(Int32))
    table.Columns.Add("Customer")
    table.Columns.Add("Amount", clr.GetClrType(Double))
    customers = ("Ada", "Alan", "Grace", "Edsger", "Barbara")
    for n in range(1, 301):
        row = table.NewRow()
        row["Id"] = n
        row["Customer"] = f"{customers[n % len(customers)]} {n}"
        row["Amount"] = float(n) * 2.5
        table.Rows.Add(row)
    return table


def build_items(window: Window, status: TextBlock) -> None:
    """Fill the lists of the items panel and report what is picked in statusLabel."""
    people_list: ListBox = window.FindName("peopleList")
    accounts_list: ListBox = window.FindName("accountsList")
    fruit_combo: ComboBox = window.FindName("fruitCombo")
    food_tree: TreeView = window.FindName("foodTree")
    orders_grid: DataGrid = window.FindName("ordersGrid")
    details_tabs: TabControl = window.FindName("detailsTabs")

    people = people_table()
    people_list.ItemsSource = people.DefaultView
    accounts_list.ItemsSource = accounts_table().DefaultView
    # Strings: the combo box makes their ComboBoxItems only when it drops down. A "_"
    # in an item's text is shown as it is (no access key in a combo box item).
    fruit_combo.ItemsSource = Array[String](["Apple", "Banana", "Cherry", "Snake_fruit"])
    fruit_combo.SelectedIndex = 0
    food_tree.ItemsSource = food_view()
    orders = orders_table()
    orders_grid.ItemsSource = orders.DefaultView

    def on_person(sender: Any, args: SelectionChangedEventArgs) -> None:
        picked = people_list.SelectedItem
        if isinstance(picked, DataRowView):
            status.Text = f"Person {picked['Name']}"

    def on_fruit(sender: Any, args: SelectionChangedEventArgs) -> None:
        status.Text = f"Fruit {fruit_combo.SelectedItem}"

    def on_food(sender: Any, args: RoutedPropertyChangedEventArgs[Object]) -> None:
        picked = food_tree.SelectedItem
        if isinstance(picked, DataRowView):
            status.Text = f"Food {picked['Name']}"

    def on_order(sender: Any, args: DataRowChangeEventArgs) -> None:
        changed: DataRow = args.Row
        status.Text = f"Order {changed['Id']} is now {changed['Customer']}"

    def on_tab(sender: Any, args: SelectionChangedEventArgs) -> None:
        # SelectionChanged bubbles: a list inside a tab raises it through the TabControl too.
        picked = details_tabs.SelectedItem
        if Object.ReferenceEquals(args.OriginalSource, details_tabs) and isinstance(picked, TabItem):
            status.Text = f"Tab {str(picked.Header).replace('_', '')}"

    people_list.SelectionChanged += on_person
    fruit_combo.SelectionChanged += on_fruit
    food_tree.SelectedItemChanged += on_food
    orders.RowChanged += on_order
    details_tabs.SelectionChanged += on_tab


class BackgroundApp:
    """The demo running on its own STA thread, as the integration tests use it."""

    toolkit = "wpf"

    def __init__(
        self,
        *,
        app: Any,
        application: Application | None,
        main_window: Window,
        thread: Thread,
    ) -> None:
        #: The Application, or the main Window when this process already had an
        #: Application (WPF allows one per AppDomain); wpfprobe accepts both.
        self.app = app
        self.main_window: Window = main_window
        self.dispatcher: Dispatcher = main_window.Dispatcher
        self.thread: Thread = thread
        self._application: Application | None = application

    def invoke(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` on the UI thread and return its result (or raise its error)."""
        if self.dispatcher.CheckAccess():
            return fn()
        outcome: dict[str, Any] = {}

        def run() -> None:
            # An exception must not escape into the dispatcher: it would end the app.
            try:
                outcome["value"] = fn()
            except BaseException as exc:
                outcome["error"] = exc

        self.dispatcher.Invoke(Action(run))
        if "error" in outcome:
            raise outcome["error"]
        if "value" not in outcome:
            raise RuntimeError("The UI thread did not run the call: the app has shut down.")
        return outcome["value"]  # type: ignore[no-any-return]

    def close(self, timeout: float = 10.0) -> None:
        """Shut the app down from its own thread and wait (up to ``timeout``) for that thread to end."""
        dispatcher = self.dispatcher
        if not (dispatcher.HasShutdownStarted or dispatcher.HasShutdownFinished):
            application = self._application
            window = self.main_window

            def shut_down() -> None:
                if application is not None:
                    application.Shutdown()
                else:
                    window.Close()  # its Closed handler ends the bare dispatcher

            # Queued, not waited for: close() must not hang on a busy UI thread.
            dispatcher.BeginInvoke(DispatcherPriority.Normal, Action(shut_down))
        self.thread.Join(TimeSpan.FromSeconds(timeout))

    def wait(self) -> None:
        """Block until the app ends, still answering Ctrl+C between short joins."""
        while not self.thread.Join(TimeSpan.FromMilliseconds(200)):
            pass


def start_in_background(*, timeout: float = 30.0) -> BackgroundApp:
    """Start the demo on a new STA thread and return once its window has rendered."""
    rendered = threading.Event()
    state: dict[str, Any] = {}

    def on_rendered(sender: Any, args: Any) -> None:
        rendered.set()

    def ui_main() -> None:
        # Runs on the .NET thread; nothing may escape it, or the process dies.
        try:
            window = build()
            window.ContentRendered += on_rendered
            if Application.Current is None:
                application = Application()
                application.ShutdownMode = ShutdownMode.OnMainWindowClose
                state.update(app=application, application=application, window=window)
                application.Run(window)
            else:
                # A second run in one process: host the window on a bare dispatcher.
                def on_closed(sender: Any, args: Any) -> None:
                    Dispatcher.CurrentDispatcher.BeginInvokeShutdown(DispatcherPriority.Background)

                window.Closed += on_closed
                state.update(app=window, application=None, window=window)
                window.Show()
                Dispatcher.Run()
        except BaseException as exc:
            state["error"] = exc
            rendered.set()

    thread = Thread(ThreadStart(ui_main))
    thread.SetApartmentState(ApartmentState.STA)  # WPF requires an STA thread
    thread.IsBackground = True  # a forgotten close() must not keep the process alive
    thread.Name = "wpfprobe-demo-ui"
    thread.Start()
    if not rendered.wait(timeout):
        raise TimeoutError(f"The WPF demo window did not render within {timeout:g} s.")
    if "error" in state:
        raise RuntimeError(f"The WPF demo failed to start: {state['error']}") from state["error"]
    return BackgroundApp(
        app=state["app"],
        application=state["application"],
        main_window=state["window"],
        thread=thread,
    )


def main() -> int:
    """Run the demo until its window is closed."""
    # The Python main thread is not guaranteed to be STA, so the UI gets its own thread.
    background = start_in_background()
    try:
        background.wait()
    except KeyboardInterrupt:
        background.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
