"""Layer 2: the toolkit-agnostic engine over the adapter protocol (``wpfprobe.core.protocol``).

Node ids, snapshots and cursors, locators, properties with redaction, "why"
(bindings, resources, triggers, behaviors), diagnostics providers, and actions
with waits. It knows no toolkit: an adapter from ``wpfprobe_clr`` (or a fake
in the tests) is handed to it. Faces (``api``, ``mcp``, ``cli``...) use it.
"""

from wpfprobe.engine.engine import Engine, Target, Tier

__all__ = ["Engine", "Target", "Tier"]
