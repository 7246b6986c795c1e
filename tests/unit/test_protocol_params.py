"""Params as the SDK's schemas judge them: every field of every spec method at both eras, set to
each of 15 JSON values or left out, gets the kernel's verdict and mcp_types' the same."""

from __future__ import annotations

import copy
from typing import Any

from kernel_twin import (
    ENVELOPE,
    V2026,
    Message,
)
from pydantic import ValidationError

from wpfprobe.mcp import protocol

# --- params as the schemas judge them: every field of every spec method, one value at a time -------------

SURFACE_POOL: list[Any] = [
    None,
    1,
    1.0,
    1.5,
    True,
    "s",
    "5",
    "yes",
    [],
    ["s"],
    [1],
    {},
    {"a": 1},
    {"a": {}},
    {"a": "s"},
]
SURFACE_BASES: dict[str, Message] = {
    "ping": {},
    "tools/list": {"cursor": "c"},
    "tools/call": {"name": "n", "arguments": {}},
    "initialize": {
        "protocolVersion": "v",
        "capabilities": {
            "roots": {"listChanged": True},
            "sampling": {},
            "elicitation": {},
            "experimental": {},
            "tasks": {"requests": {"sampling": {}}},
        },
        "clientInfo": {"name": "n", "version": "1", "icons": [{"src": "s"}]},
    },
    "prompts/get": {"name": "n", "arguments": {"a": "b"}},
    "resources/read": {"uri": "u"},
    "logging/setLevel": {"level": "info"},
    "resources/subscribe": {"uri": "u"},
    "completion/complete": {
        "ref": {"type": "ref/prompt", "name": "p"},
        "argument": {"name": "a", "value": "v"},
        "context": {"arguments": {}},
    },
    "server/discover": {},
    "subscriptions/listen": {"notifications": {"toolsListChanged": True, "resourceSubscriptions": ["a"]}},
    "prompts/list": {},
    "resources/list": {},
    "resources/templates/list": {},
}


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, inner in value.items():
            found += _paths(inner, (*prefix, key))
    elif isinstance(value, list) and value:
        found += _paths(value[0], (*prefix, 0))
    return found


def _edited(value: Any, path: tuple[Any, ...], new: Any = ..., *, delete: bool = False) -> Any:
    value = copy.deepcopy(value)
    node = value
    for step in path[:-1]:
        node = node[step]
    if delete:
        del node[path[-1]]
    else:
        node[path[-1]] = new
    return value


def surface_cases() -> list[tuple[str, str, Any]]:
    cases: list[tuple[str, str, Any]] = []
    for era in ("handshake", V2026):
        for method, params in SURFACE_BASES.items():
            base = copy.deepcopy(params)
            if era == V2026:
                base["_meta"] = {
                    **ENVELOPE,
                    "progressToken": "t",
                    "io.modelcontextprotocol/logLevel": "info",
                    "io.modelcontextprotocol/clientCapabilities": {
                        "roots": {},
                        "sampling": {"context": {}},
                        "elicitation": {"form": {}},
                        "experimental": {"x": {}},
                        "extensions": {"e": {"k": 1}},
                    },
                }
            else:
                base["_meta"] = {"progressToken": "t"}
            cases += [(era, method, None), (era, method, base)]
            for path in _paths(base)[1:]:
                if path[-1] == "io.modelcontextprotocol/protocolVersion":
                    continue  # the envelope ladder judges it first
                cases += [(era, method, _edited(base, path, new)) for new in SURFACE_POOL]
                if not isinstance(path[-1], int):
                    cases.append((era, method, _edited(base, path, delete=True)))
    return cases


def test_params_are_judged_as_the_sdks_schemas_judge_them() -> None:
    from mcp_types.methods import CLIENT_REQUESTS, validate_client_request

    differ = []
    cases = surface_cases()
    for era, method, params in cases:
        version = "2025-11-25" if era == "handshake" else V2026
        if (method, version) not in CLIENT_REQUESTS:
            continue
        try:
            validate_client_request(method, version, params)
            sdk = True
        except ValidationError:
            sdk = False
        if protocol._surface_ok(method, era, params) != sdk:  # type: ignore[arg-type]
            differ.append((era, method, params, sdk))
    assert len(cases) > 3000
    assert differ == []
