"""Regular expressions from a client or a file: compiled here, and only here, matched in linear time.

Every pattern wpfprobe takes from outside (a locator's ``text=/.../`` and
``[P~=...]``, a find's Regex condition, ``wpf_wait_for`` textMatches, the test
kit's ``regex`` assertion, an explore config's patterns, ``title:`` targets) is
compiled by :func:`compile_pattern` and matched with :meth:`Pattern.search`.

Why RE2 (google-re2 on PyPI) and not Python's ``re``: patterns are matched on
the app's UI thread, inside a hop, and ``re`` backtracks: ``^(a+)+$`` against 28
``a``s and a ``!`` held the UI thread (and, through the GIL, the MCP server)
for 9 s, 40 characters for ever. RE2 has no backtracking: its cost is linear in
the text, and its binding lets go of the GIL while it matches (measured:
benchmarks/bench_patterns.py). A linear matcher still has a constant, and the
worst measured one, a pattern whose automaton keeps outgrowing RE2's memory so
it falls back to simulating it, is about 10 µs per byte. So three bounds:
the pattern's length (:data:`MAX_PATTERN_LENGTH`), the characters of one value
that are searched (:data:`MAX_MATCHED_CHARS`), and the thread time one compiled
pattern may spend matching (:data:`MATCH_BUDGET_SECONDS`): past it the search
fails with INVALID_ARGUMENT instead of holding the UI thread longer. The
choices weighed are in docs/architecture.md ("Patterns from outside").

RE2's syntax is Python's without what needs backtracking: no backreferences
(``\\1``, ``(?P=name)``), no lookaround (``(?=``, ``(?!``, ``(?<=``, ``(?<!``), no
atomic groups or possessive quantifiers, no conditionals; ``\\z`` ends the text
(Python's ``\\Z``); ``\\d``, ``\\w``, ``\\s`` and ``\\b`` are ASCII (``\\pL``, ``\\pN`` are
the Unicode classes); a repetition count is at most 1000. docs/locators.md
lists it for users. Each refusal is an INVALID_ARGUMENT that says which
construct and what to write instead; nothing is printed (RE2 logs its parse
errors to stderr unless told not to).
"""

from __future__ import annotations

import time
from typing import Any, Final

import re2

from wpfprobe.core.errors import InvalidArgumentError

MAX_PATTERN_LENGTH: Final = 2000
"""Characters in one pattern (a locator, which may be mostly a pattern, is at most 2000 too)."""
MAX_MATCHED_CHARS: Final = 65_536
"""Characters of one value a search looks at: the first ones; a longer value is cut there."""
MATCH_BUDGET_SECONDS: Final = 1.0
"""Thread CPU time one compiled pattern may spend in its searches, summed (a find, a wait's polls)."""
MAX_REPEAT: Final = 1000
"""RE2's own limit on a counted repetition, {n} or {m,n}."""
FLAGS: Final = "imsx"
"""i: ignore case; m: ^ and $ at line ends; s: . also matches a line break; x: spaces and # comments ignored."""

_SUGGESTION = (
    "Patterns are RE2 regular expressions (docs/locators.md, 'Regular expressions'): "
    "no backreferences or lookaround; use a plain substring (text=..., [P*=...], Contains) where it will do."
)

# RE2's own messages, as a user who wrote Python's re would need them said.
_EXPLAINED: Final = (
    ("invalid perl operator: (?=", "lookahead (?=...) is not supported"),
    ("invalid perl operator: (?!", "negative lookahead (?!...) is not supported"),
    ("invalid perl operator: (?<=", "lookbehind (?<=...) is not supported"),
    ("invalid perl operator: (?<!", "negative lookbehind (?<!...) is not supported"),
    ("invalid perl operator: (?>", "atomic groups (?>...) are not supported"),
    ("invalid perl operator: (?(", "conditionals (?(...)...) are not supported"),
    ("invalid perl operator: (?#", "inline comments (?#...) are not supported; use the x flag and #"),
    ("invalid escape sequence: \\Z", "\\Z is written \\z (end of text)"),
    ("invalid repetition size", "a repetition count is at most 1000"),
    (
        "bad repetition operator",
        "a quantifier cannot follow another (possessive quantifiers such as *+ are not supported)",
    ),
    ("pattern too large", "the pattern is too large to compile within RE2's memory limit; make it smaller"),
)


