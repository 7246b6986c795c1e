"""SPEC section 6 redaction, decided from a property's name and declared type only."""

from __future__ import annotations

import re
from collections.abc import Iterable

from wpfprobe.core.protocol import PropertyDescriptor

REDACTED = "[REDACTED]"

KEYWORDS: tuple[str, ...] = (
    "password", "passwd", "pwd", "secret", "apikey", "connectionstring", "connstr",
    "credential", "privatekey", "sharedkey", "cookie", "sessionkey", "authorization",
    "authtoken", "authkey", "accesstoken", "bearertoken", "refreshtoken", "sessiontoken",
    "sastoken", "jwttoken",
)  # fmt: skip

SECRET_TYPES: frozenset[str] = frozenset({"System.Security.SecureString", "System.Net.NetworkCredential"})

_NON_ALNUM = re.compile(r"[^a-z0-9]")


def _normalise(name: str) -> str:
    # "Api_Key", "api-key" and "ApiKey" are the same name to a reader.
    return _NON_ALNUM.sub("", name.lower())


class Redactor:
    """Decides, before any getter runs, whether a property's value may be shown."""

    def __init__(self, *, enabled: bool = True, extra_keywords: Iterable[str] = ()) -> None:
        self.enabled = enabled
        self._keywords = tuple(dict.fromkeys([*KEYWORDS, *(_normalise(k) for k in extra_keywords)]))

    def name_is_secret(self, name: str) -> bool:
        norm = _normalise(name)
        return any(k in norm for k in self._keywords)

    @staticmethod
    def type_is_secret(type_name: str | None) -> bool:
        if not type_name:
            return False
        # Generic arguments and assembly qualifiers do not change what the type is.
        base = type_name.split("[", 1)[0].split(",", 1)[0]
        return base in SECRET_TYPES or base.endswith("ConnectionStringBuilder")

    def is_redacted(self, prop: PropertyDescriptor) -> bool:
        if not self.enabled:
            return False
        return prop.secret or self.name_is_secret(prop.name) or self.type_is_secret(prop.type_name)
