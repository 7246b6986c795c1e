"""Checking a scenario's assertions against the live app, each retried until its timeout.

Each assertion reads the app through the read tools (find, properties,
screenshot) and is tried again until it holds or its time is up, so a UI that
updates a moment later (a timer, a background load) passes without sleeps. A
failed assertion says what was expected and what was there at the last try:
that is the ticket's Expected and Actual.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from wpfprobe.core.patterns import compile_pattern
from wpfprobe.testkit import imagediff, snapshots
from wpfprobe.testkit.connection import CallOutcome
from wpfprobe.testkit.scenario import Assertion, ScreenshotAssertion, TreeAssertion

Call = Callable[[str, dict[str, Any]], CallOutcome]
_ADAPTER: TypeAdapter[Any] = TypeAdapter(Assertion)
POLL_SECONDS = 0.15
INTERRUPT_SECONDS = 0.5


@dataclass
class Checked:
    ok: bool
    kind: str
    locator: str | None
    expected: str
    actual: str
    attempts: int = 1
    images: dict[str, bytes] | None = None
    note: str | None = None

    def message(self) -> str:
        return f"expected {self.expected}; actual: {self.actual}"


def parse(raw: Any) -> Any:
    """An assertion model from a model or its dict (``{"assert": ..., ...}``, as a trace keeps it)."""
    return raw if not isinstance(raw, dict) else _ADAPTER.validate_python(raw)


def as_dict(assertion: Any) -> dict[str, Any]:
    data: dict[str, Any] = assertion.model_dump(mode="json", by_alias=True, exclude_none=True)
    return data


def check(
    call: Call,
    assertion: Any,
    *,
    default_timeout_ms: int,
    base_dir: Path | None = None,
    update_baselines: bool = False,
    update_snapshots: bool = False,
    interrupted: Callable[[], bool] | None = None,
) -> Checked:
    """Evaluate ``assertion`` until it holds or its timeout passes; the last evaluation is the answer.

    ``interrupted`` is asked between tries, at most every ``INTERRUPT_SECONDS``: when it says True (the
    app raised or died meanwhile) the wait ends there, with the last evaluation."""
    model = parse(assertion)
    timeout_ms = model.timeout_ms if model.timeout_ms is not None else default_timeout_ms
    deadline = time.monotonic() + timeout_ms / 1000
    attempts = 0
    asked = time.monotonic()
    while True:
        attempts += 1
        if isinstance(model, ScreenshotAssertion):
            result = _screenshot(call, model, base_dir or Path.cwd(), update_baselines)
        elif isinstance(model, TreeAssertion):
            result = _tree(call, model, base_dir or Path.cwd(), update_snapshots)
        else:
            result = _evaluate(call, model)
        result.attempts = attempts
        if result.ok or time.monotonic() >= deadline:
            return result
        if interrupted is not None and time.monotonic() - asked >= INTERRUPT_SECONDS:
            asked = time.monotonic()
            if interrupted():
                return result
        time.sleep(min(POLL_SECONDS, max(0.0, deadline - time.monotonic())))


def _find(call: Call, locator: str, take: int = 2) -> tuple[list[dict[str, Any]], str | None, bool]:
    """(nodes found, error, truncated)."""
    answer = call("wpf_find_elements", {"locator": locator, "maxResults": take})
    if not answer.ok:
        return [], f"{answer.code}: {answer.message}", False
    results = answer.structured.get("results") or []
    return [r["node"] for r in results if isinstance(r, dict)], None, bool(answer.structured.get("truncated"))


def _one(call: Call, locator: str) -> tuple[dict[str, Any] | None, str]:
    nodes, error, truncated = _find(call, locator)
    if error is not None:
        return None, error
    if not nodes:
        return None, "no element matches"
    if len(nodes) > 1:
        return None, f"{'more than ' if truncated else ''}{len(nodes)} elements match"
    return nodes[0], ""


def _evaluate(call: Call, a: Any) -> Checked:
    kind: str = a.assert_
    loc: str = a.locator
    if kind in ("exists", "gone"):
        nodes, error, truncated = _find(call, loc, 1)
        found = len(nodes)
        ok = (found > 0) if kind == "exists" else (found == 0 and error is None)
        actual = error or (f"no element matches {loc}" if not found else f"{loc} is there")
        return Checked(ok, kind, loc, f"{loc} {'exists' if kind == 'exists' else 'is gone'}", actual)
    if kind == "count":
        nodes, error, truncated = _find(call, loc, 100)
        n = len(nodes)
        ok = error is None and (a.min is None or n >= a.min) and (a.max is None or (n <= a.max and not truncated))
        want = " and ".join(
            p for p in (f">= {a.min}" if a.min is not None else "", f"<= {a.max}" if a.max is not None else "") if p
        )
        matched = f"{loc} matches {'over ' if truncated else ''}{n} elements"
        return Checked(ok, kind, loc, f"{loc} matches {want} elements", error or matched)
    node, why = _one(call, loc)
    if node is None:
        return Checked(
            False, kind, loc, _expected(a), f"{why} for {loc}" if not why.startswith(("LOCATOR", "INVALID")) else why
        )
    if kind in ("visible", "hidden", "enabled", "disabled"):
        flag = "visible" if kind in ("visible", "hidden") else "enabled"
        value = bool(node.get(flag))
        ok = value == (kind in ("visible", "enabled"))
        shown = ("visible" if value else "hidden") if flag == "visible" else ("enabled" if value else "disabled")
        return Checked(ok, kind, loc, _expected(a), f"{loc} is {shown}")
    if kind in ("selected", "checked"):
        state: Any = node.get(kind)
        if state is None:
            state = _flag_property(
                call, loc, ("Checked", "IsChecked") if kind == "checked" else ("Selected", "IsSelected")
            )
        ok = state is not None and bool(state) == a.value
        shown = (
            f"{loc} does not say whether it is {kind}" if state is None else f"{loc} is {'' if state else 'not '}{kind}"
        )
        return Checked(ok, kind, loc, _expected(a), shown)
    if kind in ("text_equals", "text_contains", "regex"):
        text = node.get("text")
        shown = "(no text)" if text is None else repr(text)
        text = text or ""
        if kind == "text_equals":
            ok = text == a.value
        elif kind == "text_contains":
            ok = a.value in text
        else:
            ok = compile_pattern(a.value).search(text)
        return Checked(ok, kind, loc, _expected(a), f"text of {loc} is {shown}")
    if kind == "property_equals":
        value, error = _property(call, loc, a.property)
        if error is not None:
            return Checked(False, kind, loc, _expected(a), error)
        return Checked(_same(value, a.value), kind, loc, _expected(a), f"{a.property} of {loc} is {value!r}")
    raise AssertionError(f"unknown assertion {kind}")


def _expected(a: Any) -> str:
    kind = a.assert_
    loc = a.locator
    if kind in ("visible", "hidden", "enabled", "disabled"):
        return f"{loc} is {kind}"
    if kind in ("selected", "checked"):
        return f"{loc} is {'' if a.value else 'not '}{kind}"
    if kind == "text_equals":
        return f"text of {loc} equals {a.value!r}"
    if kind == "text_contains":
        return f"text of {loc} contains {a.value!r}"
    if kind == "regex":
        return f"text of {loc} matches /{a.value}/"
    if kind == "property_equals":
        return f"{a.property} of {loc} equals {a.value!r}"
    return f"{loc} {kind}"


def _property(call: Call, locator: str, name: str) -> tuple[Any, str | None]:
    answer = call("wpf_get_properties", {"locator": locator, "filter": name, "includeDefaults": True, "take": 200})
    if not answer.ok:
        return None, f"{answer.code}: {answer.message}"
    for row in answer.structured.get("items") or []:
        if isinstance(row, dict) and str(row.get("name", "")).lower() == name.lower():
            return row.get("value"), None
    return None, f"it has no property {name!r}"


def _flag_property(call: Call, locator: str, names: tuple[str, ...]) -> bool | None:
    for name in names:
        value, error = _property(call, locator, name)
        if error is None and isinstance(value, bool):
            return value
        if error is None and isinstance(value, str) and value.lower() in ("true", "false", "checked", "unchecked"):
            return value.lower() in ("true", "checked")
    return None


def _same(actual: Any, expected: Any) -> bool:
    """Values compare as the probe shows them: booleans and numbers by value, the rest as text."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return str(actual).lower() == str(expected).lower()
    if isinstance(expected, (int, float)) or isinstance(actual, (int, float)):
        try:
            return float(str(actual)) == float(str(expected))
        except ValueError:
            return False
    return str(actual) == str(expected) if actual is not None else expected is None


