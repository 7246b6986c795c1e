"""Access-key markers in captions: "Save &As" (WinForms) and "Save _As" (WPF) read "Save As", key A."""

from __future__ import annotations


def strip_access_key(raw: str, marker: str) -> tuple[str, str | None]:
    """The text a user reads from ``raw`` and the access key it marks (upper case), if any.

    A doubled marker is the marker itself ("R&&D" reads "R&D"); the first single
    marker before a character names the key, as WinForms and WPF draw it; a
    marker at the very end is shown as it is.
    """
    if marker not in raw:
        return raw, None
    out: list[str] = []
    key: str | None = None
    i = 0
    while i < len(raw):
        ch = raw[i]
        if ch == marker and i + 1 < len(raw):
            nxt = raw[i + 1]
            if nxt != marker and key is None and not nxt.isspace():
                key = nxt.upper()
            out.append(nxt)
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out), key


__all__ = ["strip_access_key"]
