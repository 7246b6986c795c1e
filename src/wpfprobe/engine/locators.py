"""The locator language (SPEC section 4): parsing and formatting only.

The full grammar, with examples, is in docs/locators.md (executed by the
tests); ``GRAMMAR`` is its short form for ``wpfprobe help locators``. Evaluation against a live tree is the engine's job.

    selector  := compound (combinator compound)*      combinator: ">" child, space descendant
    compound  := text-sel | [Type|*] ("#" ident | "[" attr "]" | ":nth(" int ")" | ":visible")*
    text-sel  := text="exact" | text=/regex/flags | text=substring (case-insensitive)
    attr      := name [("=" | "*=" | "~=") value]     equals, contains, regex
    path      := segment ("/" segment)*               segment: [Type]["#" ident]["[" index "]"]
    locator   := ["logical:"] (path | selector) | "menu:" text ("/" text)*

``logical:`` evaluates the rest in the logical tree (WPF keeps there what the
visual tree does not show: a closed submenu's items, a collapsed tree node's
children, the items a virtualizing list has not made containers for).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal

from wpfprobe.core.errors import InvalidArgumentError
from wpfprobe.core.patterns import Pattern, PatternError, compile_pattern, escape

MAX_LOCATOR_LENGTH = 2000
#: Evaluates the locator after it in the logical tree (also the form of the paths built there).
LOGICAL_PREFIX = "logical:"

Op = Literal["exists", "equals", "contains", "regex"]


@dataclass(frozen=True, slots=True)
class AttrTest:
    name: str
    op: Op
    value: str | None = None
    pattern: Pattern | None = None
    ignore_case: bool = False


@dataclass(frozen=True, slots=True)
class Compound:
    type_name: str | None = None
    ident: str | None = None
    attrs: tuple[AttrTest, ...] = ()
    nth: int | None = None
    visible_only: bool = False


@dataclass(frozen=True, slots=True)
class Selector:
    # (combinator, compound); the first combinator is "" (search the scope).
    steps: tuple[tuple[Literal["", ">", " "], Compound], ...]
    # The tree it is evaluated in, when not the visual one: a menu path walks the
    # logical tree, where WPF keeps the items of a closed submenu.
    tree_type: Literal["visual", "logical"] = "visual"


@dataclass(frozen=True, slots=True)
class PathSegment:
    type_name: str | None
    ident: str | None
    index: int | None


@dataclass(frozen=True, slots=True)
class PathLocator:
    segments: tuple[PathSegment, ...]
    tree_type: Literal["visual", "logical"] = "visual"


Locator = Selector | PathLocator

_TYPE_CHARS = re.compile(r"[A-Za-z_][A-Za-z0-9_.`+]*")
_IDENT_CHARS = re.compile(r"[A-Za-z0-9_.\-]+")
_SAFE_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")
_ATTR_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
_INT = re.compile(r"-?\d+")
# Inside quotes, as in JSON: a locator stays on one line whatever a name holds.
_ESCAPES = {"n": "\n", "r": "\r", "t": "\t"}
_UNESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_HEX4 = re.compile(r"[0-9a-fA-F]{4}")
_BARE_TEXT = re.compile(r"[^\s>:]+")
_LONE_SEGMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_.`+]*(#[A-Za-z0-9_.\-]+)?\[\d+\]$")


def parse_locator(text: str) -> Locator:
    if not isinstance(text, str):
        raise InvalidArgumentError("A locator must be a string.", suggestion=_SUGGEST)
    if len(text) > MAX_LOCATOR_LENGTH:
        raise InvalidArgumentError(
            f"The locator is {len(text)} characters long; the limit is {MAX_LOCATOR_LENGTH}.",
            suggestion=_SUGGEST,
            detail={"position": MAX_LOCATOR_LENGTH},
        )
    src = text.strip()
    if not src:
        raise InvalidArgumentError("The locator is empty.", suggestion=_SUGGEST, detail={"position": 0})
    if src[:5].lower() == "menu:":
        return _menu_path(src[5:])
    if src[: len(LOGICAL_PREFIX)].lower() == LOGICAL_PREFIX:
        rest = src[len(LOGICAL_PREFIX) :].strip()
        if not rest:
            raise InvalidArgumentError(
                "Nothing follows 'logical:'.", suggestion=_SUGGEST, detail={"position": len(LOGICAL_PREFIX)}
            )
        return replace(_Parser(rest).parse(), tree_type="logical")
    parser = _Parser(src)
    return parser.parse()


def _menu_path(path: str) -> Selector:
    """``menu:File/Save As``: the item reached by opening each menu in turn, by the texts a user reads.

    Each segment is a whole item text, case-insensitive, with access-key
    markers ignored (``&File`` in WinForms and ``_File`` in WPF both read "File").
    """
    segments = [seg.strip() for seg in path.split("/")]
    if not segments or any(not seg for seg in segments):
        raise InvalidArgumentError(
            f"Bad menu path {path!r}: give the item texts separated by '/', e.g. menu:File/Save As.",
            suggestion='Write menu:File/Save As, or use a text selector: text="File" > text="Save As".',
        )
    steps: list[tuple[Literal["", ">", " "], Compound]] = []
    for i, seg in enumerate(segments):
        letters = "".join(f"[&_]?{escape(ch)}" for ch in seg)
        # Built from escaped text, so longer than a client's pattern may be (and linear all the same).
        pattern = compile_pattern(f"^{letters}$", "i", max_length=16 * MAX_LOCATOR_LENGTH)
        compound = Compound(attrs=(AttrTest("text", "regex", seg, pattern),))
        steps.append(("" if i == 0 else ">", compound))
    return Selector(tuple(steps), tree_type="logical")


#: The whole grammar page, online (pip users have no docs/ folder; `wpfprobe help locators` prints GRAMMAR).
DOCS_URL = "https://github.com/wpfprobe/wpfprobe/blob/main/docs/locators.md"

_SUGGEST = (
    'Locators look like Button#saveButton, text="Save", [IsEnabled=false], '
    "Form > Panel Button:nth(1), Form/Panel[0]/Button[2] or menu:File/Save As; "
    f"`wpfprobe help locators` prints the grammar ({DOCS_URL})."
)

#: The grammar in short, as `wpfprobe help locators` prints it: every form of docs/locators.md, each with an
#: example that parses (tests/unit/test_first_hour.py checks both).
GRAMMAR = f"""\
Locators: find elements again, even after the app restarts (resolved anew on every use).

  Button                 elements of that type (short or full name, any case)
  *                      any element
  #saveButton            name or automation id
  Button#saveButton      both at once
  text="Save"            text or content exactly
  text=sav               text containing it, any case
  text=/^Sa.e$/i         text matching a regular expression (flags i m s x)
  [IsEnabled=false]      a property equal to a value (booleans and numbers by value)
  [Text*="ell"]          a property containing a value, any case
  [Text~="^H.*a$"]       a property matching a regular expression
  [Tag]                  a property that is set
  Form > Button          a child step;  Form Button  a descendant step
  Button:nth(1)          the second match (0-based; :nth(-1) the last)
  Button:visible         only visible matches
  Form[0]/Panel[0]/Button[2]      path: each segment a type and its index among siblings of that type
  Panel#formPanel/Label[0]        a path from a uniquely named element
  menu:File/Save As               a menu item as a user reaches it
  logical:#foodTree > text="Carrot"   evaluated in the logical tree (WPF: what is not drawn)