class PatternError(InvalidArgumentError):
    """A pattern that cannot be used: ``reason`` says why in a few words (callers may frame it)."""

    def __init__(self, reason: str, *, pattern: str, detail: dict[str, Any] | None = None) -> None:
        super().__init__(
            f"Invalid regular expression {_shown(pattern)}: {reason}.",
            suggestion=_SUGGESTION,
            detail={"pattern": _shown(pattern, 200), **(detail or {})},
        )
        self.reason = reason


class PatternTooCostlyError(InvalidArgumentError):
    """A pattern whose searches used up :data:`MATCH_BUDGET_SECONDS`."""


class Pattern:
    """A compiled client pattern; :meth:`search` is the only way to match it.

    Equal when the source and flags are (so parsed locators compare as before);
    the time spent is not part of the value.
    """

    __slots__ = ("_regexp", "_searches", "_spent", "flags", "pattern")

    def __init__(self, pattern: str, flags: str, regexp: Any) -> None:
        self.pattern = pattern
        self.flags = flags
        self._regexp = regexp
        self._spent = 0.0
        self._searches = 0

    def search(self, text: str) -> bool:
        """Whether the pattern matches anywhere in ``text`` (its first :data:`MAX_MATCHED_CHARS` characters)."""
        data = text[:MAX_MATCHED_CHARS].encode("utf-8", "surrogatepass")
        # Thread time, not wall time: RE2 lets go of the GIL while it matches, and the wait to get
        # it back (another thread's turn) is not this pattern's cost.
        started = time.thread_time()
        found = self._regexp.search(data) is not None
        self._spent += time.thread_time() - started
        self._searches += 1
        if self._spent > MATCH_BUDGET_SECONDS:
            raise PatternTooCostlyError(
                f"The regular expression {_shown(self.pattern)} spent over {MATCH_BUDGET_SECONDS:g} s matching "
                f"({self._searches} values searched); the search was stopped.",
                suggestion="Make the pattern simpler (fewer nested or counted repetitions), search a smaller "
                "subtree (rootNodeId, a locator step before it), or match a substring instead.",
                detail={"pattern": _shown(self.pattern, 200), "searched": self._searches},
            )
        return found

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Pattern):
            return NotImplemented
        return (self.pattern, self.flags) == (other.pattern, other.flags)

    def __hash__(self) -> int:
        return hash((self.pattern, self.flags))

    def __repr__(self) -> str:
        return f"Pattern({self.pattern!r}, flags={self.flags!r})"


def compile_pattern(pattern: str, flags: str = "", *, max_length: int = MAX_PATTERN_LENGTH) -> Pattern:
    """``pattern`` compiled by RE2 with ``flags`` (letters of :data:`FLAGS`); :class:`PatternError` if it cannot be.

    ``max_length`` is for patterns wpfprobe builds itself from escaped text (``menu:`` paths).
    """
    if not isinstance(pattern, str):
        raise PatternError("a pattern is a string", pattern=repr(pattern)[:200])
    if len(pattern) > max_length:
        raise PatternError(
            f"it is {len(pattern)} characters long; the limit is {max_length}",
            pattern=pattern,
            detail={"length": len(pattern), "limit": max_length},
        )
    unknown = sorted(set(flags) - set(FLAGS))
    if unknown:
        raise PatternError(f"unknown flag {''.join(unknown)!r} (known: {FLAGS})", pattern=pattern)
    source = _strip_verbose(pattern) if "x" in flags else pattern
    if _count_over_limit(source):
        # RE2 refuses {1001} but reads a count too big for an int, {99999999999}, as literal text.
        raise PatternError(f"a repetition count is at most {MAX_REPEAT}", pattern=pattern)
    inline = "".join(f for f in "ims" if f in flags)
    if inline:
        source = f"(?{inline}){source}"
    options = re2.Options()
    options.log_errors = False  # RE2 would print every parse error on the app's stderr
    # Only whether it matches is asked: with groups RE2 must track where each one matched, a
    # cost that grows with their number (990 nested groups: seconds a search); without, a DFA.
    options.never_capture = True
    try:
        # Bytes in, bytes matched: a .NET string may hold a lone surrogate, which str.encode refuses.
        regexp = _new_regexp(source.encode("utf-8", "surrogatepass"), options)
    except re2.error as exc:
        raise PatternError(_reason(exc, source), pattern=pattern) from None
    except Exception as exc:  # noqa: BLE001 - whatever else the binding raises is still the caller's bad pattern
        raise PatternError(f"RE2 refused it ({type(exc).__name__})", pattern=pattern) from None
    return Pattern(pattern, "".join(f for f in FLAGS if f in flags), regexp)


