"""Keys and focus: keyboard input as WPF's input manager routes it, and which element has focus.

A key is raised on the focused element (PreviewKeyDown, KeyDown, PreviewKeyUp,
KeyUp); a key nothing handled becomes what the input manager would make of it:
text (PreviewTextInput, TextInput), focus navigation (Tab, arrows), the
default or cancel button (Enter, Escape). Key events cannot carry held
modifier keys (WPF reads the real keyboard's), so a chord with modifiers runs
the command its gesture is bound to, or an access key, or is refused.
``_settle`` lets what an action queued run before the engine reads again.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from System import Action, Environment, Object

from wpfprobe.core.errors import ElementNotInteractableError
from wpfprobe.core.protocol import KeyChord
from wpfprobe_clr.toolkits.wpf._input import _args, _cannot, _raise, _run_command, _source_of, _unwrap
from wpfprobe_clr.toolkits.wpf._load import _WPF_LOAD_ERROR
from wpfprobe_clr.toolkits.wpf._tree import _MAX_DEPTH, _describe, _TreeAdapter

if _WPF_LOAD_ERROR is None:
    from System.Windows import (
        ContentElement,
        DependencyObject,
        PresentationSource,
        RoutedEvent,
        UIElement,
        UIElement3D,
        Window,
    )
    from System.Windows.Input import (
        AccessKeyManager,
        AccessKeyPressedEventArgs,
        ApplicationCommands,
        CommandBinding,
        FocusManager,
        FocusNavigationDirection,
        InputBinding,
        InputManager,
        Key,
        Keyboard,
        KeyEventArgs,
        KeyGesture,
        RoutedCommand,
        TextComposition,
        TextCompositionEventArgs,
        TextCompositionManager,
        TraversalRequest,
    )
    from System.Windows.Media import Visual
    from System.Windows.Threading import Dispatcher, DispatcherFrame, DispatcherPriority

    # The canonical key names of wpfprobe.core.keys, as WPF keys.
    _KEYS: dict[str, Key] = {
        "A": Key.A, "B": Key.B, "C": Key.C, "D": Key.D, "E": Key.E, "F": Key.F, "G": Key.G, "H": Key.H,
        "I": Key.I, "J": Key.J, "K": Key.K, "L": Key.L, "M": Key.M, "N": Key.N, "O": Key.O, "P": Key.P,
        "Q": Key.Q, "R": Key.R, "S": Key.S, "T": Key.T, "U": Key.U, "V": Key.V, "W": Key.W, "X": Key.X,
        "Y": Key.Y, "Z": Key.Z,
        "0": Key.D0, "1": Key.D1, "2": Key.D2, "3": Key.D3, "4": Key.D4,
        "5": Key.D5, "6": Key.D6, "7": Key.D7, "8": Key.D8, "9": Key.D9,
        "F1": Key.F1, "F2": Key.F2, "F3": Key.F3, "F4": Key.F4, "F5": Key.F5, "F6": Key.F6,
        "F7": Key.F7, "F8": Key.F8, "F9": Key.F9, "F10": Key.F10, "F11": Key.F11, "F12": Key.F12,
        "F13": Key.F13, "F14": Key.F14, "F15": Key.F15, "F16": Key.F16, "F17": Key.F17, "F18": Key.F18,
        "F19": Key.F19, "F20": Key.F20, "F21": Key.F21, "F22": Key.F22, "F23": Key.F23, "F24": Key.F24,
        "Enter": Key.Return, "Tab": Key.Tab, "Escape": Key.Escape, "Backspace": Key.Back,
        "Delete": Key.Delete, "Insert": Key.Insert, "Home": Key.Home, "End": Key.End,
        "PageUp": Key.PageUp, "PageDown": Key.PageDown, "Left": Key.Left, "Right": Key.Right,
        "Up": Key.Up, "Down": Key.Down, "Space": Key.Space,
    }  # fmt: skip
    # Keys the keyboard navigation moves focus with when the focused element leaves them unhandled.
    _NAVIGATION_KEYS: dict[str, FocusNavigationDirection] = {
        "Tab": FocusNavigationDirection.Next,
        "Left": FocusNavigationDirection.Left,
        "Right": FocusNavigationDirection.Right,
        "Up": FocusNavigationDirection.Up,
        "Down": FocusNavigationDirection.Down,
    }

_MODIFIER_NAMES: dict[str, str] = {"ctrl": "Control", "shift": "Shift", "alt": "Alt", "meta": "Windows"}


class _KeyboardMixin(_TreeAdapter):
    """Keys, focus and settling for WpfAdapter (the actions build on it)."""

    def focused_element(self) -> Any | None:
        focused = _unwrap(Keyboard.FocusedElement)
        if isinstance(focused, DependencyObject):
            return focused
        # No keyboard focus on this thread (the app is not the foreground app):
        # the element that gets it back is the logical focus of the active, else
        # the most recently opened, window.
        windows = [w for w in reversed(self.roots()) if isinstance(w, Window) and w.IsVisible]
        windows.sort(key=self.is_active_window, reverse=True)
        for window in windows:
            logical = _unwrap(FocusManager.GetFocusedElement(window))
            if isinstance(logical, DependencyObject):
                return logical
        return None

    def send_keys(self, element: Any | None, chords: tuple[KeyChord, ...]) -> None:
        if element is not None:
            self._take_focus(element)
        target = self._key_target(element)
        if target is None:
            raise ElementNotInteractableError(
                "No element has keyboard focus to take the keys.",
                suggestion="Pass the element that should get the keys (nodeId or locator).",
                detail={"reason": "unsupported"},
            )
        for chord in chords:
            self._press(target, chord)
            self._settle()
            # Focus may have moved (Tab): the next key goes where it went.
            target = self._key_target(None) or target

    def focus(self, element: Any) -> None:
        if not self._take_focus(element):
            raise _cannot(element, "keyboard focus", "Focus an element that is focusable (Focusable=true) and enabled.")

    def _take_focus(self, element: Any) -> bool:
        """Give ``element`` keyboard focus, else at least logical focus (its window is not active)."""
        if isinstance(element, UIElement):
            if not element.IsKeyboardFocused:
                Keyboard.Focus(element)
            if not element.IsKeyboardFocused:
                element.Focus()
            return bool(element.IsKeyboardFocused) or _has_logical_focus(element)
        if isinstance(element, ContentElement):
            if not element.IsKeyboardFocused:
                Keyboard.Focus(element)
            if not element.IsKeyboardFocused:
                element.Focus()
            return bool(element.IsKeyboardFocused) or _has_logical_focus(element)
        if isinstance(element, UIElement3D):
            return bool(element.Focus())
        return False

    def _key_target(self, element: Any | None) -> Any | None:
        """Where keys go: the focused element within ``element`` (or anywhere), else ``element``."""
        focused = self.focused_element()
        if element is None:
            return focused
        if isinstance(focused, DependencyObject) and (
            Object.ReferenceEquals(focused, element)
            or (isinstance(element, Visual) and isinstance(focused, Visual) and element.IsAncestorOf(focused))
        ):
            return focused
        return element

    def _press(self, target: Any, chord: KeyChord) -> None:
        held = set(chord.modifiers)
        if not held:
            self._stroke(target, chord.key, _char_of(chord.key))
            return
        if held == {"shift"} and chord.key == "Tab":
            _move_focus(target, FocusNavigationDirection.Previous)
            return
        key: Key = _KEYS[chord.key]
        if self._run_gesture(target, key, {_MODIFIER_NAMES[m] for m in held}):
            return
        if held == {"alt"} and self._access_key(target, chord.key):
            return
        if held == {"shift"} and len(chord.key) == 1 and chord.key.isalpha():
            # Shift only changes the character typed; the key events cannot carry it.
            self._stroke(target, chord.key, chord.key.upper())
            return
        # KeyEventArgs cannot fake held modifiers (WPF reads them from the real
        # keyboard), so only what a gesture is bound to can run through the toolkit.
        shown = "+".join([*(m.capitalize() for m in chord.modifiers), chord.key])
        raise ElementNotInteractableError(
            f"{shown} runs nothing through the toolkit: no key binding or command gesture for it was "
            f"found on {_describe(target)} or the elements it is in, and WPF key events cannot carry "
            "held modifier keys.",
            suggestion='Send it as real keyboard input with mode="os", or send keys without modifiers.',
            detail={"reason": "unsupported", "keys": shown},
        )

    def _stroke(self, target: Any, name: str, char: str | None) -> None:
        """One key pressed and released, as WPF's input manager routes it, then what follows it."""
        key: Key = _KEYS[name]
        source = _source_of(target)
        if source is None:
            raise ElementNotInteractableError(
                f"{_describe(target)} is not shown in a window, so it takes no keys.",
                suggestion="Show it first, or send the keys to an element that is shown.",
                detail={"reason": "hidden"},
            )
        handled = _raise_key(target, source, key, Keyboard.PreviewKeyDownEvent)
        if not handled:
            # KeyDown reaches the element's and its ancestors' InputBindings and
            # the controls' class bindings (Backspace, arrows, Enter in a text box).
            handled = _raise_key(target, source, key, Keyboard.KeyDownEvent)
        if not handled:
            self._after_key(target, name, char)
        if not _raise_key(target, source, key, Keyboard.PreviewKeyUpEvent):
            _raise_key(target, source, key, Keyboard.KeyUpEvent)

    def _after_key(self, target: Any, name: str, char: str | None) -> None:
        """What the input manager does with a key nothing handled: text, navigation, default buttons."""
        if char is not None:
            self._text_input(target, char)
            return
        direction = _NAVIGATION_KEYS.get(name)
        if direction is not None:
            _move_focus(target, direction)
            return
        access = {"Enter": "\r", "Escape": "\x1b"}.get(name)
        if access is not None:
            # Enter presses the default button (IsDefault), Escape the cancel button (IsCancel).
            self._access_key(target, access)

    def _access_key(self, target: Any, key: str) -> bool:
        """Press an access key (a letter, or Enter/Escape for the default/cancel button) from ``target``."""
        if not isinstance(target, DependencyObject):
            return False
        # The scope WPF looks in for a key pressed on target: the one its
        # AccessKeyPressed handlers name (a menu, a popup), else its window's.
        probe = AccessKeyPressedEventArgs(key)
        probe.RoutedEvent = AccessKeyManager.AccessKeyPressedEvent
        _raise(target, probe)
        scope: object | None = probe.Scope
        if scope is None:
            scope = PresentationSource.FromDependencyObject(target)
        if scope is None or not AccessKeyManager.IsKeyRegistered(scope, key):
            return False
        AccessKeyManager.ProcessKey(scope, key, False)
        return True

    def _run_gesture(self, target: Any, key: Key, modifiers: set[str]) -> bool:
        """Run the command bound to key + modifiers, as WPF's CommandManager would for the real keys."""
        node: Any = target
        for _ in range(_MAX_DEPTH):
            if node is None:
                break
            bindings: Iterable[Any] = ()
            command_bindings: Iterable[Any] = ()
            if isinstance(node, UIElement):
                bindings, command_bindings = node.InputBindings, node.CommandBindings
            elif isinstance(node, ContentElement):
                bindings, command_bindings = node.InputBindings, node.CommandBindings
            elif isinstance(node, UIElement3D):
                bindings, command_bindings = node.InputBindings, node.CommandBindings
            for binding in bindings:
                if isinstance(binding, InputBinding) and _gesture_matches(binding.Gesture, key, modifiers):
                    _run_command(binding.Command, binding.CommandParameter, binding.CommandTarget, node)
                    return True
            for command_binding in command_bindings:
                if not isinstance(command_binding, CommandBinding):
                    continue
                command = _unwrap(command_binding.Command)
                if isinstance(command, RoutedCommand) and any(
                    _gesture_matches(g, key, modifiers) for g in command.InputGestures
                ):
                    if command.CanExecute(None, target):
                        command.Execute(None, target)
                    return True
            node = self.parent(node, "visual")
        # The framework's own commands (Ctrl+A, Ctrl+C, Ctrl+Z...), handled by the
        # controls' class command bindings (a text box's SelectAll).
        for command in _gesture_commands():
            if isinstance(command, RoutedCommand) and any(  # noqa: SIM102 - as the loop above
                _gesture_matches(g, key, modifiers) for g in command.InputGestures
            ):
                if command.CanExecute(None, target):
                    command.Execute(None, target)
                    return True
        return False

    def _text_input(self, target: Any, text: str) -> None:
        """Characters as the keyboard delivers them: PreviewTextInput, then TextInput."""
        preview = _text_args(target, text, TextCompositionManager.PreviewTextInputEvent)
        _raise(target, preview)
        if not preview.Handled:
            _raise(target, _text_args(target, text, TextCompositionManager.TextInputEvent))

    def _settle(self) -> None:
        """Run what the action queued at input priority or above before returning.

        ButtonAutomationPeer.Invoke queues the click (DispatcherPriority.Input),
        and MenuItem raises Click after the next render: without this the
        engine's next read (Normal priority, which runs before Input) would see
        the state from before the click. If the handler opens a modal dialog,
        this returns when the dialog closes; the engine reads from inside it.
        """
        frame = DispatcherFrame()

        def stop() -> None:
            frame.Continue = False

        self.dispatcher.BeginInvoke(DispatcherPriority.Input, Action(stop))
        Dispatcher.PushFrame(frame)


