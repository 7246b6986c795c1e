"""Layer 2: the toolkit-agnostic engine over the adapter protocol (``wpfprobe.core.protocol``).

Node ids, snapshots and cursors, locators, properties with redaction, "why"
(bindings, resources, triggers, behaviors), diagnostics providers, and actions
with waits. It knows no toolkit: an adapter from ``wpfprobe_clr`` (or a fake
in the tests) is handed to it. Faces (``api``, ``mcp``, ``cli``...) use it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from wpfprobe.engine.engine import Engine, Target, Tier

__all__ = ["Engine", "Target", "Tier"]


def __getattr__(name: str) -> Any:
    # On first use: ``engine.target`` (Target, Tier) is light, and ``wpfprobe.start()`` reads it
    # before it returns, without loading the engine itself.
    if name in __all__:
        from wpfprobe.engine import engine  # noqa: PLC0415

        return getattr(engine, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
