"""Testing an app with no AI: scenarios, seeded exploration, replay, minimized repros and tickets.

Public: the names below (``docs/testing.md``). The app under test runs in a
process of its own, started from a profile (``AppTarget``) for every run, and
is driven through its probe's MCP tools; ``InProcessFactory`` serves an app
already running in this process instead (no minimization: it cannot be
started again).
"""

from wpfprobe.testkit.artifacts import DEFAULT_ARTIFACTS
from wpfprobe.testkit.connection import CallOutcome, InProcessConnection, McpConnection
from wpfprobe.testkit.explore import AppView, ExploreConfig, ExploreOptions, ExploreReport, SafetyPolicy, explore
from wpfprobe.testkit.launcher import AppTarget, InProcessFactory, ProcessFactory
from wpfprobe.testkit.minimize import MinimizeOptions
from wpfprobe.testkit.oracles import Failure
from wpfprobe.testkit.scenario import Scenario, ScenarioError, json_schema, load_scenario, parse_scenario
from wpfprobe.testkit.scenario_run import ScenarioResult, run_scenario
from wpfprobe.testkit.tickets import Ticket, all_tickets, find_ticket

__all__ = [
    "DEFAULT_ARTIFACTS",
    "AppTarget",
    "AppView",
    "CallOutcome",
    "ExploreConfig",
    "ExploreOptions",
    "ExploreReport",
    "Failure",
    "InProcessConnection",
    "InProcessFactory",
    "McpConnection",
    "MinimizeOptions",
    "ProcessFactory",
    "SafetyPolicy",
    "Scenario",
    "ScenarioError",
    "ScenarioResult",
    "Ticket",
    "all_tickets",
    "explore",
    "find_ticket",
    "json_schema",
    "load_scenario",
    "parse_scenario",
    "run_scenario",
]
