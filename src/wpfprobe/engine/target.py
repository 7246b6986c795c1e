"""How a caller names one element (``Target``) and the permission tiers (``Tier``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from wpfprobe.core.errors import InvalidArgumentError

Tier = Literal["read", "interact", "mutate"]
TIERS: tuple[Tier, ...] = ("read", "interact", "mutate")


def check_tier(tier: Any) -> Tier:
    """``tier`` if it names a tier, else InvalidArgumentError (an ``allow=`` argument)."""
    if tier not in TIERS:
        raise InvalidArgumentError(
            f"allow must be one of {', '.join(TIERS)}, got {tier!r}.",
            suggestion='Use allow="read" (default), "interact" or "mutate".',
        )
    return tier  # type: ignore[no-any-return]


@dataclass(frozen=True, slots=True)
class Target:
    """How a caller names one element: a node id, or locators applied in turn.

    Each locator after the first searches the descendants of the single element
    the previous one found; ``nth`` picks among the final matches.
    """

    node_id: str | None = None
    locators: tuple[str, ...] = ()
    nth: int | None = None

    def __post_init__(self) -> None:
        if self.node_id is None and not self.locators:
            raise InvalidArgumentError(
                "Give either nodeId or locator to name an element.",
                suggestion="Take a nodeId from wpf_get_windows or wpf_find_elements, or pass a locator.",
            )
        if self.node_id is not None and self.locators:
            raise InvalidArgumentError(
                "Give nodeId or locator, not both.",
                suggestion="Pass only one of nodeId and locator.",
            )
        if self.node_id is not None and not isinstance(self.node_id, str):
            raise InvalidArgumentError("nodeId must be a string.", suggestion="Pass a nodeId as returned.")

    def describe(self) -> str:
        if self.node_id is not None:
            return f"node {self.node_id}"
        text = " >> ".join(self.locators)
        return f"{text}:nth({self.nth})" if self.nth is not None else text


__all__ = ["Target", "Tier"]
