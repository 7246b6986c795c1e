"""Client patterns (core/patterns.py): every way one comes in, compiled by RE2, bounded, refused clearly.

Issue 18: a pattern was matched with Python's re on the UI thread, holding the
GIL, so ``^(a+)+$`` against 28 ``a``s froze the app and its server; ``a{99999999999}``
and 600 nested groups came back INTERNAL with a traceback on the app's stderr.
"""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_toolkit import Harness, by_name, harness
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wpfprobe.core.errors import InvalidArgumentError, ProbeError
from wpfprobe.core.patterns import (
    MAX_MATCHED_CHARS,
    MAX_PATTERN_LENGTH,
    PatternError,
    PatternTooCostlyError,
    compile_pattern,
)
from wpfprobe.core.settings import ProbeSettings
from wpfprobe.engine.engine import Target
from wpfprobe.engine.locators import parse_locator
from wpfprobe.engine.matching import criteria_compound

ROOT = Path(__file__).resolve().parents[2]

# What Python's re took and RE2 refuses, with the words the refusal must use.
REFUSED = {
    r"(a)\1": "backreference",
    r"(?P<n>a)(?P=n)": "backreference",
    r"(?=a)b": "lookahead",
    r"(?!a)b": "lookahead",
    r"(?<=a)b": "lookbehind",
    r"(?<!a)b": "lookbehind",
    r"(?>a)": "atomic",
    r"a*+": "possessive",
    r"end\Z": r"\z",
    "a{1001}": "at most 1000",
    "a{99999999999}": "at most 1000",  # re: OverflowError, reported as INTERNAL
    "(?x)a b": "inline flags",
    "(unclosed": "missing )",
    "x" * (MAX_PATTERN_LENGTH + 1): "the limit is",
}
BOMB_TEXT = "a" * 64 + "!"  # re: 2**64 steps for the patterns below
BOMBS = [r"^(a+)+$", r"(.+)+!$x", r"^(a|a)*$", r"^(a|aa)+$", r"(a*)*b"]


def entry_points(fake: Harness) -> dict[str, Callable[[str], Any]]:
    """Every way a client or a file hands wpfprobe a pattern, each called with one pattern."""
    from wpfprobe.testkit.scenario import TextAssertion

    return {
        "locator text=/.../": lambda p: fake.engine.find(locator="text=/" + p.replace("/", "\\/") + "/"),
        "locator [P~=...]": lambda p: fake.engine.find(locator='[Text~="' + _quoted(p) + '"]'),
        "Regex condition": lambda p: fake.engine.find(
            property_conditions=[{"property": "Text", "operator": "Regex", "value": p}]
        ),
        "wait_for textMatches": lambda p: fake.probe.locator("#userName").wait_for("textMatches", value=p, timeout=0),
        "criteria_compound": lambda p: criteria_compound(None, None, None, None, [{"property": "Text", "operator": "Regex", "value": p}]),
        "scenario regex assertion": lambda p: _scenario_error(TextAssertion, p),
    }  # fmt: skip


def _quoted(p: str) -> str:
    return p.replace("\\", "\\\\").replace('"', '\\"')


def _scenario_error(model: Any, pattern: str) -> None:
    from pydantic import ValidationError

    try:
        model.model_validate({"assert": "regex", "locator": "#x", "value": pattern})
    except ValidationError as exc:
        raise InvalidArgumentError(str(exc)) from None


@pytest.fixture
def fake() -> Iterator[Harness]:
    with harness(settings=ProbeSettings(audit=False, os_input_settle=0)) as h:
        yield h


@pytest.mark.parametrize(("pattern", "words"), REFUSED.items(), ids=[p[:24] for p in REFUSED])
def test_a_pattern_re2_refuses_is_invalid_argument_saying_why_at_every_entry(
    fake: Harness, capfd: pytest.CaptureFixture[str], pattern: str, words: str
) -> None:
    for where, use in entry_points(fake).items():
        with pytest.raises(InvalidArgumentError) as info:
            use(pattern)
        assert info.value.code == "INVALID_ARGUMENT", where
        assert words in str(info.value), (where, str(info.value))
    # RE2 logs every parse error to stderr unless told not to: the app must print nothing.
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")


def test_deep_nesting_and_huge_counts_are_answered_not_raised(fake: Harness, capfd: pytest.CaptureFixture[str]) -> None:
    """600 nested groups were a RecursionError in re; RE2 takes them (its parser keeps its own stack)."""
    nested = "(" * 600 + ")" * 600
    for use in entry_points(fake).values():
        try:
            use(nested)
        except ProbeError as err:
            assert err.code != "INTERNAL", err
    assert capfd.readouterr() == ("", "")
    assert compile_pattern(nested).search("anything")
    assert compile_pattern("(" * 1000 + ")" * 1000).search("")


