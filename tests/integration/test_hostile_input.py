"""Hostile input in tool arguments, over real MCP, against the example app in a process of its own (issue 18).

The app (scripts/fuzz_app.py, mutate tier) holds 40 ``a``s and a ``!`` in a text box
and a label: the text a backtracking regex never finishes with. Each test asks
what an agent could, then checks that the app's UI thread still answers
(``fuzz_facts`` repaints every form first: a paint is where a control too large
for X11 ends the UI thread), that nothing reached its message loop, and that
it printed nothing.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from fuzz_harness import FuzzApp


@pytest.fixture(scope="module")
def app(display: str | None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FuzzApp]:
    started = FuzzApp(tmp_path_factory.mktemp("hostile"))
    try:
        yield started
    finally:
        facts = started.close()
    assert facts is not None and facts["threadExceptions"] == [], facts
    assert started.output() == "", "the app printed:\n" + started.output()[-4000:]


async def call(client: Any, tool: str, **arguments: Any) -> tuple[bool, dict[str, Any], float]:
    started = time.monotonic()
    result = await client.call_tool(tool, arguments)
    return result.is_error, result.structured_content or {}, time.monotonic() - started


async def still_answers(client: Any, app: FuzzApp) -> None:
    failed, facts, _ = await call(client, "fuzz_facts")
    assert not failed, facts
    assert facts["result"]["threadExceptions"] == [], facts
    failed, windows, _ = await call(client, "wpf_get_windows")
    assert not failed and windows["windows"], windows
    assert app.alive() and app.output() == "", app.output()[-4000:]


def test_a_backtracking_regex_is_answered_and_the_app_keeps_answering(app: FuzzApp) -> None:
    """^(a+)+$ against the bomb text answered DISPATCHER_BUSY after 9 s with 28 a's (never with 40), and
    held the GIL meanwhile: every pattern entry now answers at once."""

    async def body(client: Any) -> None:
        for arguments in (
            {"locator": "text=/^(a+)+$/"},
            {"locator": '[Text~="(.+)+!$x"]'},
            {"locator": "#bombBox[Text~='^(a|aa)+$']"},
            {"propertyConditions": [{"property": "Text", "operator": "Regex", "value": "^(a+)+$"}]},
        ):
            failed, found, _ = await call(client, "wpf_find_elements", **arguments)
            assert not failed, (arguments, found)
            assert found["results"] == [], (arguments, found)
        failed, found, _ = await call(client, "wpf_find_elements", locator="text=/^(a+)+!$/")
        assert not failed and {r["node"]["name"] for r in found["results"]} == {"bombBox", "bombLabel"}, found
        failed, waited, _ = await call(
            client, "wpf_wait_for", locator="#bombBox", condition="textMatches", value="^(a+)+$", timeoutMs=500
        )
        assert failed and waited["code"] == "OPERATION_TIMED_OUT", waited
        await still_answers(client, app)

    app.session(body)


@pytest.mark.parametrize(
    "pattern",
    ["a{99999999999}", "(" * 600 + ")" * 600, r"(a)\1", "(?<=a)b", "(?P<x>a)(?P=x)", "x" * 1000 + "{1001}"],
    ids=["overflow-count", "600-groups", "backreference", "lookbehind", "named-backreference", "count-over-1000"],
)
def test_a_bad_pattern_is_invalid_argument_and_nothing_is_printed(app: FuzzApp, pattern: str) -> None:
    """a{99999999999} was an OverflowError and 600 nested groups a RecursionError: INTERNAL, with a
    traceback on the app's stderr. Now a pattern is answered or refused as INVALID_ARGUMENT."""
    quoted = pattern.replace("\\", "\\\\").replace('"', '\\"')
    calls = [
        ("wpf_find_elements", {"locator": "text=/" + pattern + "/"}),
        ("wpf_find_elements", {"locator": '[Text~="' + quoted + '"]'}),
        ("wpf_find_elements", {"propertyConditions": [{"property": "Text", "operator": "Regex", "value": pattern}]}),
        ("wpf_wait_for", {"locator": "#bombBox", "condition": "textMatches", "value": pattern[:1000], "timeoutMs": 0}),
    ]

    async def body(client: Any) -> None:
        for tool, arguments in calls:
            failed, answer, _ = await call(client, tool, **arguments)
            if failed:
                assert answer.get("code") in ("INVALID_ARGUMENT", "OPERATION_TIMED_OUT"), (tool, answer)
                if answer["code"] == "INVALID_ARGUMENT":
                    assert "regular expression" in answer["message"] or "locator" in answer["message"], answer
        await still_answers(client, app)

    app.session(body)


