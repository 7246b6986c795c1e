"""Input, waits and mutation on top of the engine: the interact and mutate tiers.

An action takes two or three UI-thread hops. The first resolves the target,
checks that it can take the action, reads its state and the open windows,
and (toolkit mode) *posts* the action as a UI-thread message of its own. The
next hops are queued behind that message: they run once it has finished, or,
if its handler opened a modal dialog, from inside the dialog's message loop,
so the probe answers (``completed: false`` and the new window) instead of
hanging until someone closes the dialog. OS-mode input is sent from the
caller's thread, never the UI thread, which must be free to take the events.

Every action and mutation is recorded in the audit log (name, target and
outcome; never the text typed or the value set), from the caller's thread.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, Protocol

from wpfprobe.core import calls as _calls
from wpfprobe.core.app_events import python_stack, record_exception
from wpfprobe.core.convert import parse_value
from wpfprobe.core.errors import (
    DispatcherBusyError,
    ElementNotInteractableError,
    InvalidArgumentError,
    LocatorAmbiguousError,
    LocatorNotFoundError,
    NodeNotFoundError,
    OperationTimedOutError,
    ProbeError,
    PropertyNotFoundError,
    PropertyReadOnlyError,
    PropertyRedactedError,
)
from wpfprobe.core.keys import parse_keys
from wpfprobe.core.models import (
    ActionName,
    ActionResult,
    ActionState,
    AppError,
    Node,
    Redo,
    SetPropertyResult,
    WaitResult,
    Window,
)
from wpfprobe.core.patterns import compile_pattern
from wpfprobe.core.protocol import ActionKind, Blocker, InputMode, MouseButton, PlainValue
from wpfprobe.core.redaction import REDACTED
from wpfprobe.core.trace import redact_args
from wpfprobe.engine.base import EngineBase
from wpfprobe.engine.generating import generate
from wpfprobe.engine.hop import Hop
from wpfprobe.engine.locators import AttrTest
from wpfprobe.engine.matching import value_matches
from wpfprobe.engine.redo import redo
from wpfprobe.engine.target import Target

if TYPE_CHECKING:
    from wpfprobe.audit._writer import AuditLog

_log = logging.getLogger("wpfprobe.actions")

Mode = Literal["auto", "os"]
Condition = Literal[
    "exists", "gone", "visible", "hidden", "enabled", "disabled", "propertyEquals", "textMatches"
]  # fmt: skip
CONDITIONS: tuple[str, ...] = (
    "exists", "gone", "visible", "hidden", "enabled", "disabled", "propertyEquals", "textMatches"
)  # fmt: skip
MAX_TEXT_LENGTH = 10_000
MAX_TIMEOUT_MS = 60_000
_STATE_FIELDS = (
    "text", "visible", "enabled", "focused", "selected", "checked", "selectedIndex", "selectedItem", "expanded",
    "value",
)  # fmt: skip
_MAX_APP_ERROR = 500


class OsInput(Protocol):
    """Real OS input (xdotool on X11, SendInput on Windows); called off the UI thread."""

    def available(self) -> str | None: ...

    def click(self, x: int, y: int, *, button: MouseButton = "left", count: int = 1) -> None: ...

    def type_text(self, text: str) -> None: ...

    def send_keys(self, chords: Any) -> None: ...


class Driver:
    """The interact and mutate operations of one engine (``engine.driver``)."""

    def __init__(self, engine: EngineBase, *, os_input: OsInput | None = None) -> None:
        self._engine = engine
        self._os = os_input
        self._audit: AuditLog | None = None
        self._audit_lock = threading.Lock()

    # -- actions -----------------------------------------------------------
    def click(
        self, target: Target, *, mode: Mode = "auto", button: MouseButton = "left", click_count: int = 1
    ) -> ActionResult:
        if button not in ("left", "right", "middle"):
            raise InvalidArgumentError("button must be left, right or middle.", suggestion='Use button="left".')
        _check_int("clickCount", click_count, 1, 3)
        return self._act(
            "wpf_click", "click", target, mode,
            toolkit=lambda a, el: a.click(el, button=button, count=click_count),
            os=lambda os, point: os.click(point[0], point[1], button=button, count=click_count),
            args=_given(mode=(mode, "auto"), button=(button, "left"), clickCount=(click_count, 1)),
        )  # fmt: skip

    def type_text(self, target: Target, text: str, *, replace: bool = True, mode: Mode = "auto") -> ActionResult:
        if not isinstance(text, str) or len(text) > MAX_TEXT_LENGTH:
            raise InvalidArgumentError(
                f"text must be a string of at most {MAX_TEXT_LENGTH} characters.",
                suggestion="Type long text in several calls with replace=false.",
            )
        if "\x00" in text:
            raise InvalidArgumentError("text must not contain NUL characters.", suggestion="Remove them.")

        def os_type(os: OsInput, point: tuple[int, int]) -> None:
            # Refuse text the back end cannot type before the field is clicked and cleared.
            check = getattr(os, "check_text", None)
            if check is not None:
                check(text)
            os.click(point[0], point[1])  # focus it the way a user would
            if replace:
                os.send_keys(parse_keys("Ctrl+A Delete"))
            os.type_text(text)

        return self._act(
            "wpf_type_text", "type", target, mode,
            toolkit=lambda a, el: a.type_text(el, text, replace=replace),
            os=os_type, args={"text": text, **_given(replace=(replace, True), mode=(mode, "auto"))},
        )  # fmt: skip

    def send_keys(self, target: Target | None, keys: str, *, mode: Mode = "auto") -> ActionResult:
        chords = parse_keys(keys)

        def os_keys(os: OsInput, point: tuple[int, int] | None) -> None:
            if point is not None:
                os.click(point[0], point[1])
            os.send_keys(chords)

        return self._act(
            "wpf_send_keys", "keys", target, mode,
            toolkit=lambda a, el: a.send_keys(el, chords),
            os=os_keys, args={"keys": keys, **_given(mode=(mode, "auto"))},
        )  # fmt: skip

    def select(self, target: Target, *, item: str | None = None, index: int | None = None) -> ActionResult:
        """Select one item of the target by text or index; with neither, select the target, an item itself."""
        if item is not None and index is not None:
            raise InvalidArgumentError(
                "Give one of item (the item's text) and index, not both.",
                suggestion='wpf_select with item="Banana", or with index=1.',
            )
        if item is not None and (not isinstance(item, str) or not item or len(item) > 1000):
            raise InvalidArgumentError("item must be a non-empty string.", suggestion="Pass the item's text.")
        if index is not None:
            _check_int("index", index, 0, 1_000_000)

        def is_item(h: Hop, el: Any) -> None:
            # Only an item is selected by itself: it is what has a selected state.
            if item is None and index is None and h.state_of(el).selected is None:
                raise InvalidArgumentError(
                    f"{h.naming_of(el).type_name} is not an item that can be selected itself: give item or index.",
                    suggestion='wpf_select with item="Banana" or index=1 on a list, or on an item with neither.',
                )

        return self._act(
            "wpf_select", "select", target, "auto",
            toolkit=lambda a, el: a.select(el, item=item, index=index), check=is_item,
            args=_given(item=(item, None), index=(index, None)),
        )  # fmt: skip

    def toggle(self, target: Target, *, state: bool | None = None) -> ActionResult:
        if state is not None and not isinstance(state, bool):
            raise InvalidArgumentError("state must be true, false or left out (flip).")
        return self._act(
            "wpf_toggle", "toggle", target, "auto", toolkit=lambda a, el: a.toggle(el, state=state),
            args=_given(state=(state, None)),
        )  # fmt: skip

    def focus(self, target: Target) -> ActionResult:
        return self._act("wpf_focus", "focus", target, "auto", toolkit=lambda a, el: a.focus(el), args={})

    # -- waits ---------------------------------------------------------------
    def wait_for(
        self,
        target: Target,
        condition: Condition = "exists",
        *,
        property: str | None = None,  # noqa: A002 - the tool's argument name
        value: str | None = None,
        timeout_ms: int = 5000,
    ) -> WaitResult:
        """Poll until ``condition`` holds; the locator is resolved anew on every poll.

        Between polls the UI thread is free: each poll is one short hop. Served to a
        client, the wait leaves a progress note after every poll and ends at the next poll
        once the client cancels the call (``core.calls``): the UI thread is not touched again.
        """
        if condition not in CONDITIONS:
            raise InvalidArgumentError(
                f"condition must be one of {', '.join(CONDITIONS)}.", suggestion='Use condition="exists".'
            )
        _check_int("timeoutMs", timeout_ms, 0, MAX_TIMEOUT_MS)
        test = _condition_test(condition, property, value)
        engine = self._engine
        started = time.monotonic()
        deadline = started + timeout_ms / 1000
        polls = 0
        last: PlainValue = None
        interval = 0.02
        control = _calls.current()
        while True:
            if control is not None:
                control.check()
            polls += 1
            remaining = deadline - time.monotonic()
            try:
                hop_timeout = min(engine.settings.ui_timeout, max(remaining, 0.05))
                done, last, node = engine.on_ui(lambda: test(_hop(engine), target), timeout=hop_timeout)
            except DispatcherBusyError:
                done, last, node = False, "<UI thread busy>", None
            if done:
                elapsed = int((time.monotonic() - started) * 1000)
                args = {"condition": condition, **_given(property=(property, None), value=(value, None))}
                return WaitResult(
                    condition=condition,
                    node=Node.model_validate(node) if node is not None else None,
                    observed=last,
                    elapsed_ms=elapsed,
                    polls=polls,
                    redo=redo(
                        "wait_for", self._wait_locator(target, node), {**args, **_given(timeoutMs=(timeout_ms, 5000))}
                    ),
                )
            if time.monotonic() >= deadline:
                break
            pause = min(interval, max(deadline - time.monotonic(), 0))
            if control is None:
                time.sleep(pause)
            else:
                control.note(
                    f"waiting for {target.describe()}: {_describe_condition(condition, property, value)} "
                    f"({polls} polls, last observed {_show(last)[:200]})"
                )
                control.sleep(pause)
            interval = min(interval * 2, 0.2)
        raise OperationTimedOutError(
            f"{target.describe()!r} did not become {_describe_condition(condition, property, value)} "
            f"within {timeout_ms} ms; last observed: {_show(last)}.",
            suggestion="Check the app's state with wpf_inspect_element, or wait longer (timeoutMs up to 60000).",
            detail={"condition": condition, "lastObserved": last, "polls": polls, "timeoutMs": timeout_ms},
        )

    def _wait_locator(self, target: Target, node: dict[str, Any] | None) -> str | None:
        """A wait is redone on what it was given (any element with that text, say); a node id, on the element found."""
        if len(target.locators) == 1:
            return target.locators[0]
        if node is None:
            return None
        try:
            found: str = self._engine.indexed_hop(lambda h: generate(h, h.node(str(node["nodeId"])))["locator"])
        except ProbeError:
            return None
        return found

    # -- mutation ------------------------------------------------------------
    def set_property(self, target: Target, name: str, value: str) -> SetPropertyResult:
        if not isinstance(name, str) or not name or len(name) > 200:
            raise InvalidArgumentError("propertyName must be a non-empty string.")
        if not isinstance(value, str):
            raise InvalidArgumentError("value must be a string.", suggestion='Pass it as a JSON string: "12".')

        def apply(h: Hop) -> dict[str, Any]:
            el = h.resolve(target)
            adapter = h.adapter
            prop = adapter.find_property(el, name)
            if prop is None:
                raise PropertyNotFoundError(
                    f"{adapter.naming(el).type_name} has no property {name!r}.",
                    suggestion="List its properties with wpf_get_properties (includeDefaults=true).",
                    detail={"property": name},
                )
            if h.redactor.is_redacted(prop):
                raise PropertyRedactedError(
                    f"{prop.name} holds a secret; the probe neither reads nor sets it.",
                    suggestion="Set a non-secret property, or change it in the app's code.",
                    detail={"property": prop.name},
                )
            if prop.read_only:
                raise PropertyReadOnlyError(
                    f"{prop.name} is read-only.",
                    suggestion="Set a writable property instead (isReadOnly=false in wpf_get_properties).",
                    detail={"property": prop.name, "typeName": prop.type_name},
                )
            converted = parse_value(
                value, prop.type_name, toolkit=adapter.toolkit, property_name=prop.name, enum=adapter.enum_spec(prop)
            )
            previous = h.read_value(el, prop)
            adapter.set_value(el, prop, converted)
            row = h.read_property_row(el, prop)
            return {
                "node": h.project(el),
                "generated": generate(h, el)["locator"],
                "property": prop.name,
                "typeName": prop.type_name,
                "previousValue": previous,
                "newValue": row["value"],
                "valueSource": row["valueSource"],
            }

        with self._audited("wpf_set_property", target, action="set", property_name=name):
            done = self._engine.indexed_hop(apply)
        generated = done.pop("generated")
        safe, _ = redact_args("set_property", {"propertyName": done["property"], "value": value})
        return SetPropertyResult.model_validate({**done, "redo": redo("set_property", generated, safe)})

    # -- the common path -----------------------------------------------------
    def _act(
        self,
        tool: str,
        kind: ActionName,
        target: Target | None,
        mode: Mode,
        *,
        toolkit: Callable[[Any, Any], None],
        os: Callable[[OsInput, Any], None] | None = None,
        check: Callable[[Hop, Any], None] | None = None,
        args: dict[str, Any],
    ) -> ActionResult:
        if mode not in ("auto", "os"):
            raise InvalidArgumentError('mode must be "auto" or "os".', suggestion='Use mode="auto".')
        input_mode: InputMode = "os" if mode == "os" else "toolkit"
        if input_mode == "os":
            reason = "no OS input back end" if self._os is None else self._os.available()
            if os is None or reason is not None:
                raise InvalidArgumentError(
                    f"OS input is not available here: {reason or 'this action has no OS form'}.",
                    suggestion='Use mode="auto" (input through the toolkit), or install xdotool on X11.',
                    detail={"mode": mode},
                )
        # The keys are not recorded: a chord sequence can spell out text as well as a typed string can.
        with self._audited(tool, target, action=kind):
            return self._perform(
                kind, target, input_mode, toolkit, os, check, redo_as=(tool.removeprefix("wpf_"), args)
            )

    def _perform(
        self,
        kind: ActionName,
        target: Target | None,
        mode: InputMode,
        toolkit: Callable[[Any, Any], None],
        os: Callable[[OsInput, Any], None] | None,
        check: Callable[[Hop, Any], None] | None = None,
        *,
        redo_as: tuple[str, dict[str, Any]],
    ) -> ActionResult:
        engine = self._engine
        outcome: dict[str, Any] = {}

        def prepare(h: Hop) -> dict[str, Any]:
            el = h.resolve(target) if target is not None else h.adapter.focused_element()
            if el is None:
                raise NodeNotFoundError(
                    "No element has keyboard focus to send the keys to.",
                    suggestion="Pass nodeId or locator to name the element that should get the keys.",
                )
            if check is not None:
                check(h, el)
            # Keys to whatever has focus need no pointer: nothing is clicked first.
            pointer_free = kind == "keys" and target is None
            blocker = h.adapter.blocker(el, kind, "toolkit" if pointer_free else mode)
            if blocker is not None:
                raise _not_interactable(h, el, kind, blocker, mode)
            point = None
            if mode == "os" and (target is not None or kind != "keys"):
                point = h.adapter.click_point(el)
                if point is None:
                    raise _not_interactable(
                        h, el, kind, Blocker("offscreen", "It has no point on screen to click."), mode
                    )
            prepared = {
                "nodeId": h.id(el),
                "node": h.project(el),
                # Keys sent to whatever had focus are redone the same way, with no element named.
                "generated": generate(h, el)["locator"] if target is not None else None,
                "before": _state(h, el),
                "windows": _windows(h),
                "point": point,
            }
            if mode == "toolkit":
                adapter = h.adapter

                def act() -> None:
                    outcome["started"] = True
                    try:
                        toolkit(adapter, el)
                    except ProbeError as err:
                        outcome["refused"] = err
                    except Exception as exc:  # noqa: BLE001 - the app's handler raised: report it
                        outcome["appError"] = _app_error(exc)
                    finally:
                        outcome["done"] = True

                # Its own message, so a modal dialog it opens does not hold this hop.
                engine.ui.post(act)
            return prepared

        prepared = engine.indexed_hop(prepare)
        if mode == "os":
            assert os is not None and self._os is not None
            os(self._os, prepared["point"])
            time.sleep(engine.settings.os_input_settle)

        def observe(h: Hop) -> dict[str, Any]:
            el = h.objects.get(prepared["nodeId"])
            alive = el is not None and h.adapter.is_alive(el)
            focused = h.adapter.focused_element()
            return {
                "after": _state(h, el) if alive else None,
                "windows": _windows(h),
                "focused": h.project(focused) if focused is not None else None,
                "outcome": dict(outcome),
            }

        try:
            if mode == "toolkit":
                # One empty hop first: messages the handler posted run before the result is read.
                engine.hop(lambda h: None)
            seen = engine.indexed_hop(observe)
        except DispatcherBusyError as err:
            err.detail["delivered"] = True
            err.message = (
                "The input was delivered, but the UI thread has been busy since: "
                "the app is still handling it. " + err.message
            )
            raise
        done = seen["outcome"]
        if "refused" in done:
            raise done["refused"]
        before_windows: dict[str, dict[str, Any]] = prepared["windows"]
        after_windows: dict[str, dict[str, Any]] = seen["windows"]
        before, after = prepared["before"], seen["after"]
        changed = ["gone"] if after is None else [f for f in _STATE_FIELDS if before.get(f) != after.get(f)]
        return ActionResult(
            action=kind,
            mode=mode,
            node=Node.model_validate(prepared["node"]),
            before=ActionState.model_validate(before),
            after=ActionState.model_validate(after) if after is not None else None,
            changed=changed,
            opened_windows=[Window.model_validate(w) for i, w in after_windows.items() if i not in before_windows],
            closed_windows=[Window.model_validate(w) for i, w in before_windows.items() if i not in after_windows],
            focused=Node.model_validate(seen["focused"]) if seen["focused"] is not None else None,
            completed=mode == "os" or bool(done.get("done")),
            app_error=AppError.model_validate(done["appError"]) if "appError" in done else None,
            redo=_redo(redo_as, prepared),
        )

    # -- audit -----------------------------------------------------------------
    def _audited(
        self, tool: str, target: Target | None, *, action: str, property_name: str | None = None
    ) -> _AuditScope:
        return _AuditScope(self, tool, target, action, property_name)

    def audit_log(self) -> AuditLog | None:
        """The log this engine appends to, opened on first use (None when auditing is off)."""
        settings = self._engine.settings
        if not settings.audit:
            return None
        with self._audit_lock:
            if self._audit is None:
                from wpfprobe.audit._files import default_log_path  # noqa: PLC0415
                from wpfprobe.audit._key import load_or_create_key  # noqa: PLC0415
                from wpfprobe.audit._writer import AuditLog  # noqa: PLC0415

                key = load_or_create_key(settings.audit_key_file)
                path = settings.audit_log or default_log_path(self._engine.app_name)
                self._audit = AuditLog(path, key=key, app_id=self._engine.app_id)
            return self._audit

    def close(self) -> None:
        with self._audit_lock:
            if self._audit is not None:
                self._audit.close()
                self._audit = None


class _AuditScope:
    """Records one entry when the operation ends, with its outcome code."""

    def __init__(self, driver: Driver, tool: str, target: Target | None, action: str, prop: str | None) -> None:
        self._driver = driver
        self._tool = tool
        self._target = target.describe() if target is not None else None
        self._action = action
        self._prop = prop
        self._log: AuditLog | None = None

    def __enter__(self) -> None:
        # Opened before acting: an action that could not be audited is not performed.
        self._log = self._driver.audit_log()

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None:
        if self._log is None:
            return
        outcome = "ok" if exc is None else (exc.code if isinstance(exc, ProbeError) else "INTERNAL")
        prop = self._prop if self._prop and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]{0,127}", self._prop) else None
        try:
            self._log.record(self._tool, target=self._target, action=self._action, property=prop, outcome=outcome)
        except Exception:  # noqa: BLE001 - the input has happened; its result must still reach the caller
            # The input has happened and its result must still reach the caller.
            _log.exception("could not append to the audit log %s", self._log.path)


# -- helpers (run on the UI thread unless said otherwise) ----------------------


def _given(**pairs: tuple[Any, Any]) -> dict[str, Any]:
    """The arguments whose value differs from the tool's default: ``name=(value, default)``."""
    return {name: value for name, (value, default) in pairs.items() if value != default}


