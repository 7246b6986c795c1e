"""Custom tools: a function's signature and docstring made into a ToolSpec (wpfprobe.mcp.custom)."""

from __future__ import annotations

import threading
from types import SimpleNamespace
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, Field, ValidationError

from wpfprobe.core.errors import DispatcherBusyError, InvalidArgumentError, ProbeError
from wpfprobe.mcp import custom as _custom
from wpfprobe.mcp.catalog import parse_arguments


class FakeUi:
    """Runs calls on a thread of its own, as the engine's UI-thread hop does."""

    def __init__(self, *, busy: bool = False) -> None:
        self.busy = busy
        self.threads: list[int] = []

    def run(self, fn: Any, *, timeout: float | None = None) -> Any:
        if self.busy:
            raise DispatcherBusyError(f"busy for {timeout}")
        box: list[Any] = []
        thread = threading.Thread(target=lambda: (self.threads.append(threading.get_ident()), box.append(fn())))
        thread.start()
        thread.join()
        return box[0]


def engine(ui: FakeUi | None = None) -> Any:
    return SimpleNamespace(app_id="app-1", ui=ui or FakeUi(), settings=SimpleNamespace(ui_timeout=0.5))


class Order(BaseModel):
    order_id: int
    total: float


def lookup(order_id: int, /, currency: str = "EUR", *, include_lines: bool = False) -> Order:
    """Look an order up.

    Longer description.
    """
    return Order(order_id=order_id, total=1.5 if currency == "EUR" else 2.0)


def test_the_signature_becomes_a_camel_case_model_with_defaults() -> None:
    tool = _custom.define(lookup)
    schema = tool.args.model_json_schema(by_alias=True)
    assert set(schema["properties"]) == {"orderId", "currency", "includeLines"}
    assert schema["required"] == ["orderId"]
    assert schema["properties"]["currency"]["default"] == "EUR"
    assert schema.get("additionalProperties") is False
    assert tool.title == "Look an order up" and "Longer description." in tool.description
    assert tool.output is Order and not tool.wrapped


def test_a_call_passes_positional_only_and_keyword_arguments_and_returns_the_model() -> None:
    spec = _custom.define(lookup).spec()
    args = parse_arguments(spec, {"orderId": 7, "currency": "USD", "includeLines": True})
    out = spec.run(engine(), args)
    assert out.structured_json() == {"order_id": 7, "total": 2.0}
    assert out.text == '{"order_id":7,"total":2.0}'
    with pytest.raises(ValidationError):  # the wire names only
        parse_arguments(spec, {"order_id": 7})


def test_a_plain_value_is_wrapped_as_result_and_rendered_as_text() -> None:
    def words(text: Annotated[str, Field(description="Some text.")], limit: int = 2) -> list[str]:
        """Split text."""
        return text.split()[:limit]

    tool = _custom.define(words)
    assert tool.args.model_json_schema()["properties"]["text"]["description"] == "Some text."
    out = tool.spec().run(engine(), parse_arguments(tool.spec(), {"text": "a b c"}))
    assert out.structured_json() == {"result": ["a", "b"]}
    assert out.text == '["a", "b"]'


def test_ui_thread_tools_hop_to_the_ui_thread_and_others_do_not() -> None:
    seen: list[int] = []

    def where() -> int:
        """Thread id."""
        seen.append(threading.get_ident())
        return 1

    ui = FakeUi()
    _custom.define(where, ui_thread=True).spec().run(engine(ui), _custom.define(where).args())
    assert seen == ui.threads and seen[0] != threading.get_ident()
    _custom.define(where).spec().run(engine(ui), _custom.define(where).args())
    assert seen[1] == threading.get_ident() and len(ui.threads) == 1


def test_a_busy_ui_thread_is_dispatcher_busy() -> None:
    def noop() -> None:
        """Nothing."""

    tool = _custom.define(noop, ui_thread=True)
    with pytest.raises(DispatcherBusyError):
        tool.spec().run(engine(FakeUi(busy=True)), tool.args())


@pytest.mark.parametrize("ui_thread", [False, True])
def test_exceptions_become_internal_errors_without_their_message(ui_thread: bool) -> None:
    def boom(value: str) -> int:
        """Fails."""
        raise KeyError(f"secret {value}")

    tool = _custom.define(boom, ui_thread=ui_thread)
    with pytest.raises(ProbeError) as caught:
        tool.spec().run(engine(), parse_arguments(tool.spec(), {"value": "hunter2"}))
    assert caught.value.code == "INTERNAL"
    assert "KeyError" in caught.value.message
    assert "hunter2" not in str(caught.value.to_dict())


def test_a_probe_error_keeps_its_code_and_a_wrong_return_type_is_internal() -> None:
    def gone() -> int:
        """Fails with a code."""
        raise ProbeError("No such row.", code="NODE_NOT_FOUND")

    def liar() -> int:
        """Returns text."""
        return "not a number"  # type: ignore[return-value]

    with pytest.raises(ProbeError) as caught:
        _custom.define(gone).spec().run(engine(), _custom.define(gone).args())
    assert caught.value.code == "NODE_NOT_FOUND"
    with pytest.raises(ProbeError) as caught:
        _custom.define(liar).spec().run(engine(), _custom.define(liar).args())
    assert caught.value.code == "INTERNAL" and "return annotation" in caught.value.message


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        ("wpf_click", "reserved"),
        ("WPF_mine", "reserved"),
        ("app__tool", "'__'"),
        ("has space", "letters, digits"),
        ("x" * 65, "letters, digits"),
        ("", "letters, digits"),
    ],
)
def test_bad_names_are_refused_at_decoration_time(name: str, fragment: str) -> None:
    def fine() -> None:
        """Fine."""

    with pytest.raises(InvalidArgumentError) as caught:
        _custom.tool(name=name)(fine)
    assert fragment in caught.value.message


def test_untyped_and_variadic_parameters_and_bad_options_are_refused() -> None:
    def untyped(x) -> None:  # type: ignore[no-untyped-def]
        """No annotation."""

    def variadic(*args: int) -> None:
        """Variadic."""

    with pytest.raises(InvalidArgumentError, match="no type annotation"):
        _custom.define(untyped)
    with pytest.raises(InvalidArgumentError, match=r"\*args"):
        _custom.define(variadic)
    with pytest.raises(InvalidArgumentError):
        _custom.define(lookup, tier="admin")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        _custom.define(lookup, ui_thread="yes")  # type: ignore[arg-type]


def test_the_registry_takes_both_decorator_forms_and_refuses_a_second_function_of_the_same_name() -> None:
    try:

        @_custom.tool
        def unit_plain(n: int) -> int:
            """Plain."""
            return n

        @_custom.tool(name="unit-named", tier="interact", ui_thread=True)
        def whatever() -> str:
            """Named."""
            return "x"

        assert unit_plain(2) == 2, "the function is returned unchanged"
        by_name = {t.name: t for t in _custom.registered()}
        assert by_name["unit_plain"].tier == "read" and not by_name["unit_plain"].ui_thread
        assert by_name["unit-named"].tier == "interact" and by_name["unit-named"].ui_thread

        def other() -> int:
            """Another function."""
            return 0

        with pytest.raises(InvalidArgumentError, match="already registered"):
            _custom.tool(name="unit_plain")(other)
    finally:
        _custom.unregister("unit_plain")
        _custom.unregister("unit-named")
    assert not {"unit_plain", "unit-named"} & {t.name for t in _custom.registered()}