def _gesture_matches(gesture: Any, key: Key, modifiers: set[str]) -> bool:
    if not isinstance(gesture, KeyGesture):
        return False
    if str(gesture.Key) != str(key):
        return False
    held = {part.strip() for part in str(gesture.Modifiers).split(",")} - {"None"}
    return held == modifiers


def _gesture_commands() -> tuple[RoutedCommand, ...]:
    return (
        ApplicationCommands.SelectAll,
        ApplicationCommands.Copy,
        ApplicationCommands.Cut,
        ApplicationCommands.Paste,
        ApplicationCommands.Undo,
        ApplicationCommands.Redo,
        ApplicationCommands.Delete,
        ApplicationCommands.Find,
        ApplicationCommands.Replace,
        ApplicationCommands.New,
        ApplicationCommands.Open,
        ApplicationCommands.Save,
        ApplicationCommands.Print,
        ApplicationCommands.Close,
        ApplicationCommands.Help,
    )


def _char_of(key: str) -> str | None:
    """The character an unmodified key types, or None."""
    if len(key) == 1:
        return key.lower()
    return " " if key == "Space" else None


def _raise_key(target: Any, source: PresentationSource, key: Key, event: RoutedEvent) -> bool:
    """Raise one keyboard event on ``target``; whether a handler handled it."""
    # Raised on the element itself, not through the input manager: KeyEventArgs
    # carries no modifier state (handlers read the real keyboard's).
    args = KeyEventArgs(*_args(Keyboard.PrimaryDevice, source, Environment.TickCount, key))
    args.RoutedEvent = event
    _raise(target, args)
    return bool(args.Handled)


def _text_args(target: Any, text: str, event: RoutedEvent) -> TextCompositionEventArgs:
    composition = TextComposition(InputManager.Current, target, text)
    args = TextCompositionEventArgs(*_args(Keyboard.PrimaryDevice, composition))
    args.RoutedEvent = event
    return args


def _move_focus(target: Any, direction: FocusNavigationDirection) -> None:
    if isinstance(target, UIElement):
        target.MoveFocus(TraversalRequest(direction))
    elif isinstance(target, ContentElement):
        target.MoveFocus(TraversalRequest(direction))


def _has_logical_focus(element: DependencyObject) -> bool:
    scope = FocusManager.GetFocusScope(element)
    if scope is None:
        return False
    return bool(Object.ReferenceEquals(_unwrap(FocusManager.GetFocusedElement(scope)), element))