def _redo(redo_as: tuple[str, dict[str, Any]], prepared: dict[str, Any]) -> Redo:
    """The step and Python line that do the action again; a secret typed shows as [REDACTED] (caller's thread)."""
    action, args = redo_as
    safe, _ = redact_args(action, args, node=prepared["node"], before=prepared["before"])
    return redo(action, prepared["generated"], safe)


def _hop(engine: EngineBase) -> Hop:
    return Hop(engine)


def _state(h: Hop, el: Any) -> dict[str, Any]:
    base = h.state_of(el)
    extra = h.adapter.action_state(el)
    state: dict[str, Any] = {
        "text": h.text(el),
        "visible": base.visible,
        "enabled": base.enabled,
        "focused": base.focused,
    }
    for key in ("selected", "checked", "selectedIndex", "selectedItem", "expanded", "value"):
        if key in extra:
            state[key] = extra[key]
    return state


def _windows(h: Hop) -> dict[str, dict[str, Any]]:
    out = {}
    for w in h.adapter.roots():
        node = h.project(w)
        if not node["visible"]:
            continue
        node["title"] = node.get("text")
        bounds = h.bounds_of(w)
        if bounds is not None:
            node["bounds"] = {"x": bounds.x, "y": bounds.y, "width": bounds.width, "height": bounds.height}
        node["active"] = h.adapter.is_active_window(w)
        out[node["nodeId"]] = node
    return out


