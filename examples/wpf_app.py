"""A small pythonnet-hosted WPF app to try wpfprobe on (Windows only).

Run it with ``python examples/wpf_app.py``, or import it and call ``start_in_background()``: the
integration tests do that. The element names are the shared example contract:
``examples/winforms_app.py`` uses the same ones, so the same tests run on both:
mainWindow, menuBar/fileMenu/saveAsMenuItem/exitMenuItem, formPanel (holding
fieldsTable and buttonPanel), nameBox, passwordBox, greetingLabel, brokenLabel,
statusLabel, itemsList, saveButton, disabledButton, hiddenLabel.

What it shows: a menu, nested layout, a working data binding (``greetingLabel``
follows ``nameBox`` through the DataContext), a broken one (``brokenLabel``),
a style DataTrigger (``statusLabel`` turns red while ``nameBox`` is empty), a
password box, a non-virtualized list, a disabled button and a collapsed label.

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

from System import Action, TimeSpan  # noqa: E402
from System.Data import DataTable  # noqa: E402
from System.Threading import ApartmentState, Thread, ThreadStart  # noqa: E402
from System.Windows import Application, RoutedEventArgs, ShutdownMode, Window  # noqa: E402
from System.Windows.Controls import Button, MenuItem, PasswordBox, TextBlock, TextBox  # noqa: E402
from System.Windows.Markup import XamlReader  # noqa: E402
from System.Windows.Threading import Dispatcher, DispatcherPriority  # noqa: E402

T = TypeVar("T")

PASSWORD = "hunter2"

# No code-behind with XamlReader: events are wired in build(). The DataContext is
# a DataRowView, which WPF binds to like a view model (its columns are its
# properties); Python objects are not bindable.
XAML = r"""
<Window xmlns="http://schemas.microsoft.com/winfx/2006/xaml/presentation"
        xmlns:x="http://schemas.microsoft.com/winfx/2006/xaml"
        x:Name="mainWindow" Title="wpfprobe demo"
        Width="480" Height="470" WindowStartupLocation="CenterScreen">
  <DockPanel>
    <Menu x:Name="menuBar" DockPanel.Dock="Top">
      <MenuItem x:Name="fileMenu" Header="File">
        <MenuItem x:Name="saveAsMenuItem" Header="Save As"/>
        <Separator/>
        <MenuItem x:Name="exitMenuItem" Header="Exit"/>
      </MenuItem>
    </Menu>
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
      <StackPanel x:Name="buttonPanel" Orientation="Horizontal">
        <Button x:Name="saveButton" Content="Save" Width="90" Margin="4"/>
        <Button x:Name="disabledButton" Content="Disabled" Width="90" Margin="4" IsEnabled="False"/>
        <TextBlock x:Name="hiddenLabel" Text="Hidden" Visibility="Collapsed"/>
      </StackPanel>
    </StackPanel>
  </DockPanel>
</Window>
"""


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
    save_as: MenuItem = window.FindName("saveAsMenuItem")
    exit_item: MenuItem = window.FindName("exitMenuItem")

    def on_save(sender: Any, args: RoutedEventArgs) -> None:
        status.Text = f"Saved {name_box.Text}"

    def on_save_as(sender: Any, args: RoutedEventArgs) -> None:
        status.Text = "Save As..."

    def on_exit(sender: Any, args: RoutedEventArgs) -> None:
        window.Close()

    save.Click += on_save
    save_as.Click += on_save_as
    exit_item.Click += on_exit
    return window


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
            except BaseException as exc:  # noqa: BLE001 - handed back to the caller
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
        except BaseException as exc:  # noqa: BLE001 - reported to the caller below
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
