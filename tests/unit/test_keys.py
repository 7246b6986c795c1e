"""Key chords (``_keys.parse_keys``/``format_chord``) and the ``menu:`` locator form."""

from __future__ import annotations

from typing import Any

import pytest

from wpfprobe.core.errors import InvalidArgumentError
from wpfprobe.core.keys import KEY_NAMES, MAX_CHORDS, format_chord, parse_keys
from wpfprobe.core.protocol import KeyChord
from wpfprobe.engine.locators import AttrTest, Selector, parse_locator
from wpfprobe.engine.matching import value_matches

# -- parse_keys: canonical names ---------------------------------------------------


def test_single_keys_are_canonicalised() -> None:
    assert parse_keys("enter") == (KeyChord((), "Enter"),)
    assert parse_keys("a") == (KeyChord((), "A"),)
    assert parse_keys("f5") == (KeyChord((), "F5"),)
    assert parse_keys("PAGEDOWN") == (KeyChord((), "PageDown"),)
    assert parse_keys("7") == (KeyChord((), "7"),)


def test_chords_are_separated_by_whitespace() -> None:
    assert parse_keys("Tab Tab  Enter") == (KeyChord((), "Tab"), KeyChord((), "Tab"), KeyChord((), "Enter"))
    assert parse_keys("  ctrl+s\tEsc\n") == (KeyChord(("ctrl",), "S"), KeyChord((), "Escape"))


@pytest.mark.parametrize(
    ("alias", "name"),
    [
        ("Return", "Enter"),
        ("return", "Enter"),
        ("Esc", "Escape"),
        ("Del", "Delete"),
        ("Ins", "Insert"),
        ("BS", "Backspace"),
        ("Back", "Backspace"),
        ("PgUp", "PageUp"),
        ("PgDn", "PageDown"),
        ("ArrowLeft", "Left"),
        ("ArrowDown", "Down"),
        ("Spacebar", "Space"),
    ],
)
def test_key_aliases(alias: str, name: str) -> None:
    assert parse_keys(alias) == (KeyChord((), name),)


@pytest.mark.parametrize(
    ("text", "modifiers"),
    [
        ("Control+S", ("ctrl",)),
        ("CTRL+S", ("ctrl",)),
        ("Win+S", ("meta",)),
        ("Super+S", ("meta",)),
        ("Cmd+S", ("meta",)),
        ("Meta+S", ("meta",)),
        ("Shift+S", ("shift",)),
        ("alt+S", ("alt",)),
    ],
)
def test_modifier_aliases(text: str, modifiers: tuple[str, ...]) -> None:
    assert parse_keys(text) == (KeyChord(modifiers, "S"),)  # type: ignore[arg-type]


def test_modifiers_come_out_in_canonical_order_without_duplicates() -> None:
    expected = KeyChord(("ctrl", "shift", "alt", "meta"), "Delete")
    assert parse_keys("Win+Alt+Shift+Ctrl+Del") == (expected,)
    assert parse_keys("Shift+Ctrl+Shift+Control+A") == (KeyChord(("ctrl", "shift"), "A"),)


def test_max_chords_is_allowed() -> None:
    assert len(parse_keys(" ".join(["Tab"] * MAX_CHORDS))) == MAX_CHORDS


# -- parse_keys: errors --------------------------------------------------------------


def _error(text: Any) -> InvalidArgumentError:
    with pytest.raises(InvalidArgumentError) as info:
        parse_keys(text)
    assert info.value.code == "INVALID_ARGUMENT"
    assert info.value.suggestion
    return info.value


@pytest.mark.parametrize("text", ["", "   ", "\t\n", None, 5, b"Enter"])
def test_empty_or_not_a_string(text: Any) -> None:
    _error(text)


def test_unknown_modifier_names_the_modifiers() -> None:
    err = _error("Hyper+S")
    assert "'Hyper'" in err.message
    assert err.detail["chord"] == "Hyper+S"
    assert "ctrl" in err.detail["modifiers"]


def test_modifier_only_chord() -> None:
    err = _error("Ctrl+Shift")
    assert "only modifiers" in err.message
    err = _error("Ctrl")
    assert "only modifiers" in err.message