def _not_interactable(
    h: Hop, el: Any, kind: ActionKind, blocker: Blocker, mode: InputMode
) -> ElementNotInteractableError:
    naming = h.naming_of(el)
    described = f"{naming.type_name}#{naming.name}" if naming.name else naming.type_name
    detail: dict[str, Any] = {"reason": blocker.reason, "action": kind, "nodeId": h.id(el), "mode": mode}
    if blocker.by is not None:
        detail["blockedBy"] = h.project(blocker.by)
    # Input through the toolkit is the way round the pointer: say so only to a caller that was not using it.
    table = _OS_SUGGESTIONS if mode == "os" else _SUGGESTIONS
    suggestion = table.get(blocker.reason) or _SUGGESTIONS.get(blocker.reason, "Inspect it with wpf_inspect_element.")
    return ElementNotInteractableError(
        f"{described} cannot take a {kind} now ({blocker.reason}): {blocker.message}",
        suggestion=suggestion,
        detail=detail,
    )


_SUGGESTIONS = {
    "disabled": "Wait for it to be enabled (wpf_wait_for condition=enabled), or do what enables it first.",
    "hidden": "Make it visible first (open its tab, menu or panel), or wait with wpf_wait_for condition=visible.",
    "zero-size": "It has no area; inspect its layout with wpf_inspect_element.",
    "offscreen": (
        "Even input through the toolkit needs it on screen here: bring its window onto the screen, or scroll "
        "or open what holds it; wpf_inspect_element shows its bounds."
    ),
    "covered": "Close or move what covers it (see detail.blockedBy).",
    "modal": "Finish the modal dialog first (see detail.blockedBy), e.g. click its OK or Cancel button.",
    "read-only": "It is read-only; type into an editable element instead.",
    "unsupported": "Use an action that fits the element: wpf_inspect_element shows its type.",
}
#: Where OS input (mode=os) was refused but input through the toolkit (mode=auto) may reach it.
_OS_SUGGESTIONS = {
    "offscreen": "Use mode=auto (input through the toolkit, no pointer needed), or bring it onto the screen first.",
    "covered": "Close or move what covers it (see detail.blockedBy), or use mode=auto.",
}