def _new_regexp(source: bytes, options: Any) -> Any:
    # re2.compile keeps the last 128 patterns, and each may grow to max_mem (8 MiB) of automaton
    # while it matches: 1 GiB a client could fill with 128 costly patterns. A pattern here lives
    # as long as its request, so it is made uncached where the binding allows it.
    uncached = getattr(re2, "_Regexp", None)
    if uncached is None:
        return re2.compile(source, options)
    return uncached(source, options)


def escape(text: str) -> str:
    """``text`` as a pattern that matches exactly it (RE2's QuoteMeta, which takes no lone surrogate)."""
    return "".join(
        "\\x00" if c == "\x00" else "\\" + c if c < "\x80" and not (c.isalnum() or c == "_") else c for c in text
    )


def _reason(exc: BaseException, source: str) -> str:
    raw = exc.args[0] if exc.args else ""
    message = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    if message.startswith("invalid perl operator: (?P") and "(?P=" in source:
        return "named backreferences (?P=name) are not supported"
    if message.startswith("invalid perl operator: (?") and message[-1:].isalpha():
        return f"{message[-3:]}...) is not supported (inline flags: i, m, s and U only)"
    for start, explained in _EXPLAINED:
        if message.startswith(start):
            return explained
    if message.startswith("invalid escape sequence: \\") and message[-1:].isdigit():
        return f"backreferences ({message.rsplit(': ', 1)[-1]}) are not supported"
    if len(message) > 120:  # RE2 quotes the offending part, which may be the whole pattern
        message = message[:120] + "…"
    return message or "RE2 refused it"


def _count_over_limit(pattern: str) -> bool:
    """Whether a counted repetition outside a character class and not escaped asks for more than MAX_REPEAT."""
    i, n, in_class = 0, len(pattern), False
    while i < n:
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            i += 2 if pattern[i + 1 : i + 2] == "]" else 1
            continue
        elif c == "{":
            j = i + 1
            while j < n and (pattern[j].isdigit() or pattern[j] == ","):
                j += 1
            if j < n and pattern[j] == "}" and j > i + 1:
                parts = [p for p in pattern[i + 1 : j].split(",") if p.isdigit() and p.isascii()]
                if any(len(p) > 4 or int(p) > MAX_REPEAT for p in parts):
                    return True
        i += 1
    return False


def _strip_verbose(pattern: str) -> str:
    """The x flag, which RE2 lacks, done as Python does it: whitespace and ``#`` comments outside
    a character class and not escaped are dropped."""
    out: list[str] = []
    i, n, in_class = 0, len(pattern), False
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
            out.append(c)
        elif c == "[":
            in_class = True
            out.append(c)
            # A ']' first in a class (after an optional '^') is a member, not its end.
            for lead in ("^", "]"):
                if i + 1 < n and pattern[i + 1] == lead:
                    out.append(lead)
                    i += 1
        elif c == "#":
            while i < n and pattern[i] != "\n":
                i += 1
            continue
        elif not c.isspace():
            out.append(c)
        i += 1
    return "".join(out)


def _shown(pattern: str, limit: int = 80) -> str:
    return repr(pattern if len(pattern) <= limit else pattern[:limit] + "…")