Parts combine in one step without spaces: Button#saveButton[IsEnabled=true]:nth(0).
Quote values with spaces, brackets or ':': [Text="Hello, Ada"], #"odd name".
Every node a tool returns carries a locator that finds it again; wpf_generate_locator gives the one
worth keeping in a test. The whole page, with items (list, tree, grid, menu) and examples:
{DOCS_URL}
"""


class _Parser:
    def __init__(self, src: str) -> None:
        self.src = src
        self.pos = 0

    def error(self, what: str) -> InvalidArgumentError:
        return InvalidArgumentError(
            f"Bad locator {self.src!r} at position {self.pos}: {what}.",
            suggestion=_SUGGEST,
            detail={"locator": self.src, "position": self.pos},
        )

    def peek(self, n: int = 1) -> str:
        return self.src[self.pos : self.pos + n]

    def at_quote(self) -> bool:
        return self.pos < len(self.src) and self.src[self.pos] in "\"'"

    def eof(self) -> bool:
        return self.pos >= len(self.src)

    def match(self, pattern: re.Pattern[str]) -> str | None:
        m = pattern.match(self.src, self.pos)
        if not m:
            return None
        self.pos = m.end()
        return m.group(0)

    def skip_ws(self) -> bool:
        start = self.pos
        while not self.eof() and self.src[self.pos].isspace():
            self.pos += 1
        return self.pos > start

    # -- top level -----------------------------------------------------
    def parse(self) -> Locator:
        if self._has_top_level_slash() or _LONE_SEGMENT.match(self.src):
            # "Form[0]" is a one-segment path: a window among the top-level windows.
            return self.parse_path()
        return self.parse_selector()

    def _has_top_level_slash(self) -> bool:
        depth, quote, i = 0, "", 0
        s = self.src
        while i < len(s):
            c = s[i]
            if quote:
                if c == "\\":
                    i += 1
                elif c == quote:
                    quote = ""
            elif c in "\"'":
                quote = c
            elif c == "[" or c == "(":
                depth += 1
            elif c == "]" or c == ")":
                depth -= 1
            elif s.startswith("text=/", i):
                # A regex literal's slashes are not path separators.
                end = s.find("/", i + 6)
                while end != -1 and s[end - 1] == "\\":
                    end = s.find("/", end + 1)
                i = len(s) if end == -1 else end
            elif s.startswith("text=", i) and s[i + 5 : i + 6] not in ("", '"', "'"):
                # Neither is a bare text value's: it runs to the next space or '>'.
                m = _BARE_TEXT.match(s, i + 5)
                i = (m.end() if m else i + 5) - 1
            elif c == "/" and depth == 0:
                return True
            i += 1
        return False

    # -- path form -----------------------------------------------------
    def parse_path(self) -> PathLocator:
        segments = []
        while True:
            self.skip_ws()
            segments.append(self.parse_segment())
            self.skip_ws()
            if self.eof():
                break
            if self.peek() != "/":
                raise self.error("expected '/' between path segments")
            self.pos += 1
        return PathLocator(tuple(segments))

    def parse_segment(self) -> PathSegment:
        type_name = self.match(_TYPE_CHARS)
        ident = None
        if self.peek() == "#":
            self.pos += 1
            ident = self.parse_ident()
        index = None
        if self.peek() == "[":
            self.pos += 1
            raw = self.match(_INT)
            if raw is None or self.peek() != "]":
                raise self.error("a path index is a non-negative integer in brackets, like Button[2]")
            self.pos += 1
            index = int(raw)
            if index < 0:
                raise self.error("a path index cannot be negative")
        if type_name is None and ident is None:
            raise self.error("a path segment needs a type or a #name")
        return PathSegment(type_name, ident, index)

    # -- selector form -------------------------------------------------
    def parse_selector(self) -> Selector:
        steps: list[tuple[Literal["", ">", " "], Compound]] = []
        combinator: Literal["", ">", " "] = ""
        while True:
            steps.append((combinator, self.parse_compound()))
            had_ws = self.skip_ws()
            if self.eof():
                break
            if self.peek() == ">":
                self.pos += 1
                self.skip_ws()
                combinator = ">"
            elif had_ws:
                combinator = " "
            else:
                raise self.error(f"unexpected {self.peek()!r}")
            if self.eof():
                raise self.error("a combinator must be followed by a step")
        return Selector(tuple(steps))

    def parse_compound(self) -> Compound:
        if self.src.startswith("text=", self.pos):
            self.pos += 5
            test = self.parse_text_value()
            text_nth, text_visible = self.parse_pseudos()
            return Compound(attrs=(test,), nth=text_nth, visible_only=text_visible)
        type_name: str | None = None
        if self.peek() == "*":
            self.pos += 1
            type_name = None
            seen = True
        else:
            type_name = self.match(_TYPE_CHARS)
            seen = type_name is not None
        ident = None
        attrs: list[AttrTest] = []
        nth: int | None = None
        visible = False
        while not self.eof():
            c = self.peek()
            if c == "#":
                self.pos += 1
                if ident is not None:
                    raise self.error("a step can have only one #name")
                ident = self.parse_ident()
            elif c == "[":
                self.pos += 1
                attrs.append(self.parse_attr())
            elif c == ":":
                n, v = self.parse_pseudos()
                nth = n if n is not None else nth
                visible = visible or v
            else:
                break
            seen = True
        if not seen:
            raise self.error("expected a type, #name, [attribute] or text=")
        return Compound(type_name, ident, tuple(attrs), nth, visible)

    def parse_pseudos(self) -> tuple[int | None, bool]:
        nth: int | None = None
        visible = False
        while self.peek() == ":":
            if self.src.startswith(":nth(", self.pos):
                self.pos += 5
                raw = self.match(_INT)
                if raw is None or self.peek() != ")":
                    raise self.error(":nth takes an integer, like :nth(0) or :nth(-1)")
                self.pos += 1
                nth = int(raw)
            elif self.src.startswith(":visible", self.pos):
                self.pos += 8
                visible = True
            else:
                raise self.error("unknown pseudo-class (known: :nth(i), :visible)")
        return nth, visible

    def parse_ident(self) -> str:
        if self.at_quote():
            return self.parse_quoted()
        ident = self.match(_IDENT_CHARS)
        if ident is None:
            raise self.error("expected a name after '#'")
        return ident

    def parse_quoted(self) -> str:
        quote = self.peek()
        self.pos += 1
        out: list[str] = []
        while not self.eof():
            c = self.src[self.pos]
            if c == "\\" and self.pos + 1 < len(self.src):
                escaped = self.src[self.pos + 1]
                if escaped == "u" and _HEX4.fullmatch(self.src, self.pos + 2, self.pos + 6):
                    out.append(chr(int(self.src[self.pos + 2 : self.pos + 6], 16)))
                    self.pos += 6
                    continue
                out.append(_ESCAPES.get(escaped, escaped))
                self.pos += 2
                continue
            if c == quote:
                self.pos += 1
                return "".join(out)
            out.append(c)
            self.pos += 1
        raise self.error("unterminated string")

    def parse_regex(self) -> Pattern:
        self.pos += 1  # opening slash
        out: list[str] = []
        while not self.eof():
            c = self.src[self.pos]
            if c == "\\" and self.pos + 1 < len(self.src) and self.src[self.pos + 1] == "/":
                out.append("/")
                self.pos += 2
                continue
            if c == "/":
                self.pos += 1
                flags = self.match(re.compile(r"[imsx]*")) or ""
                return self.compile_regex("".join(out), flags)
            out.append(c)
            self.pos += 1
        raise self.error("unterminated /regex/")

    def compile_regex(self, pattern: str, flags: str = "") -> Pattern:
        try:
            return compile_pattern(pattern, flags)
        except PatternError as exc:
            raise self.error(f"invalid regular expression ({exc.reason})") from None

    def parse_text_value(self) -> AttrTest:
        c = self.peek()
        if self.at_quote():
            return AttrTest("text", "equals", self.parse_quoted())
        if c == "/":
            pattern = self.parse_regex()
            return AttrTest("text", "regex", pattern.pattern, pattern)
        raw = self.match(_BARE_TEXT)
        if raw is None:
            raise self.error("text= needs a value")
        return AttrTest("text", "contains", raw, ignore_case=True)

    def parse_attr(self) -> AttrTest:
        self.skip_ws()
        name = self.match(_ATTR_NAME)
        if name is None:
            raise self.error("expected a property name in [...]")
        self.skip_ws()
        op: Op
        if self.peek() == "]":
            self.pos += 1
            return AttrTest(name, "exists")
        if self.peek(2) == "*=":
            op, self.pos = "contains", self.pos + 2
        elif self.peek(2) == "~=":
            op, self.pos = "regex", self.pos + 2
        elif self.peek() == "=":
            op, self.pos = "equals", self.pos + 1
        else:
            raise self.error("expected =, *= or ~= in [...]")
        self.skip_ws()
        if self.at_quote():
            value = self.parse_quoted()
        else:
            raw = self.match(re.compile(r"[^\]\s]+"))
            if raw is None:
                raise self.error("expected a value in [...]")
            value = raw
        self.skip_ws()
        if self.peek() != "]":
            raise self.error("expected ']'")
        self.pos += 1
        if op == "regex":
            pattern = self.compile_regex(value)
            return AttrTest(name, op, value, pattern)
        return AttrTest(name, op, value, ignore_case=op == "contains")


# -- formatting ------------------------------------------------------------


def format_ident(ident: str) -> str:
    """``ident`` as it may follow '#' in a locator, quoted (on one line) when it must be."""
    if _SAFE_IDENT.match(ident):
        return ident
    return '"' + "".join(_escape(c) for c in ident) + '"'


def _escape(c: str) -> str:
    if c in _UNESCAPES:
        return _UNESCAPES[c]
    # Any other line break or control character would split a one-line rendering.
    return c if c.isprintable() else f"\\u{ord(c):04x}"


def format_segment(type_name: str, *, ident: str | None = None, index: int | None = None) -> str:
    out = type_name
    if ident is not None:
        out += "#" + format_ident(ident)
    if index is not None:
        out += f"[{index}]"
    return out