def _app_error(exc: BaseException) -> dict[str, str]:
    inner = exc
    # pythonnet wraps handler exceptions; the innermost names what the app did.
    for _ in range(5):
        nested = getattr(inner, "InnerException", None)
        if nested is None:
            break
        inner = nested
    kind = type(inner).__name__
    get_type = getattr(inner, "GetType", None)
    # A Python exception that crossed .NET (a handler run by a window message) comes back as
    # pythonnet's PythonException, which knows the Python type it carries: that is what the app raised.
    carried = getattr(inner, "Type", None) if get_type is not None else None
    if isinstance(carried, type):
        kind = carried.__name__
    elif get_type is not None:
        try:
            kind = str(get_type().Name)
        except Exception:  # noqa: BLE001, S110 - best effort naming: the message still says what failed
            pass
    message = str(getattr(inner, "Message", None) or inner).strip().splitlines()
    first = (message[0] if message else "")[:_MAX_APP_ERROR]
    # Also into the app's event store, with the stack, for wpf_get_app_events (and the test kit's tickets).
    try:
        if get_type is None:
            stack = python_stack(inner)
        else:
            formatted = getattr(inner, "Format", None) if isinstance(carried, type) else None
            stack = (str(formatted()) if formatted is not None else "") + str(getattr(inner, "StackTrace", None) or "")
        record_exception("action", kind, first, stack)
    except Exception:  # noqa: BLE001, S110 - the result still reports the error
        pass
    return {"type": kind, "message": first}