def test_catastrophic_patterns_finish() -> None:
    """Each bomb against 64 a's and a '!': re would need 2**64 steps. In a process of its own, so a
    regression fails by its deadline instead of hanging the suite (re holds the GIL throughout)."""
    script = textwrap.dedent(
        f"""
        from wpfprobe.engine.locators import parse_locator
        from wpfprobe.engine.matching import criteria_compound, value_matches
        for bomb in {BOMBS!r}:
            for loc in ("text=/" + bomb + "/", '[Text~="' + bomb + '"]'):
                (test,) = parse_locator(loc).steps[0][1].attrs
                assert value_matches({BOMB_TEXT!r}, test) is False, loc
            (test,) = criteria_compound(None, None, None, None, [{{"property": "Text", "operator": "Regex", "value": bomb}}]).attrs
            assert value_matches({BOMB_TEXT!r}, test) is False
        print("done")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT, check=False
    )
    assert (done.returncode, done.stdout.strip(), done.stderr) == (0, "done", "")


def test_a_bomb_in_a_wait_is_matched_each_poll_without_hanging(fake: Harness) -> None:
    box = by_name(fake.app, "userName")
    box.text = BOMB_TEXT
    from wpfprobe.core.errors import OperationTimedOutError

    with pytest.raises(OperationTimedOutError):
        fake.probe.locator("#userName").wait_for("textMatches", value=r"^(a+)+$", timeout=0.2)
    assert fake.probe.locator("#userName").wait_for("textMatches", value=r"^(a+)+!$", timeout=0).observed == BOMB_TEXT


def test_flags_and_the_x_flag_done_as_python_does() -> None:
    assert compile_pattern("sa.e", "i").search("SAVE")
    assert compile_pattern("a.b", "s").search("a\nb") and not compile_pattern("a.b").search("a\nb")
    assert compile_pattern("^b$", "m").search("a\nb") and not compile_pattern("^b$").search("a\nb")
    verbose = compile_pattern(" ^ Sa  ve   # a comment\n [ ] \\  $ ", "x")
    assert verbose.search("Save  ") and not verbose.search("Save")
    assert compile_pattern("[]a]", "x").search("]")
    with pytest.raises(PatternError, match="unknown flag"):
        compile_pattern("a", "g")
    (test,) = parse_locator("text=/ ^ S a v e $ /xi").steps[0][1].attrs  # type: ignore[union-attr]
    assert test.pattern is not None and test.pattern.search("save")


def test_unicode_nul_and_lone_surrogates_are_matched_not_raised() -> None:
    assert compile_pattern("a\x00b").search("xa\x00b")
    assert compile_pattern(r"\pL+").search("日本")
    assert compile_pattern("^é$", "i").search("É")
    # A .NET string may hold half a surrogate pair; str.encode would refuse it.
    assert compile_pattern("x").search("\ud800x")
    assert not compile_pattern("y").search("\udfff\u202e")
    compile_pattern("\ud800")  # a pattern holding one is not an error either


def test_only_the_first_characters_of_a_long_value_are_searched() -> None:
    pattern = compile_pattern("needle")
    assert pattern.search("x" * (MAX_MATCHED_CHARS - 6) + "needle")
    assert not pattern.search("x" * MAX_MATCHED_CHARS + "needle")


def test_a_pattern_that_costs_too_much_stops_with_invalid_argument() -> None:
    """RE2 is linear, but a pattern whose automaton outgrows RE2's memory is simulated at microseconds
    a character: the pattern's searches are stopped once they used up their budget of thread time."""
    rng = random.Random(7)
    text = "".join(rng.choice("ab") for _ in range(MAX_MATCHED_CHARS))
    pattern = compile_pattern("(a|b)*a(a|b){400}c")
    with pytest.raises(PatternTooCostlyError) as info:
        for _ in range(1000):
            pattern.search(text)
    assert info.value.code == "INVALID_ARGUMENT" and info.value.detail["searched"] < 1000


def test_patterns_compare_by_source_and_flags() -> None:
    assert parse_locator("text=/a.c/i") == parse_locator("text=/a.c/i")
    assert parse_locator("text=/a.c/i") != parse_locator("text=/a.c/")


ALPHABET = st.sampled_from(
    [*"ab()[]{}*+?|^$.\\/#:>\"'=~,019-_!& ", "text=", "text=/", "[Text~=", ":nth(", "logical:", "menu:",
     "Button", "\x00", "\u202e", "\ud800", "é", "(?=", "\\1", "{99999999999}", "(" * 50]
)  # fmt: skip


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(ALPHABET, max_size=120).map("".join))
def test_any_locator_is_an_answer_or_a_probe_error(text: str) -> None:
    with harness(settings=ProbeSettings(audit=False)) as h:
        for call in (
            lambda: parse_locator(text),
            lambda: h.engine.find(locator=text),
            lambda: h.engine.count(Target(locators=(text,))),
        ):
            try:
                call()
            except ProbeError as err:
                assert err.code in ("INVALID_ARGUMENT", "LOCATOR_NOT_FOUND", "LOCATOR_AMBIGUOUS"), err


@pytest.mark.parametrize(
    "text",
    [
        "Button:nth(" + "9" * 1980 + ")",
        "Form[" + "9" * 1990 + "]",
        "[" * 1999,
        "text=/" + "(" * 990 + ")" * 990 + "/",
        " ".join(["*"] * 999),
        "/".join(["Form"] * 399),
        "menu:" + "/".join(["&&&"] * 400),
        "menu:" + "_" * 1990,
        "logical:" * 249,
        "[Text~=/x/]" * 180,
    ],
    ids=lambda t: t[:16],
)
def test_the_largest_hostile_locators_are_answered(fake: Harness, text: str) -> None:
    """The parser is a loop, not a recursion: every shape at the length limit parses or is refused."""
    for call in (lambda: fake.engine.find(locator=text), lambda: fake.engine.count(Target(locators=(text,)))):
        try:
            call()
        except ProbeError as err:
            assert err.code == "INVALID_ARGUMENT", err
