"""One settings model holds every default that protects the user; all on by default."""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field


class ProbeSettings(BaseModel):
    """Engine settings. Security-relevant defaults are the safe ones.

    ``from_env`` reads overrides from ``WPFPROBE_*`` variables, so a probe
    started by another tool can be tuned without code.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    redact: bool = True
    """Hide secret-looking property values (SPEC section 6). Turning it off is for debugging only."""
    extra_redaction_keywords: tuple[str, ...] = ()
    """More name fragments to redact, beside the built-in list."""
    ui_timeout: float = Field(default=5.0, gt=0, le=120)
    """Seconds the UI thread may go without starting or finishing a probe call before a
    waiting call gives up with DISPATCHER_BUSY."""
    attach_wait: float = Field(default=60.0, gt=0, le=3600)
    """Seconds attaching waits for the app's UI thread to answer its first call: an app may be
    busy for a while (its message loop not running yet, its data loading) when the probe starts,
    and a busy moment must not leave a probe that never attached. ``wpfprobe attach`` makes it
    its ``--ui-timeout``: a user waiting at the command line hears of a hung UI thread at once."""
    cursor_ttl: float = Field(default=300.0, gt=0)
    """Seconds a page cursor's snapshot lives; after that the first page comes back with stale=True."""
    max_cursors: int = Field(default=256, ge=1)
    max_tree_nodes: int = Field(default=5000, ge=1, le=5000)
    census_ttl: float = Field(default=1.0, ge=0)
    """Seconds the app-wide index of element names is reused when the toolkit cannot tell of tree changes."""
    ui_slice: float = Field(default=0.004, ge=0, le=1)
    """Seconds long work (a big tree) holds the UI thread before letting it go; 0 holds it for the whole work."""
    slice_attempts: int = Field(default=3, ge=1, le=10)
    """Times sliced work starts again when the tree changes between slices, before it is done in one hop."""
    name_index_ttl: float = Field(default=30.0, ge=0)
    """Seconds at most the name index is reused when the toolkit tells of tree changes (engine/name_index.py)."""
    toolkit_walk: bool = True
    """Snapshot trees with the toolkit's walk in .NET where it has one (engine/walked.py); False reads
    every element from Python, the path that walk is tested against."""
    require_token: bool = True
    """HTTP server: every request must carry ``Authorization: Bearer <token>``."""
    check_thread_affinity: bool = False
    """Fail any toolkit call made off the UI thread (a debugging and test aid)."""
    audit: bool = True
    """Append every input and mutation to the HMAC-chained audit log (docs/audit.md)."""
    audit_log: Path | None = None
    """The log file; default ``$WPFPROBE_HOME/audit/<app name>.jsonl``."""
    audit_key_file: Path | None = None
    """The HMAC key; default ``$WPFPROBE_HOME/audit.key``, created owner-only on first use."""
    os_input_settle: float = Field(default=0.15, ge=0, le=5)
    """Seconds to let the UI thread take OS input events before the result is read."""
    test_hooks: bool = False
    """Started for testing (the test kit sets it): exceptions escaping the app's event handlers are
    caught, recorded and marked handled, so the app goes on instead of showing the toolkit's error
    dialog or ending its message loop. Off, the probe only observes (docs/testing.md, Oracles)."""
    record_dir: Path | None = None
    """Record every action an agent takes over MCP into ``<dir>/<session>/steps.jsonl`` (replayable)."""

    @classmethod
    def from_env(cls, **overrides: object) -> ProbeSettings:
        values: dict[str, object] = {}
        if (v := os.environ.get("WPFPROBE_UI_TIMEOUT")) is not None:
            values["ui_timeout"] = float(v)
        if (v := os.environ.get("WPFPROBE_CHECK_THREADS")) is not None:
            values["check_thread_affinity"] = v.strip().lower() in {"1", "true", "yes", "on"}
        if (v := os.environ.get("WPFPROBE_AUDIT")) is not None:
            values["audit"] = v.strip().lower() not in {"0", "false", "no", "off"}
        if (v := os.environ.get("WPFPROBE_AUDIT_LOG")) is not None:
            values["audit_log"] = Path(v)
        if (v := os.environ.get("WPFPROBE_TEST_HOOKS")) is not None:
            values["test_hooks"] = v.strip().lower() in {"1", "true", "yes", "on"}
        if v := os.environ.get("WPFPROBE_RECORD"):
            values["record_dir"] = Path(v)
        if (v := os.environ.get("WPFPROBE_REDACT_KEYWORDS")) is not None:
            values["extra_redaction_keywords"] = tuple(k for k in v.split(",") if k.strip())
        values.update(overrides)
        return cls.model_validate(values)
