"""The docs pages opened in headless Chromium (Playwright, as the pages' tests drive it) against a
live server, with outside hosts unreachable: they render the operations, and every request the
page makes goes to the server itself.

Playwright waits for the rendered operations themselves. An earlier version ran Chromium's
``--dump-dom`` with a virtual-time budget, which stalls for good when a load never settles: it
hung twice in CI under load."""

from pathlib import Path

import pytest

from tests.live import LiveServer
from tests.pages.browser import chromium

# A bound on a wait on a loaded machine (the description is 1.1 MB to build, fetch and render),
# never a timed assertion.
RENDERED_WITHIN_MS = 180_000


@pytest.mark.parametrize(
    ("path", "operation"),
    [("/api/v1/docs", ".opblock"), ("/api/v1/redoc", '[id^="operation/"]')],
)
def test_docs_render_offline_in_chromium(path: str, operation: str, tmp_path: Path) -> None:
    requested: list[str] = []
    failed: dict[str, str] = {}
    with LiveServer() as server, chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 1600})
        page.on("request", lambda r: requested.append(r.url))
        page.on("requestfailed", lambda r: failed.update({r.url: r.failure or ""}))
        page.goto(server.url + path, timeout=RENDERED_WITHIN_MS)
        page.wait_for_selector(operation, timeout=RENDERED_WITHIN_MS)
        # The operations are rendered from the description (several dozen of them).
        assert page.locator(operation).count() > 50
        assert "/projects/{projectId}/issues" in page.content()
        screenshot = page.screenshot(path=str(tmp_path / "page.png"))
        loaded = page.eval_on_selector_all(
            "[src], link[href]", "nodes => nodes.map(n => n.src || n.href)"
        )
    assert f"{server.url}/api/v1/openapi.json" in requested
    # Nothing asked of another host, not even what the docs' policy would stop before the
    # network: only the server's own URLs and what the page makes in memory (ReDoc's worker and
    # inline images are blob: and data: URLs).
    network = [url for url in requested if not url.startswith(("blob:", "data:"))]
    outside = {url: failed.get(url) for url in network if not url.startswith(server.url + "/")}
    assert outside == {}
    # Nor named by the rendered page as something to load.
    assert [url for url in loaded if not url.startswith((server.url + "/", "blob:", "data:"))] == []
    assert screenshot.startswith(b"\x89PNG") and len(screenshot) > 20_000
