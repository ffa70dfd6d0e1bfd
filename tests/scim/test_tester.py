"""scim2-tester, the SCIM validator from PyPI, run against a real server process."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import httpx
from scim2_client.client import BaseSyncSCIMClient
from scim2_tester import Status, check_server

from tests.live import LiveServer, free_port
from tests.scim.conftest import ScimWorld


class HttpxSCIMClient(BaseSyncSCIMClient):
    """scim2-client's sync client over httpx (its own engine wants the httpx2 fork)."""

    def __init__(self, client: httpx.Client, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.client = client

    def _stays_under_base_url(self, endpoint: str) -> bool:
        url = self.client.build_request("GET", endpoint).url
        base = self.client.base_url
        return (url.scheme, url.host, url.port) == (base.scheme, base.host, base.port) and (
            url.raw_path.startswith(base.raw_path.rstrip(b"/"))
        )

    def _parse_json(self, response: Any) -> Any:
        return response.json()

    def request(self, method: str, url: str, **kwargs: Any) -> Any:
        return self.client.request(method, url, **kwargs)


async def test_scim2_tester_finds_no_failure(scim_world: ScimWorld, tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = tmp_path / "server.log"
    with (
        LiveServer(port=port, env={"PLUMBLINE_PUBLIC_URL": url}, log=log),
        httpx.Client(
            base_url=f"{url}{scim_world.base}",
            headers={"Authorization": f"Bearer {scim_world.token}"},
            timeout=60,
        ) as http,
    ):
        results = check_server(HttpxSCIMClient(http))
    statuses = Counter(result.status for result in results)
    failures = [
        f"{r.title} [{r.resource_type}]: {r.reason}"
        for r in results
        if r.status in (Status.ERROR, Status.CRITICAL)
    ]
    print(f"scim2-tester: {len(results)} checks, {dict(statuses)}")
    print("\n".join(failures))
    assert failures == []
    assert statuses[Status.SUCCESS] > 20  # the CRUD checks of both resource types ran
