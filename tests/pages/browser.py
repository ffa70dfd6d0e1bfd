"""Pages in a real browser: Playwright (PyPI) driving Debian's Chromium at a phone's size, with
outside hosts unresolvable, screenshots under ``var/test-artifacts/pages/`` and axe-core (npm)
run inside the page. Never a browser download: `make test-deps` installs Debian's package."""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, sync_playwright

T = TypeVar("T")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "var" / "test-artifacts" / "pages"
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
VIEWPORT = {"width": 390, "height": 844}
ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
    # Any host but the server's resolves to nothing, so an outside asset could not load.
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
]  # fmt: skip


def _launch() -> tuple[Any, Browser]:
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(
            f"no Chromium at {CHROMIUM}: run `make test-deps` (or set CHROMIUM)", pytrace=False
        )
    playwright = sync_playwright().start()
    return playwright, playwright.chromium.launch(
        executable_path=CHROMIUM, args=ARGS, headless=True
    )


class _Worker:
    """One Chromium per test worker, started on first use and closed at the session's end
    (``pytest_sessionfinish`` in tests/conftest.py).
    Playwright's sync objects belong to the thread that made them, so every drive runs on
    this one thread; each test opens contexts of its own (its own cookies), never pages of
    another test's."""

    def __init__(self) -> None:
        self.thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="chromium")
        self.started: tuple[Any, Browser] | None = None

    def browser(self) -> Browser:
        if self.started is None or not self.started[1].is_connected():
            self.started = _launch()
        return self.started[1]

    def run(self, drive: Callable[[Browser], T]) -> T:
        def go() -> T:
            browser = self.browser()
            before = set(browser.contexts)
            try:
                return drive(browser)
            finally:  # a test's contexts end with it, whatever it left open
                for context in set(browser.contexts) - before:
                    context.close()

        return self.thread.submit(go).result()

    def stop(self) -> None:
        def close() -> None:
            if self.started is not None:
                playwright, browser = self.started
                browser.close()
                playwright.stop()
                self.started = None

        self.thread.submit(close).result()
        self.thread.shutdown()


_worker = _Worker()


@contextmanager
def chromium() -> Iterator[Browser]:
    """Debian's Chromium, headless, through Playwright: a browser of its own (for a test that
    drives it from a plain thread); ``in_chromium`` shares the worker's one browser."""
    playwright, browser = _launch()
    try:
        yield browser
    finally:
        browser.close()
        playwright.stop()


async def in_chromium(drive: Callable[[Browser], T]) -> T:
    """``drive(browser)`` on the worker's browser thread (Playwright's sync API cannot run
    inside the test's event loop), so an async test makes its data through ``client`` first
    and checks the outcome through the JSON API after."""
    return await asyncio.to_thread(_worker.run, drive)


def open_page(browser: Browser, **options: Any) -> Page:
    """A new context at 390x844 unless ``viewport=`` says otherwise (its own cookies: another
    tab of another person); every console error (a Content-Security-Policy refusal among
    them) lands in ``page.problems``."""
    options.setdefault("viewport", VIEWPORT)
    context = browser.new_context(**options)
    page = context.new_page()
    problems: list[str] = []

    def console(message: ConsoleMessage) -> None:
        # A page answered with an error status (404, 409...) is logged as a failed load.
        document = message.location.get("url") == page.url
        if message.type == "error" and not (document and "Failed to load" in message.text):
            problems.append(message.text)

    page.on("console", console)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.problems = problems  # type: ignore[attr-defined]
    return page


def shot(page: Page, name: str) -> Path:
    """A full-page screenshot, ``var/test-artifacts/pages/<name>.png`` (gitignored)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{re.sub(r'[^a-z0-9-]+', '-', name.lower())}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


# The rules about a whole document, which a fragment (htmx swaps it into a page) is not.
DOCUMENT_RULES = (
    "document-title", "html-has-lang", "landmark-one-main", "page-has-heading-one", "region",
)  # fmt: skip


def axe(page: Page, *, fragment: bool = False) -> list[dict[str, Any]]:
    """axe-core run in the page (WCAG 2.x A and AA rules): fails on any serious or critical
    violation, and on any console error the page logged (a refused script or style); returns
    the minor ones. Evaluated through the DevTools protocol, which the page's CSP does not
    govern, so the page's own policy is tested as it is. ``fragment=True`` (a partial opened
    alone) leaves out ``DOCUMENT_RULES``; the pages that include it check it in place."""
    if not AXE.exists():
        pytest.fail("no axe-core: run `npm ci` (scripts/test-deps does)", pytrace=False)
    page.evaluate(AXE.read_text())
    skipped = list(DOCUMENT_RULES if fragment else ())
    result = page.evaluate(
        """async (skipped) => {
            const rules = Object.fromEntries(skipped.map(id => [id, {enabled: false}]));
            const r = await axe.run(document, {rules, runOnly: {type: "tag",
                values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]}});
            return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.map(n => n.target.join(" ")).slice(0, 5)}));
        }""",
        skipped,
    )
    serious = [v for v in result if v["impact"] in ("serious", "critical")]
    assert serious == [], f"{page.url}: {serious}"
    problems = getattr(page, "problems", [])
    assert problems == [], f"{page.url}: {problems}"
    return [v for v in result if v not in serious]
