"""One diagnostics run: arguments, the walk, and the page of findings, most severe first."""

from __future__ import annotations

import json
from collections.abc import Callable, Generator, Sequence
from functools import partial
from typing import Any, TypeVar

from wpfprobe.core.errors import InvalidArgumentError, NodeNotFoundError
from wpfprobe.core.models import DiagnosticsPage, Finding
from wpfprobe.engine.base import EngineBase
from wpfprobe.engine.cursors import check_take
from wpfprobe.engine.diagnostics.model import LEVELS, NO_FACTS, Context, Item, Provider, Raw
from wpfprobe.engine.diagnostics.rules import BY_NAME, PROVIDER_NAMES, PROVIDERS
from wpfprobe.engine.hop import Hop
from wpfprobe.engine.target import Target

T = TypeVar("T")

# -- arguments -------------------------------------------------------------------------


def check_providers(providers: Sequence[str] | None) -> tuple[str, ...]:
    """The asked-for provider names in canonical order; None means all."""
    if providers is None:
        return PROVIDER_NAMES
    if isinstance(providers, str) or not isinstance(providers, Sequence) or not providers:
        raise InvalidArgumentError(
            "providers takes a non-empty list of provider names.",
            suggestion=f"Leave providers out to run all, or pick from: {', '.join(PROVIDER_NAMES)}.",
            detail={"known": list(PROVIDER_NAMES)},
        )
    unknown = [p for p in providers if p not in BY_NAME]
    if unknown:
        raise InvalidArgumentError(
            f"Unknown diagnostics provider{'s' if len(unknown) > 1 else ''}: "
            f"{', '.join(repr(u) for u in unknown[:10])}.",
            suggestion=f"Use provider names from: {', '.join(PROVIDER_NAMES)}.",
            detail={"unknown": [str(u)[:100] for u in unknown[:10]], "known": list(PROVIDER_NAMES)},
        )
    wanted = set(providers)
    return tuple(n for n in PROVIDER_NAMES if n in wanted)


def check_level(level: Any) -> str:
    if level not in LEVELS:
        raise InvalidArgumentError(
            f"minLevel must be one of {', '.join(LEVELS)}, got {level!r}.",
            suggestion="Use minLevel info (everything), warning or error.",
        )
    return str(level)


def applicable(names: Sequence[str], toolkit: str) -> tuple[list[str], list[str]]:
    """(the providers that run on ``toolkit``, those that do not apply there)."""
    run = [n for n in names if toolkit in BY_NAME[n].toolkits]
    return run, [n for n in names if n not in run]


# -- the run -----------------------------------------------------------------------------


def run_diagnostics(
    engine: EngineBase,
    target: Target | None,
    *,
    providers: Sequence[str] | None,
    min_level: str,
    cursor: str | None,
    take: int,
) -> DiagnosticsPage:
    check_take(take)
    names = check_providers(providers)
    floor = LEVELS[check_level(min_level)]
    toolkit = str(engine.adapter.toolkit)
    run, not_applicable = applicable(names, toolkit)
    scope = f"diag:{target.describe() if target is not None else ''}:{','.join(names)}:{min_level}"

    def list_all(h: Hop) -> Generator[None, None, list[tuple[str, Any]]]:
        raws = yield from collect(h, target, [BY_NAME[n] for n in run], toolkit, floor)
        pairs = []
        for raw, el in raws:
            if h.slice_due():
                yield
            node_id = h.id(el)
            key = json.dumps(
                {"n": node_id, "p": raw.provider, "l": raw.level, "m": raw.message, "s": raw.suggestion,
                 "d": raw.detail},
                separators=(",", ":"),
            )  # fmt: skip
            pairs.append((key, (node_id, el, raw)))
        return pairs

    def project(h: Hop, entry: Any) -> dict[str, Any]:
        if isinstance(entry, str):  # a later page: the finding as the snapshot kept it
            saved = json.loads(entry)
            try:
                el = h.get(saved["n"])
            except NodeNotFoundError:
                return {}  # the element is gone since the first page
            node_id, provider, level = saved["n"], saved["p"], saved["l"]
            message, suggestion, detail = saved["m"], saved["s"], saved["d"]
        else:
            node_id, el, raw = entry
            provider, level, message, suggestion, detail = (
                raw.provider, raw.level, raw.message, raw.suggestion, raw.detail,
            )  # fmt: skip
        parts = h.locator_parts(el)
        return {
            "provider": provider, "level": level, "message": message, "nodeId": node_id,
            "locator": parts.locator, "path": parts.path, "suggestion": suggestion, "detail": detail,
        }  # fmt: skip

    page = engine.paged(
        kind="diagnostics", scope=scope, cursor=cursor, take=take,
        list_all=list_all, project=project, model=Finding, key_is_value=False,
    )  # fmt: skip
    return DiagnosticsPage(
        items=page.items, next_cursor=page.next_cursor, total_count=page.total_count,
        has_more=page.has_more, stale=page.stale, providers_run=run, providers_not_applicable=not_applicable,
    )  # fmt: skip