@pytest.mark.parametrize("text", ["Ctrl++", "A+", "+"])
def test_trailing_plus_names_no_key(text: str) -> None:
    err = _error(text)
    assert err.detail["chord"] == text


@pytest.mark.parametrize("text", ["Foo", "Ctrl+Plus", "F25", "F0", "ab", "Ctrl+é"])
def test_unknown_key(text: str) -> None:
    err = _error(text)
    assert err.detail["chord"] == text
    assert err.detail["keys"] == list(KEY_NAMES)


def test_leading_plus_is_an_unknown_modifier() -> None:
    err = _error("+A")
    assert err.detail["chord"] == "+A"


def test_more_than_max_chords() -> None:
    err = _error(" ".join(["Tab"] * (MAX_CHORDS + 1)))
    assert err.detail == {"count": MAX_CHORDS + 1}


def test_one_bad_chord_fails_the_whole_sequence() -> None:
    err = _error("Tab Tab Nope Enter")
    assert err.detail["chord"] == "Nope"


# -- format_chord ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "formatted"),
    [
        ("ctrl+s", "Ctrl+S"),
        ("Win+Alt+Shift+Control+Return", "Ctrl+Shift+Alt+Meta+Enter"),
        ("pgdn", "PageDown"),
        ("Shift+Tab", "Shift+Tab"),
        ("f12", "F12"),
    ],
)
def test_format_chord(text: str, formatted: str) -> None:
    (chord,) = parse_keys(text)
    assert format_chord(chord) == formatted


@pytest.mark.parametrize("key", KEY_NAMES)
def test_format_chord_round_trips_every_key(key: str) -> None:
    for mods in ((), ("ctrl",), ("shift", "alt"), ("ctrl", "shift", "alt", "meta")):
        chord = KeyChord(mods, key)  # type: ignore[arg-type]
        assert parse_keys(format_chord(chord)) == (chord,)


# -- menu: locators --------------------------------------------------------------------------


def _menu_tests(loc: Selector) -> list[AttrTest]:
    tests = []
    for _, compound in loc.steps:
        (test,) = compound.attrs
        assert compound.type_name is None and compound.ident is None and compound.nth is None
        tests.append(test)
    return tests


def test_menu_path_is_a_logical_tree_selector_of_child_steps() -> None:
    loc = parse_locator("menu:File/Save As")
    assert isinstance(loc, Selector)
    assert loc.tree_type == "logical"
    assert [combinator for combinator, _ in loc.steps] == ["", ">"]
    first, second = _menu_tests(loc)
    assert (first.name, first.op, first.value) == ("text", "regex", "File")
    assert (second.name, second.op, second.value) == ("text", "regex", "Save As")


def test_menu_prefix_is_case_insensitive_and_segments_are_trimmed() -> None:
    loc = parse_locator("  MENU: File / Save As ")
    assert isinstance(loc, Selector)
    assert [t.value for t in _menu_tests(loc)] == ["File", "Save As"]


@pytest.mark.parametrize(
    ("segment", "text", "matches"),
    [
        ("File", "File", True),
        ("File", "file", True),
        ("File", "FILE", True),
        ("File", "_File", True),  # WPF access key
        ("File", "&File", True),  # WinForms access key
        ("Save As", "Save _As", True),
        ("Save As", "Save &As", True),
        ("Save As", "save &as", True),
        ("File", "File...", False),  # a whole item text, not a prefix
        ("File", "Profile", False),
        ("File", "My File", False),
        ("Save As", "SaveAs", False),
        ("File", None, False),
        ("Save (copy)", "Save (copy)", True),  # regex characters are literal
        ("Save (copy)", "Save copy", False),
        ("a.b", "axb", False),
    ],
)
def test_menu_segment_matching_ignores_case_and_access_markers(segment: str, text: str | None, matches: bool) -> None:
    loc = parse_locator(f"menu:{segment}")
    assert isinstance(loc, Selector)
    (test,) = _menu_tests(loc)
    assert value_matches(text, test) is matches


@pytest.mark.parametrize("text", ["menu:", "menu:   ", "menu:File//x", "menu:/File", "menu:File/", "menu:File/ /x"])
def test_bad_menu_paths(text: str) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        parse_locator(text)
    assert info.value.code == "INVALID_ARGUMENT"
    assert "menu:File/Save As" in info.value.message
    assert info.value.suggestion