def _check_int(label: str, value: Any, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidArgumentError(f"{label} must be an integer from {low} to {high}.")


def _condition_test(
    condition: str, prop: str | None, value: str | None
) -> Callable[[Hop, Target], tuple[bool, PlainValue, dict[str, Any] | None]]:
    """A function run on the UI thread per poll: (satisfied, observed value, node)."""
    if condition == "propertyEquals" and (not prop or value is None):
        raise InvalidArgumentError(
            "propertyEquals needs property and value.",
            suggestion='e.g. condition="propertyEquals", property="Text", value="Saved".',
        )
    if condition == "textMatches":
        if value is None:
            raise InvalidArgumentError(
                "textMatches needs value, a regular expression.", suggestion='e.g. value="^Saved"'
            )
        pattern = compile_pattern(value)

    def test(h: Hop, target: Target) -> tuple[bool, PlainValue, dict[str, Any] | None]:
        if condition in ("exists", "gone"):
            try:
                found = h.resolve_all(target)
            except (NodeNotFoundError, LocatorNotFoundError):
                found = []
            if condition == "gone":
                return not found, len(found), None
            return bool(found), len(found), h.project(found[0]) if found else None
        try:
            el = h.resolve(target)
        except (NodeNotFoundError, LocatorNotFoundError):
            return False, "<not found>", None
        except LocatorAmbiguousError:
            raise
        state = h.state_of(el)
        observed: PlainValue
        if condition in ("visible", "hidden"):
            observed = state.visible
            ok = state.visible == (condition == "visible")
        elif condition in ("enabled", "disabled"):
            observed = state.enabled
            ok = state.enabled == (condition == "enabled")
        elif condition == "textMatches":
            observed = h.text(el)
            if observed == REDACTED:
                raise PropertyRedactedError(
                    "The element's text is a secret; the probe does not match it.",
                    suggestion="Wait on another element or condition.",
                )
            ok = observed is not None and pattern.search(str(observed))
        else:
            assert prop is not None
            found_prop = h.adapter.find_property(el, prop)
            if found_prop is None:
                raise PropertyNotFoundError(
                    f"{h.naming_of(el).type_name} has no property {prop!r}.",
                    suggestion="List its properties with wpf_get_properties (includeDefaults=true).",
                    detail={"property": prop},
                )
            if h.redactor.is_redacted(found_prop):
                raise PropertyRedactedError(
                    f"{found_prop.name} holds a secret; the probe does not read it.",
                    suggestion="Wait on a property that is not secret.",
                    detail={"property": found_prop.name},
                )
            observed = h.read_value(el, found_prop)
            ok = value_matches(observed, AttrTest(found_prop.name, "equals", value))
        return ok, observed, h.project(el) if ok else None

    return test


def _describe_condition(condition: str, prop: str | None, value: str | None) -> str:
    if condition == "propertyEquals":
        return f"{prop} == {value!r}"
    if condition == "textMatches":
        return f"text matching {value!r}"
    return condition


def _show(value: PlainValue) -> str:
    return repr(value) if isinstance(value, str) else str(value)


__all__ = ["CONDITIONS", "Condition", "Driver", "Mode", "OsInput"]
