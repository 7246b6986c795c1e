"""parse_locator: every form of SPEC section 4 and the module docstring, and malformed input."""

from __future__ import annotations

import pytest

from wpfprobe.core.errors import InvalidArgumentError
from wpfprobe.engine.locators import (
    MAX_LOCATOR_LENGTH,
    AttrTest,
    Compound,
    PathLocator,
    PathSegment,
    Selector,
    format_ident,
    parse_locator,
)


def only_step(text: str) -> Compound:
    loc = parse_locator(text)
    assert isinstance(loc, Selector)
    assert len(loc.steps) == 1
    combinator, compound = loc.steps[0]
    assert combinator == ""
    return compound


def test_type_short_name() -> None:
    assert only_step("Button") == Compound(type_name="Button")


def test_type_full_name_with_dots() -> None:
    assert only_step("System.Windows.Controls.Button").type_name == "System.Windows.Controls.Button"


def test_hash_ident_alone() -> None:
    assert only_step("#saveButton") == Compound(ident="saveButton")


def test_type_and_hash_ident() -> None:
    assert only_step("Button#saveButton") == Compound(type_name="Button", ident="saveButton")


def test_wildcard_type_with_attribute() -> None:
    c = only_step("*[Tag]")
    assert c.type_name is None
    assert c.attrs == (AttrTest("Tag", "exists"),)


def test_text_exact_quoted() -> None:
    c = only_step('text="Save as"')
    assert c.attrs == (AttrTest("text", "equals", "Save as"),)


def test_text_exact_single_quoted() -> None:
    assert only_step("text='Save'").attrs == (AttrTest("text", "equals", "Save"),)


def test_text_substring_is_case_insensitive_contains() -> None:
    (test,) = only_step("text=Sav").attrs
    assert (test.name, test.op, test.value, test.ignore_case) == ("text", "contains", "Sav", True)


def test_text_regex_with_flag() -> None:
    (test,) = only_step("text=/^sa.e$/i").attrs
    assert (test.name, test.op) == ("text", "regex")
    assert test.pattern is not None
    assert test.pattern.flags == "i"
    assert test.pattern.search("SAVE")


def test_text_substring_containing_a_slash_is_not_a_path() -> None:
    (test,) = only_step("text=and/or").attrs
    assert (test.op, test.value) == ("contains", "and/or")


def test_text_regex_containing_escaped_slash_is_not_a_path() -> None:
    loc = parse_locator(r"text=/a\/b/")
    assert isinstance(loc, Selector)
    (test,) = loc.steps[0][1].attrs
    assert test.pattern is not None and test.pattern.search("xa/b")


def test_attribute_equality_unquoted() -> None:
    assert only_step("[IsEnabled=false]").attrs == (AttrTest("IsEnabled", "equals", "false"),)


def test_attribute_equality_quoted_with_space() -> None:
    assert only_step('[Text="hi there"]').attrs == (AttrTest("Text", "equals", "hi there"),)


def test_attribute_contains() -> None:
    (test,) = only_step('[Text*="x"]').attrs
    assert (test.name, test.op, test.value, test.ignore_case) == ("Text", "contains", "x", True)


def test_attribute_regex() -> None:
    (test,) = only_step('[Name~="^a.c$"]').attrs
    assert (test.name, test.op, test.value) == ("Name", "regex", "^a.c$")
    assert test.pattern is not None and test.pattern.search("abc") and not test.pattern.search("abcd")


def test_attribute_exists() -> None:
    assert only_step("[Tag]").attrs == (AttrTest("Tag", "exists"),)


def test_several_attributes_on_one_step() -> None:
    c = only_step('Button[IsEnabled=true][Content*="sa"]')
    assert c.type_name == "Button"
    assert [a.name for a in c.attrs] == ["IsEnabled", "Content"]


def test_child_and_descendant_steps() -> None:
    loc = parse_locator("Window > StackPanel Button")
    assert isinstance(loc, Selector)
    assert [(comb, c.type_name) for comb, c in loc.steps] == [("", "Window"), (">", "StackPanel"), (" ", "Button")]


def test_child_step_without_spaces() -> None:
    loc = parse_locator("Window>Grid")
    assert isinstance(loc, Selector)
    assert [(comb, c.type_name) for comb, c in loc.steps] == [("", "Window"), (">", "Grid")]


def test_nth_positive() -> None:
    c = only_step("Button:nth(1)")
    assert (c.type_name, c.nth) == ("Button", 1)


def test_nth_negative() -> None:
    assert only_step("Button:nth(-1)").nth == -1


def test_visible_pseudo() -> None:
    c = only_step("Label:visible")
    assert c.visible_only is True and c.nth is None


