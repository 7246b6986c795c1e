"""The safety policy: what exploration never does to an app unless told it may.

Random input on a real app can delete a user's data, close the app, send an
email. So exploration denies, by default, any action on an element whose text,
name or automation id reads as destructive (delete, remove, exit, quit, close,
send, erase, wipe, purge, destroy, discard, shut down, uninstall, format, log
out, sign out; camelCase names are split into words, so ``exitMenuItem`` is
"exit menu item"), and keys that close a window or the app (Alt+F4, Ctrl+W,
Ctrl+Q, Ctrl+F4). ``deny`` adds locators or ``text:REGEX`` patterns.

An allow-list lets chosen destructive actions through, and only with an
explicit confirmation: ``allow`` entries (a locator such as ``#deleteDraft``,
or ``text:REGEX``) take effect only when ``confirm_destructive`` is true, in
the exploration config or in the app's profile. Without the confirmation an
allow-list is reported and ignored. ``--dry-run`` lists what the policy
blocks on the app's first screen without acting.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from wpfprobe.core.patterns import PatternError, compile_pattern

DESTRUCTIVE_WORDS = (
    "delete", "remove", "exit", "quit", "close", "send", "erase", "wipe", "purge", "destroy", "discard",
    "shut down", "shutdown", "uninstall", "format", "log out", "logout", "sign out", "signout", "kill",
)  # fmt: skip
DESTRUCTIVE = re.compile(r"\b(" + "|".join(w.replace(" ", r"\s+") for w in DESTRUCTIVE_WORDS) + r")\b")
CLOSING_KEYS = frozenset({"alt+f4", "ctrl+w", "ctrl+q", "ctrl+f4", "ctrl+shift+w"})


def words(text: str) -> str:
    """``exitMenuItem`` -> ``exit menu item``; ``btn_Delete`` -> ``btn delete``: words a pattern can match."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", text)
    return re.sub(r"[^A-Za-z0-9]+", " ", spaced).lower().strip()


@dataclass(frozen=True)
class Decision:
    allowed: bool
    reason: str = ""
    rule: str = ""


@dataclass
class SafetyPolicy:
    allow: list[str] = field(default_factory=list)
    confirm_destructive: bool = False
    deny: list[str] = field(default_factory=list)

    @property
    def allow_active(self) -> bool:
        return self.confirm_destructive and bool(self.allow)

    def _matches(self, entries: Sequence[str], node: Mapping[str, Any]) -> str | None:
        for entry in entries:
            if entry.startswith("text:"):
                try:
                    pattern = compile_pattern(entry[5:], "i")
                except PatternError:
                    continue
                for key in ("text", "name", "automationId"):
                    value = node.get(key)
                    if isinstance(value, str) and value and pattern.search(value):
                        return entry
            elif _locator_matches(entry, node):
                return entry
        return None

    def decide(self, node: Mapping[str, Any], action: str, args: Mapping[str, Any] | None = None) -> Decision:
        """Whether exploration may take ``action`` on ``node`` (a node as the tools return it)."""
        denied = self._matches(self.deny, node)
        if denied:
            return Decision(False, f"matches deny rule {denied!r}", denied)
        reason = ""
        keys = str((args or {}).get("keys") or "")
        if action == "send_keys" and any(k.strip().lower() in CLOSING_KEYS for k in keys.split()):
            reason = f"the keys {keys!r} close a window or the app"
        if not reason:
            for key in ("text", "name", "automationId"):
                value = node.get(key)
                if isinstance(value, str) and value and action != "type_text":
                    found = DESTRUCTIVE.search(words(value))
                    if found:
                        reason = f"its {key} {value!r} reads as destructive ({found.group(1)!r})"
                        break
        if not reason:
            return Decision(True)
        allowed_by = self._matches(self.allow, node) if self.allow_active else None
        if allowed_by:
            return Decision(True, f"allowed by {allowed_by!r} (destructive: {reason})", allowed_by)
        return Decision(False, reason, "destructive")

    @classmethod
    def combine(cls, *parts: Mapping[str, Any] | None) -> SafetyPolicy:
        """One policy from the config's ``policy`` and the profile's allow-list (either may confirm)."""
        allow: list[str] = []
        deny: list[str] = []
        confirm = False
        for part in parts:
            if not part:
                continue
            allow += [str(a) for a in part.get("allow") or []]
            deny += [str(d) for d in part.get("deny") or []]
            confirm = confirm or bool(part.get("confirmDestructive"))
        return cls(allow=allow, confirm_destructive=confirm, deny=deny)


def _locator_matches(entry: str, node: Mapping[str, Any]) -> bool:
    """A plain comparison with the node's own locator, or ``#name`` / ``Type#name`` against its name."""
    if entry == node.get("locator"):
        return True
    match = re.fullmatch(r"([A-Za-z_][\w.]*)?#([\w.-]+)", entry)
    if match is None:
        return False
    kind, name = match.groups()
    if name not in (node.get("name"), node.get("automationId")):
        return False
    return kind is None or kind.lower() in (
        str(node.get("type") or "").lower(),
        str(node.get("typeName") or "").lower(),
    )
