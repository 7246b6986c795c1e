"""Tree snapshots: ``assert: tree_matches``, an element's subtree against a YAML template.

A template is a node: ``type``, ``name``, ``automationId``, ``text`` and the
states ``visible``, ``enabled``, ``focused``, ``checked``, ``selected``,
``expanded``, with ``children`` a list of nodes. Only what the template says is
compared: a key left out is not checked, and by default the template's
children need only appear among the element's children, in order, with others
between them (partial). ``strict: true`` makes every ``children`` list exact:
the same number, in the same order. A string written ``/regex/flags`` is
searched for (``text: /^Saved \\d+$/``); ``type`` also matches the full type
name, case-insensitively.

The template is inline (``template:``) or a file next to the scenario
(``snapshot: snapshots/form.yaml``). A missing file fails and is written from
the live app, like a screenshot baseline; ``--update-snapshots`` rewrites the
files instead of comparing. A failure shows what differs as a unified diff
between the template and the element as the template sees it (its keys only;
a regex that matched reads as written), so only what is wrong stands out.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from wpfprobe.core.patterns import Pattern, PatternError, compile_pattern
from wpfprobe.core.redaction import REDACTED

STRING_KEYS = ("type", "name", "automationId", "text")
FLAG_KEYS = ("visible", "enabled", "focused", "checked", "selected", "expanded")
KEYS = frozenset([*STRING_KEYS, *FLAG_KEYS, "children"])
#: Levels under the element a snapshot is written to, by default.
SNAPSHOT_DEPTH = 3
MAX_DEPTH = 10
MAX_PATTERN = 1000
_REGEX = re.compile(r"^/(.*)/([imsx]*)$", re.S)


class TemplateError(ValueError):
    pass


def compile_value_pattern(text: str) -> Pattern | None:
    """The regex a template value ``/.../flags`` stands for; None for a plain string.

    Compiled as every pattern from outside is (RE2, bounded: ``core/patterns.py``): a
    template comes from a file, and a shared one is as untrusted as a client's locator.
    """
    found = _REGEX.match(text)
    if found is None:
        return None
    body, flags = found.groups()
    try:
        return compile_pattern(body, flags, max_length=MAX_PATTERN)
    except PatternError as exc:
        raise TemplateError(f"{text!r} is not a valid regular expression: {exc.reason}") from None


def validate(template: Any, where: str = "template", depth: int = 0) -> None:
    """Raise TemplateError naming the first problem: an unknown key, a wrong type, a bad pattern, too deep."""
    if not isinstance(template, Mapping):
        raise TemplateError(f"{where} must be a mapping of type, name, text, states and children")
    if depth > MAX_DEPTH:
        raise TemplateError(f"{where}: a template is at most {MAX_DEPTH} levels deep")
    for key, value in template.items():
        if key not in KEYS:
            raise TemplateError(f"{where}: unknown key {key!r}; expected {', '.join(sorted(KEYS))}")
        if key in STRING_KEYS:
            if not isinstance(value, str):
                raise TemplateError(f"{where}.{key} must be a string (or /regex/)")
            compile_value_pattern(value)
        elif key in FLAG_KEYS:
            if not isinstance(value, bool):
                raise TemplateError(f"{where}.{key} must be true or false")
        else:
            if not isinstance(value, list):
                raise TemplateError(f"{where}.children must be a list of nodes")
            for i, child in enumerate(value):
                validate(child, f"{where}.children.{i}", depth + 1)


def depth_of(template: Mapping[str, Any]) -> int:
    kids = template.get("children") or []
    return 1 + max((depth_of(k) for k in kids), default=-1) if kids else 0


# -- matching ---------------------------------------------------------------------------------------


def _value_matches(key: str, want: Any, node: Mapping[str, Any]) -> bool:
    if key in FLAG_KEYS:
        return node.get(key) is want
    have = node.get(key)
    candidates = [have] if key != "type" else [node.get("type"), node.get("typeName")]
    pattern = compile_value_pattern(want)
    for candidate in candidates:
        if not isinstance(candidate, str):
            continue
        if pattern is not None and pattern.search(candidate):
            return True
        if pattern is None and (candidate.lower() == want.lower() if key == "type" else candidate == want):
            return True
    return False


def matches(template: Mapping[str, Any], node: Mapping[str, Any], *, strict: bool) -> bool:
    for key, want in template.items():
        if key != "children" and not _value_matches(key, want, node):
            return False
    if "children" not in template:
        return True
    return _pair(template["children"], list(node.get("children") or []), strict=strict) is not None


def _pair(wanted: Sequence[Mapping[str, Any]], kids: Sequence[Mapping[str, Any]], *, strict: bool) -> list[int] | None:
    """The index of the child each template child matched (in order), or None."""
    if strict:
        if len(wanted) != len(kids):
            return None
        ok = all(matches(w, k, strict=True) for w, k in zip(wanted, kids, strict=True))
        return list(range(len(kids))) if ok else None
    # An ordered subsequence: the earliest match for each template child is as good as any.
    out: list[int] = []
    at = 0
    for want in wanted:
        while at < len(kids) and not matches(want, kids[at], strict=False):
            at += 1
        if at == len(kids):
            return None
        out.append(at)
        at += 1
    return out


# -- the diff a failure shows -----------------------------------------------------------------------


def _seen_as(template: Mapping[str, Any], node: Mapping[str, Any], *, strict: bool) -> dict[str, Any]:
    """``node`` as the template sees it: the template's keys only; a value that matched reads as written."""
    out: dict[str, Any] = {}
    for key, want in template.items():
        if key == "children":
            continue
        out[key] = want if _value_matches(key, want, node) else _shown(key, node)
    if "children" in template:
        out["children"] = _children_seen_as(template["children"], list(node.get("children") or []), strict=strict)
    return out