def _screenshot(call: Call, a: ScreenshotAssertion, base_dir: Path, update: bool) -> Checked:
    loc = a.locator
    what = loc or "the main window"
    shot = call("wpf_capture_screenshot", {"locator": loc} if loc else {})
    if not shot.ok or shot.png is None:
        return Checked(False, "screenshot_diff", loc, f"{what} looks like {a.baseline}", f"no screenshot: {shot.code}")
    baseline = imagediff.baseline_path(base_dir, a.baseline)
    if update or not baseline.exists():
        target = (
            baseline
            if update and baseline.exists()
            else baseline.with_name(
                f"{Path(a.baseline).stem}.{imagediff.platform_tag()}{Path(a.baseline).suffix or '.png'}"
            )
        )
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(shot.png)
        if update:
            return Checked(
                True, "screenshot_diff", loc, f"{what} looks like {a.baseline}", "baseline written", note=str(target)
            )
        return Checked(
            False, "screenshot_diff", loc, f"{what} looks like {a.baseline}",
            f"no baseline yet: the actual image was written to {target} (check it, then run again)",
            images={"actual": shot.png},
        )  # fmt: skip
    masks = _masks(call, a, loc)
    result = imagediff.compare(
        shot.png, baseline.read_bytes(), threshold=a.threshold, pixel_tolerance=a.pixel_tolerance, masks=masks
    )
    expected = f"{what} looks like {baseline.name} (at most {a.threshold:.2%} of pixels differ)"
    if result.size_mismatch:
        return Checked(
            False, "screenshot_diff", loc, expected, f"size {result.size_mismatch}", images={"actual": shot.png}
        )
    actual = f"{result.ratio:.2%} of pixels differ ({result.differing} of {result.compared})"
    images = None if result.ok else {"actual": shot.png, "diff": result.diff_png or b""}
    return Checked(result.ok, "screenshot_diff", loc, expected, actual, images=images)


