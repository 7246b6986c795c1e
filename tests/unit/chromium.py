"""Opening a page the project writes in a real browser: Debian's chromium, driven by Playwright for Python.

``./run`` installs both (``chromium`` from apt, ``playwright`` with the test
extras, no browser download). ``open_page`` loads a file from disk with every
network request refused and counted, and collects script errors, so a test
can say the page renders offline and asks the network for nothing.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run",
]  # fmt: skip


def available() -> str | None:
    """Why a browser cannot be used here (None: it can)."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (./run installs it with the test extras)"
    if not Path(CHROMIUM).exists() and shutil.which("chromium") is None:
        return "no chromium at /usr/bin/chromium (./run installs Debian's chromium)"
    return None


@dataclass
class Opened:
    page: Any
    requests: list[str] = field(default_factory=list)
    """Every request the page made other than loading itself (data: images are not requests)."""
    errors: list[str] = field(default_factory=list)
    """Uncaught script errors and console errors."""


@contextlib.contextmanager
def open_page(path: Path, *, width: int = 1280, height: int = 900) -> Iterator[Opened]:
    why = available()
    if why is not None:
        pytest.skip(why)
    from playwright.sync_api import sync_playwright

    url = path.resolve().as_uri()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            context = browser.new_context(viewport={"width": width, "height": height})
            opened = Opened(page=context.new_page())

            def refuse(route: Any) -> None:
                if route.request.url == url:
                    route.continue_()  # the page itself, from disk
                    return
                opened.requests.append(route.request.url)
                route.abort()

            context.route("**/*", refuse)
            opened.page.on(
                "request", lambda r: r.url != url and not r.url.startswith("data:") and opened.requests.append(r.url)
            )
            opened.page.on("pageerror", lambda e: opened.errors.append(str(e)))
            opened.page.on("console", lambda m: m.type == "error" and opened.errors.append(m.text))
            opened.page.goto(url, wait_until="load")
            yield opened
        finally:
            browser.close()
