"""Key chords as agents write them ("Ctrl+S", "Enter", "Tab Tab Enter") and their canonical names.

Toolkit-agnostic: each input back end (WinForms messages, WPF keyboard
input, xdotool, SendInput) maps the canonical names below to its own codes.
"""

from __future__ import annotations

import string
from typing import Final

from wpfprobe.core.errors import InvalidArgumentError
from wpfprobe.core.protocol import KeyChord, Modifier

MAX_CHORDS: Final = 50

_NAMED = (
    "Enter", "Tab", "Escape", "Backspace", "Delete", "Insert", "Home", "End",
    "PageUp", "PageDown", "Left", "Right", "Up", "Down", "Space",
)  # fmt: skip
KEY_NAMES: Final[tuple[str, ...]] = (
    *string.ascii_uppercase,
    *string.digits,
    *(f"F{n}" for n in range(1, 25)),
    *_NAMED,
)
_CANONICAL = {name.lower(): name for name in KEY_NAMES}
_ALIASES = {
    "return": "Enter", "esc": "Escape", "del": "Delete", "ins": "Insert", "bs": "Backspace",
    "back": "Backspace", "pgup": "PageUp", "pgdn": "PageDown", "pagedn": "PageDown",
    "arrowleft": "Left", "arrowright": "Right", "arrowup": "Up", "arrowdown": "Down",
    "spacebar": "Space",
}  # fmt: skip
_MODIFIERS: dict[str, Modifier] = {
    "ctrl": "ctrl", "control": "ctrl", "shift": "shift", "alt": "alt",
    "meta": "meta", "win": "meta", "super": "meta", "cmd": "meta",
}  # fmt: skip
_ORDER: tuple[Modifier, ...] = ("ctrl", "shift", "alt", "meta")


def _bad(message: str, detail: dict[str, object]) -> InvalidArgumentError:
    return InvalidArgumentError(
        message,
        suggestion='Write keys like "Ctrl+S", "Enter", "Shift+Tab" or "Tab Tab Enter" (chords separated by spaces).',
        detail=detail,
    )


def parse_keys(text: object) -> tuple[KeyChord, ...]:
    """Parse chords separated by spaces; each chord is modifiers and one key joined by '+'."""
    if not isinstance(text, str) or not text.strip():
        raise _bad("keys must be a non-empty string.", {})
    words = text.split()
    if len(words) > MAX_CHORDS:
        raise _bad(f"At most {MAX_CHORDS} chords may be sent at once.", {"count": len(words)})
    return tuple(_chord(word) for word in words)


def _chord(word: str) -> KeyChord:
    parts = word.split("+")
    if word.endswith("+") and len(parts) > 1:  # "Ctrl++" would be a plus key: not in the vocabulary
        raise _bad(f"{word!r} ends with '+' and names no key.", {"chord": word})
    *mods, key = parts
    held: set[Modifier] = set()
    for mod in mods:
        m = _MODIFIERS.get(mod.lower())
        if m is None:
            raise _bad(
                f"{mod!r} in {word!r} is not a modifier; use Ctrl, Shift, Alt or Meta.",
                {"chord": word, "modifiers": sorted(_MODIFIERS)},
            )
        held.add(m)
    name = _CANONICAL.get(key.lower()) or _ALIASES.get(key.lower())
    if name is None:
        if key.lower() in _MODIFIERS:
            raise _bad(f"{word!r} has only modifiers; add the key they modify.", {"chord": word})
        raise _bad(
            f"{key!r} is not a key name; letters, digits, F1-F24 and {', '.join(_NAMED)} are.",
            {"chord": word, "keys": list(KEY_NAMES)},
        )
    return KeyChord(tuple(m for m in _ORDER if m in held), name)


def format_chord(chord: KeyChord) -> str:
    return "+".join([*(m.capitalize() for m in chord.modifiers), chord.key])


__all__ = ["KEY_NAMES", "MAX_CHORDS", "format_chord", "parse_keys"]
