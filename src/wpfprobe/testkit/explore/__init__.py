"""Seeded exploration: the action space, the safety policy, generated text, the config, and the loop."""

from wpfprobe.testkit.explore.config import ExploreConfig, load_config
from wpfprobe.testkit.explore.explorer import AppView, ExploreOptions, Explorer, ExploreReport, explore
from wpfprobe.testkit.explore.policy import SafetyPolicy

__all__ = [
    "AppView",
    "ExploreConfig",
    "ExploreOptions",
    "ExploreReport",
    "Explorer",
    "SafetyPolicy",
    "explore",
    "load_config",
]