def _shown(key: str, node: Mapping[str, Any]) -> Any:
    value = node.get(key)
    return "(none)" if value is None else value


def _children_seen_as(
    wanted: Sequence[Mapping[str, Any]], kids: Sequence[Mapping[str, Any]], *, strict: bool
) -> list[dict[str, Any]]:
    if strict:
        out = [_seen_as(w, k, strict=True) for w, k in zip(wanted, kids, strict=False)]
        out.extend(_plain(k) for k in kids[len(wanted) :])
        return out
    out = []
    at = 0
    for want in wanted:
        found = next((i for i in range(at, len(kids)) if matches(want, kids[i], strict=False)), None)
        if found is None:
            # The closest child that is left (most keys agreeing), so the diff shows what differs in it.
            pool = range(at, len(kids))
            best = max(pool, key=lambda i: _agreement(want, kids[i]), default=None)
            if best is None or _agreement(want, kids[best]) == 0:
                continue  # nothing like it: the template's node shows as missing
            found = best
        out.append(_seen_as(want, kids[found], strict=False))
        at = found + 1
    return out


def _agreement(template: Mapping[str, Any], node: Mapping[str, Any]) -> int:
    return sum(1 for k, v in template.items() if k != "children" and _value_matches(k, v, node))


def _plain(node: Mapping[str, Any]) -> dict[str, Any]:
    return {k: node[k] for k in ("type", "name", "text") if node.get(k) is not None}


def _dump(data: Any) -> list[str]:
    text: str = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, default_flow_style=False, width=1000)
    return text.splitlines()


def difference(template: Mapping[str, Any], node: Mapping[str, Any], *, strict: bool) -> str:
    """A unified diff: the template (expected) against the element as the template sees it (actual)."""
    lines = difflib.unified_diff(
        _dump(dict(template)), _dump(_seen_as(template, node, strict=strict)), "template", "actual", lineterm="", n=2
    )
    return "\n".join(lines)


# -- snapshots from the live app --------------------------------------------------------------------


def snapshot_of(node: Mapping[str, Any], depth: int) -> dict[str, Any]:
    """A template that describes ``node`` as it is: what identifies it and the states that are not the default."""
    out: dict[str, Any] = {"type": node.get("type")}
    if node.get("name"):
        out["name"] = node["name"]
    if node.get("automationId") and node.get("automationId") != node.get("name"):
        out["automationId"] = node["automationId"]
    if isinstance(node.get("text"), str) and node["text"] and node["text"] != REDACTED:
        out["text"] = node["text"]
    for key in ("checked", "selected", "expanded"):
        if isinstance(node.get(key), bool):
            out[key] = node[key]
    for key in ("enabled", "visible"):
        if node.get(key) is False:
            out[key] = False
    kids = node.get("children") or []
    if depth > 0 and kids:
        out["children"] = [snapshot_of(k, depth - 1) for k in kids]
    return out


def write_snapshot(path: Path, locator: str, template: Mapping[str, Any]) -> None:
    head = (
        f"# wpfprobe tree snapshot of {locator}: compared partially (strict: true in the scenario for exact\n"
        "# children); edit freely: leave out what may change, write /regex/ for what varies.\n"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(head + "\n".join(_dump(dict(template))) + "\n", encoding="utf-8")


def read_snapshot(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise TemplateError(f"{path} is not valid YAML: {exc}") from None
    validate(data, path.name)
    return dict(data)


Call = Callable[[str, dict[str, Any]], Any]


def live_tree(call: Call, locator: str, depth: int) -> tuple[dict[str, Any] | None, str]:
    """The element's subtree as ``wpf_get_visual_tree`` gives it (JSON), or None and why."""
    answer = call(
        "wpf_get_visual_tree", {"locator": locator, "maxDepth": max(0, min(depth, MAX_DEPTH)), "format": "json"}
    )
    if not answer.ok:
        return None, f"{answer.code}: {answer.message}"
    root = answer.structured.get("root")
    return (root, "") if isinstance(root, dict) else (None, "no tree in the answer")


__all__ = [
    "SNAPSHOT_DEPTH",
    "TemplateError",
    "compile_value_pattern",
    "depth_of",
    "difference",
    "live_tree",
    "matches",
    "read_snapshot",
    "snapshot_of",
    "validate",
    "write_snapshot",
]