def _masks(call: Call, a: ScreenshotAssertion, loc: str | None) -> list[tuple[int, int, int, int]]:
    out: list[tuple[int, int, int, int]] = []
    origin = (0, 0)
    if any(m.locator for m in a.masks):
        origin = _origin(call, loc)
    for mask in a.masks:
        if mask.locator is None:
            assert mask.x is not None and mask.y is not None and mask.width is not None and mask.height is not None
            out.append((mask.x, mask.y, mask.width, mask.height))
            continue
        info = call("wpf_inspect_element", {"locator": mask.locator})
        bounds = info.structured.get("bounds") if info.ok else None
        if isinstance(bounds, dict):
            out.append((bounds["x"] - origin[0], bounds["y"] - origin[1], bounds["width"], bounds["height"]))
    return out


def _origin(call: Call, loc: str | None) -> tuple[int, int]:
    if loc:
        info = call("wpf_inspect_element", {"locator": loc})
        bounds = info.structured.get("bounds") if info.ok else None
    else:
        windows = call("wpf_get_windows", {})
        listed = windows.structured.get("windows") or [] if windows.ok else []
        bounds = listed[0].get("bounds") if listed else None
    if isinstance(bounds, dict):
        return int(bounds["x"]), int(bounds["y"])
    return 0, 0


def _tree(call: Call, a: TreeAssertion, base_dir: Path, update: bool) -> Checked:
    """tree_matches: the live subtree against the template (inline, or the snapshot file, written when missing)."""
    loc = a.locator
    expected = f"the tree of {loc} matches {'the template' if a.snapshot is None else a.snapshot}"
    expected += " (strict)" if a.strict else ""
    path = (base_dir / a.snapshot) if a.snapshot is not None else None
    if path is not None and (update or not path.exists()):
        root, why = snapshots.live_tree(call, loc, a.depth if a.depth is not None else snapshots.SNAPSHOT_DEPTH)
        if root is None:
            return Checked(False, "tree_matches", loc, expected, why)
        written = snapshots.snapshot_of(root, a.depth if a.depth is not None else snapshots.SNAPSHOT_DEPTH)
        snapshots.write_snapshot(path, loc, written)
        if update:
            return Checked(True, "tree_matches", loc, expected, "snapshot written", note=str(path))
        return Checked(
            False, "tree_matches", loc, expected,
            f"no snapshot yet: the live tree was written to {path} (check it, then run again)",
        )  # fmt: skip
    try:
        if a.template is not None:
            template = a.template
        else:
            assert path is not None
            template = snapshots.read_snapshot(path)
    except (OSError, snapshots.TemplateError) as exc:
        return Checked(False, "tree_matches", loc, expected, f"the snapshot cannot be used: {exc}")
    root, why = snapshots.live_tree(call, loc, snapshots.depth_of(template))
    if root is None:
        return Checked(False, "tree_matches", loc, expected, why)
    if snapshots.matches(template, root, strict=a.strict):
        return Checked(True, "tree_matches", loc, expected, "it matches")
    return Checked(
        False, "tree_matches", loc, expected,
        "the tree differs (- template, + actual):\n" + snapshots.difference(template, root, strict=a.strict),
    )  # fmt: skip