def test_visible_and_nth_combined() -> None:
    c = only_step("Button:visible:nth(2)")
    assert (c.visible_only, c.nth) == (True, 2)


def test_text_selector_with_nth() -> None:
    c = only_step("text=Item:nth(3)")
    assert c.nth == 3
    assert c.attrs[0].value == "Item"


def test_path_form_with_indexes() -> None:
    loc = parse_locator("MainWindow/Grid[0]/Button[2]")
    assert loc == PathLocator(
        (PathSegment("MainWindow", None, None), PathSegment("Grid", None, 0), PathSegment("Button", None, 2))
    )


def test_path_form_with_typed_named_first_segment() -> None:
    loc = parse_locator("Window#mainWindow/Grid[0]")
    assert loc == PathLocator((PathSegment("Window", "mainWindow", None), PathSegment("Grid", None, 0)))


def test_path_form_starting_with_bare_name() -> None:
    loc = parse_locator("#name/Button[1]")
    assert loc == PathLocator((PathSegment(None, "name", None), PathSegment("Button", None, 1)))


def test_quoted_ident_with_space() -> None:
    assert only_step('Button#"save button"').ident == "save button"


def test_quoted_ident_with_slash_is_not_a_path() -> None:
    c = only_step("#'a/b'")
    assert c.ident == "a/b"


def test_quoted_ident_with_escaped_quote() -> None:
    assert only_step(r'#"say \"hi\""').ident == 'say "hi"'


def test_quoted_ident_inside_path() -> None:
    loc = parse_locator('StackPanel#"my panel"/Button[0]')
    assert loc == PathLocator((PathSegment("StackPanel", "my panel", None), PathSegment("Button", None, 0)))


@pytest.mark.parametrize("ident", ["saveButton", "save button", 'odd "one"/x', "1st", "a\\b", "x'y"])
def test_format_ident_round_trips_through_the_parser(ident: str) -> None:
    assert only_step("Button#" + format_ident(ident)).ident == ident


def test_surrounding_whitespace_is_ignored() -> None:
    assert only_step("   Button#ok  ") == Compound(type_name="Button", ident="ok")


# -- malformed ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "position"),
    [
        ('text="Save', None),  # unterminated string
        ("#'abc", None),  # unterminated quoted ident
        ("text=/(/", None),  # bad regex
        ('[Name~="("]', None),  # bad regex in an attribute
        ("Button[", 7),
        ("Window >", None),  # '>' at the end
        ("Button:foo", 6),  # unknown pseudo-class
        ("Button:nth(x)", None),
        ("Button:nth(1", None),
        ("Button[Width=]", None),
        ("Button[Width 5]", None),
        ("Button#", 7),
        ('Button#"', None),
        ("text=", 5),
        ("Button[Width=", 13),
        ("Button#a#b", None),
        ("Button)", 6),
        ("Window/", None),  # a path segment is missing
        ("Window/Grid[x]", None),
        ("Window/Grid[-1]", None),
        ("Window/Grid[0", None),
    ],
)
def test_malformed_locator_is_invalid_argument_with_position(text: str, position: int | None) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        parse_locator(text)
    err = info.value
    assert err.code == "INVALID_ARGUMENT"
    assert err.suggestion
    pos = err.detail.get("position")
    assert isinstance(pos, int) and 0 <= pos <= len(text), err.detail
    if position is not None:
        assert pos == position


@pytest.mark.parametrize("text", ["", "   "])
def test_empty_locator_is_invalid_argument_with_position(text: str) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        parse_locator(text)
    assert info.value.code == "INVALID_ARGUMENT"
    assert info.value.detail.get("position") == 0, info.value.to_dict()


def test_too_long_locator_is_invalid_argument_with_position() -> None:
    text = "B" * (MAX_LOCATOR_LENGTH + 1)
    with pytest.raises(InvalidArgumentError) as info:
        parse_locator(text)
    assert info.value.code == "INVALID_ARGUMENT"
    assert str(MAX_LOCATOR_LENGTH) in info.value.message
    assert info.value.detail.get("position") == MAX_LOCATOR_LENGTH, info.value.to_dict()


def test_locator_at_the_length_limit_parses() -> None:
    assert only_step("B" * MAX_LOCATOR_LENGTH).type_name == "B" * MAX_LOCATOR_LENGTH


@pytest.mark.parametrize("value", [None, 5, b"Button", ["Button"]])
def test_non_string_locator_is_invalid_argument(value: object) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        parse_locator(value)  # type: ignore[arg-type]
    assert info.value.code == "INVALID_ARGUMENT"
