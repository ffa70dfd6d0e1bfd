"""The four-step upload against a real server process over a real socket."""

from __future__ import annotations

import httpx

from tests.file.helpers import sha
from tests.live import LiveServer, free_port


async def test_upload_and_ranged_read_over_a_real_socket(world):
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    data = bytes(range(256)) * 4096 * 3  # 3 MiB
    with LiveServer(env={"PLUMBLINE_PUBLIC_URL": url}, port=port):
        headers = {**world.member.headers, "Origin": url}
        async with httpx.AsyncClient(base_url=url, timeout=30) as http:
            target = await http.post(
                "/api/v1/files/presign-upload",
                json={
                    "fileName": "Live.pdf",
                    "contentType": "application/pdf",
                    "sizeBytes": len(data),
                    "projectId": world.project.id,
                },
                headers=headers,
            )
            assert target.status_code == 200, target.text
            body = target.json()
            assert body["uploadUrl"].startswith(f"{url}/api/v1/storage/upload/")

            async def chunks():
                for i in range(0, len(data), 256 * 1024):
                    yield data[i : i + 256 * 1024]

            put = await http.put(body["uploadUrl"], content=chunks(), headers=body["headers"])
            assert put.status_code == 200, put.text
            done = await http.post(
                "/api/v1/files/complete-upload",
                json={"uploadId": body["uploadId"], "sha256": sha(data)},
                headers=headers,
            )
            assert done.status_code == 200, done.text
            file_id = done.json()["id"]
            part = await http.get(
                f"/api/v1/files/{file_id}/content",
                headers={**headers, "Range": "bytes=1000000-1000099"},
            )
            assert part.status_code == 206 and part.content == data[1000000:1000100]
            read = await http.get(f"/api/v1/files/{file_id}/presign-read", headers=headers)
            async with http.stream("GET", read.json()["url"]) as stream:
                received = b"".join([chunk async for chunk in stream.aiter_bytes()])
            assert received == data