def collect(
    h: Hop, target: Target | None, providers: list[Provider], toolkit: str, floor: int
) -> Generator[None, None, list[tuple[Raw, Any]]]:
    """Walk, run the providers, and return (finding, element) most severe first, then in tree order.

    The walk yields between slices (``EngineBase.sliced``); the providers run in one slice.
    """
    if not providers:
        return []
    if target is None:
        roots, keep = h.adapter.roots(), None
    else:
        el = h.resolve(target)
        top = el
        while (up := h.parent_of(top, "visual")) is not None:
            top = up
        roots, keep = [top], el
    items = yield from walk(h, roots, facts=any(p.needs_facts for p in providers))
    lo, hi = 0, len(items)
    if keep is not None:
        found = next((it for it in items if h.same(it.el, keep)), None)
        if found is None:
            return []
        lo, hi = found.index, found.end
    ctx = Context(h, items, toolkit, frozenset(p.name for p in providers))
    order = {p.name: n for n, p in enumerate(PROVIDERS)}
    raws = []
    for p in providers:
        for raw in p.run(ctx):
            if raw is None:
                yield  # the provider paused: its slice is used up
            elif LEVELS[raw.level] >= floor and lo <= raw.index < hi:
                raws.append(raw)
    raws.sort(key=lambda r: (-LEVELS[r.level], r.index, order[r.provider]))
    return [(raw, items[raw.index].el) for raw in raws]


def walk(h: Hop, roots: list[Any], *, facts: bool) -> Generator[None, None, list[Item]]:
    """Every element under ``roots`` in pre-order (the visual tree), with its facts.

    An element whose facts cannot be read is judged on what could be (a fault
    is recorded against it), so one broken control does not hide the rest.
    """
    adapter = h.adapter
    memo: dict[Any, Any] = {}  # the adapter's, for this walk
    items: list[Item] = []
    stack: list[tuple[Any, int | None]] = [(r, None) for r in reversed(roots)]
    while stack:
        if h.slice_due():
            yield
        el, parent = stack.pop()
        state = h.state_of(el)
        item = Item(
            el=el,
            index=len(items),
            parent=parent,
            naming=h.naming_of(el),
            visible=state.visible,
            enabled=state.enabled,
            template_part=safe(h, el, "templatePart", partial(adapter.is_template_part, el), False),
            facts=safe(h, el, "facts", partial(adapter.diagnostic_facts, el, memo), NO_FACTS) if facts else NO_FACTS,
            children=[],
        )
        items.append(item)
        if parent is not None:
            items[parent].children.append(item.index)
        kids = h.children_of(el, "visual")
        stack.extend((k, item.index) for k in reversed(kids))
    for item in reversed(items):
        item.end = items[item.children[-1]].end if item.children else item.index + 1
    return items


# -- helpers -------------------------------------------------------------------------------


def safe(h: Hop, el: Any, read: str, fn: Callable[[], T], default: T) -> T:
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - one element's failure is recorded, not raised
        h.fault(el, read, exc)
        return default
