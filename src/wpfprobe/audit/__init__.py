"""Verify an audit log of input and mutation (see docs/audit.md).

    report = wpfprobe.audit.verify("app.jsonl")      # the per-user key by default
    report.ok, report.entries, report.kind, report.first_bad_line
    print(report.summary())                         # "OK: 42 entries, chain intact"

Writing the log is the probe's business (every input and mutation tool call
appends an entry); this module is what an auditor needs.
"""

from __future__ import annotations

from wpfprobe.audit._key import AuditKeyError, default_key_path, load_key
from wpfprobe.audit._verify import TamperKind, VerifyReport, verify

__all__ = [
    "AuditKeyError",
    "TamperKind",
    "VerifyReport",
    "default_key_path",
    "load_key",
    "verify",
]
