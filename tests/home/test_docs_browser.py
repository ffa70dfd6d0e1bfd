"""The docs pages opened in headless Chromium against a live server, with outside hosts unreachable:
they render the operations, and every request the page makes goes to the server itself."""

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.live import LiveServer

# Debian's package; `make test` installs it when missing (scripts/test-deps), or says how.
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
    # Any host but the server's resolves to nothing, so an outside asset could not load.
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
    "--window-size=1280,1600", "--virtual-time-budget=20000",
]  # fmt: skip


def open_page(url: str, work: Path) -> tuple[str, list[tuple[str, str | None]]]:
    """The rendered DOM, and the (url, initiator) of every request Chromium started; a
    screenshot lands in ``work/page.png``."""
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(
            f"no Chromium at {CHROMIUM}: run `make test-deps` (or set CHROMIUM)", pytrace=False
        )
    netlog = work / "net.json"
    done = subprocess.run(
        [
            CHROMIUM, *FLAGS, f"--user-data-dir={work / 'profile'}",
            f"--log-net-log={netlog}", f"--screenshot={work / 'page.png'}", "--dump-dom", url,
        ],
        capture_output=True, text=True, timeout=600, check=False,  # a hang guard: slow under load
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    log = json.loads(netlog.read_text())
    start = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    requests = [
        (e["params"]["url"], e["params"].get("initiator"))
        for e in log["events"]
        if e["type"] == start and "url" in e.get("params", {})
    ]
    return done.stdout, requests


@pytest.mark.parametrize(
    ("path", "rendered"),
    [("/api/v1/docs", 'class="opblock opblock-'), ("/api/v1/redoc", 'id="operation/')],
)
def test_docs_render_offline_in_chromium(path: str, rendered: str, tmp_path: Path) -> None:
    with LiveServer() as server:
        dom, requests = open_page(server.url + path, tmp_path)
    # Chromium's own background traffic has no page initiator; the page's requests have its origin.
    from_page = [url for url, initiator in requests if initiator == server.url]
    assert f"{server.url}/api/v1/openapi.json" in from_page
    assert [url for url in from_page if not url.startswith(server.url + "/")] == []
    # The operations are rendered from the description (several dozen of them).
    assert dom.count(rendered) > 50
    assert "/projects/{projectId}/issues" in dom
    screenshot = (tmp_path / "page.png").read_bytes()
    assert screenshot.startswith(b"\x89PNG") and len(screenshot) > 20_000