SIZES = [
    ("#bombLabel", "Width", "32768"),
    ("#bombLabel", "Height", "40000"),
    ("#bombLabel", "Size", "32768,10"),
    ("#bombLabel", "Bounds", "0,0,99999,99999"),
    ("#bombLabel", "MinimumSize", "65535,65535"),
    ("#mainWindow", "Size", "32768,500"),
    ("#mainWindow", "ClientSize", "500,32768"),
    ("#mainWindow", "MinimumSize", "40000,40000"),
]


@pytest.mark.parametrize(("locator", "prop", "value"), SIZES, ids=[f"{p}={v}" for _, p, v in SIZES])
def test_a_size_over_32767_is_refused_and_the_ui_thread_lives(
    app: FuzzApp, locator: str, prop: str, value: str
) -> None:
    """Mono's X11 paint failed (BadAlloc, BadValue, GDI+ GenericError) within a second of such a set,
    and the UI thread ended with it."""

    async def body(client: Any) -> None:
        failed, refused, _ = await call(client, "wpf_set_property", locator=locator, propertyName=prop, value=value)
        assert failed and refused["code"] == "INVALID_ARGUMENT", refused
        assert refused["detail"]["maximum"] == 32767 and "32767" in refused["message"], refused
        await still_answers(client, app)

    app.session(body)


def test_a_set_that_grows_a_control_too_far_is_undone(app: FuzzApp) -> None:
    """A set can make another size grow: a long text in an AutoSize check box. It is put back before any paint."""

    async def body(client: Any) -> None:
        failed, answer, _ = await call(
            client, "wpf_set_property", locator="#subscribeCheck", propertyName="AutoSize", value="true"
        )
        assert not failed, answer
        failed, refused, _ = await call(
            client, "wpf_set_property", locator="#subscribeCheck", propertyName="Text", value="W" * 4000
        )
        assert failed and refused["code"] == "INVALID_ARGUMENT" and refused["detail"]["grown"] == "subscribeCheck", (
            refused
        )
        failed, props, _ = await call(client, "wpf_get_properties", locator="#subscribeCheck", filter="Text")
        assert [p["value"] for p in props["items"] if p["name"] == "Text"] == ["Subscribe"], props
        await call(client, "wpf_set_property", locator="#subscribeCheck", propertyName="AutoSize", value="false")
        await still_answers(client, app)

    app.session(body)


def test_a_size_within_range_is_still_set(app: FuzzApp) -> None:
    async def body(client: Any) -> None:
        for value in ("32767", "190"):
            failed, done, _ = await call(
                client, "wpf_set_property", locator="#bombLabel", propertyName="Width", value=value
            )
            assert not failed and done["newValue"] == int(value), done
            await still_answers(client, app)
        failed, done, _ = await call(
            client, "wpf_set_property", locator="#bombLabel", propertyName="Location", value="40000,-40000"
        )
        assert not failed, done
        await call(client, "wpf_set_property", locator="#bombLabel", propertyName="Location", value="250,330")
        await still_answers(client, app)

    app.session(body)


def test_the_secret_never_surfaces(app: FuzzApp) -> None:
    """The password box and the vault panel's ApiKey/ConnectionString hold the app's secret; their getters never run."""

    async def body(client: Any) -> None:
        seen = []
        for tool, arguments in (
            ("wpf_get_properties", {"locator": "#vaultPanel", "includeDefaults": True, "take": 200}),
            ("wpf_get_properties", {"locator": "#passwordBox", "includeDefaults": True, "take": 200}),
            ("wpf_get_visual_tree", {"maxDepth": 10, "format": "json", "includeProperties": ["ApiKey", "Text"]}),
            ("wpf_find_elements", {"locator": '[ApiKey~="^fz-"]'}),
            (
                "wpf_find_elements",
                {"propertyConditions": [{"property": "ConnectionString", "operator": "Contains", "value": "fz-"}]},
            ),
            ("wpf_inspect_element", {"locator": "#passwordBox"}),
        ):
            result = await client.call_tool(tool, arguments)
            seen.append(str(result.structured_content) + " ".join(str(getattr(b, "text", "")) for b in result.content))
        assert not any(app.secret in text for text in seen)
        failed, facts, _ = await call(client, "fuzz_facts")
        assert not failed and facts["result"]["secretReads"] == 0, facts

    app.session(body)
