"""Text the explorer types: values that break handlers, drawn from the run's seeded generator.

Handlers that parse, format or store input fail on the edges: nothing at all,
whitespace, numbers at the ends of their types, very long text, characters
outside ASCII, quotes and markup, format strings, paths Windows reserves, a
line break (typed as Enter). Each kind is weighted; a config's ``texts`` are
mixed in as a kind of their own, so domain values (an order number, a date)
get typed too.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

KINDS: dict[str, tuple[float, tuple[str, ...]]] = {
    "empty": (1.0, ("",)),
    "word": (3.0, ("Ada", "test", "hello world", "x", "Lorem ipsum dolor")),
    "number": (2.5, ("0", "-1", "1", "42", "3.14", "2147483648", "-2147483649", "1e309", "NaN", "007")),
    "whitespace": (1.0, (" ", "   ", "\t", " leading", "trailing ")),
    "long": (0.5, ("A" * 256, "ab" * 150)),
    "unicode": (1.0, ("Zoë", "日本語", "مرحبا", "😀👍", "e\u0301", "\u200b")),
    "markup": (1.0, ("<b>x</b>", "'; DROP TABLE users; --", '"quoted"', "a&b", "%", "\\", "../..")),
    "format": (0.7, ("{0}", "%s%n", "{}", "${x}", "{{", "}")),
    "path": (0.5, ("C:\\con\\nul", "/dev/null", "aux", "file.txt")),
    "enter": (0.5, ("\n", "line1\nline2")),
}


class TextGenerator:
    def __init__(self, extra: Sequence[str] = ()) -> None:
        self._kinds = dict(KINDS)
        if extra:
            self._kinds["config"] = (3.0, tuple(extra))
        self._names = sorted(self._kinds)

    def next(self, rng: random.Random) -> str:
        weights = [self._kinds[n][0] for n in self._names]
        kind = rng.choices(self._names, weights=weights, k=1)[0]
        values = self._kinds[kind][1]
        return values[rng.randrange(len(values))]
