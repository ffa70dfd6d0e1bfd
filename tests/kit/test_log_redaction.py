"""Credentials in URLs (signed storage links, public tokens, query tokens) never reach the logs."""

from __future__ import annotations

import logging
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import orjson

from plumbline.kit import crypto
from plumbline.kit.logging import JsonFormatter, redact
from tests.file.helpers import PDF, sha
from tests.live import LiveServer


def _path(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


async def test_signed_urls_and_tokens_are_redacted_in_every_log_line(world, tmp_path: Path):
    log = tmp_path / "server.log"
    secrets: list[str] = []
    env = {"PLUMBLINE_LOG_LEVEL": "INFO"}
    # uvicorn's own access log on as well: both kinds of access line are checked
    with LiveServer(env=env, log=log, log_level="info") as server:
        headers = {**world.member.headers, "Origin": "http://127.0.0.1:8000"}
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
            target = await http.post(
                "/api/v1/files/presign-upload",
                json={
                    "fileName": "Log.pdf",
                    "contentType": "application/pdf",
                    "sizeBytes": len(PDF),
                    "projectId": world.project.id,
                },
                headers=headers,
            )
            assert target.status_code == 200, target.text
            upload_path = _path(target.json()["uploadUrl"])
            secrets.append(upload_path.rsplit("/", 1)[1])
            put = await http.put(upload_path, content=PDF, headers=target.json()["headers"])
            assert put.status_code == 200, put.text
            done = await http.post(
                "/api/v1/files/complete-upload",
                json={"uploadId": target.json()["uploadId"], "sha256": sha(PDF)},
                headers=headers,
            )
            assert done.status_code == 200, done.text
            read = await http.get(
                f"/api/v1/files/{done.json()['id']}/presign-read", headers=headers
            )
            read_path = _path(read.json()["url"])
            secrets.append(read_path.rsplit("/", 1)[1])
            assert (await http.get(read_path)).content == PDF
            token = crypto.random_token()
            secrets.append(token)
            await http.get("/api/auth/verify-email", params={"token": token})
            invite_token = crypto.random_token()
            secrets.append(invite_token)
            await http.get(f"/api/v1/email-invites/{invite_token}")
    text = log.read_text()
    lines = [orjson.loads(line) for line in text.splitlines()]
    access = [line for line in lines if line["logger"] == "plumbline.access"]
    assert {line["path"] for line in access} >= {
        "/api/v1/storage/upload/[redacted]",
        "/api/v1/storage/object/[redacted]",
        "/api/auth/verify-email",
        "/api/v1/email-invites/[redacted]",
    }
    assert "?token=[redacted]" in {line.get("query") for line in access}
    server_access = [line["message"] for line in lines if line["logger"] == "uvicorn.access"]
    assert any("/api/v1/storage/object/[redacted]" in m for m in server_access)
    assert any("verify-email?token=[redacted]" in m for m in server_access)
    for secret in secrets:
        assert secret not in text
        # nor the signature of a storage token on its own
        assert secret.rpartition(".")[2] not in text


def test_redact_keeps_ids_words_and_file_names() -> None:
    kept = (
        "/api/v1/workspaces/0193ab12cd34ef560193ab12cd34ef56/email-invites",
        "/api/v1/internal/om-maintenance-reminders",
        "/var/outbox/20261123T112233-0193ab12cd34ef560193ab12cd34ef56.eml",
        "/api/v1/projects/p1/issues?cursor=abc&status=OPEN",
    )
    assert [redact(text) for text in kept] == list(kept)
    s3 = (
        "https://s3.example.com/b/k?X-Amz-Credential=AKIA%2F1&X-Amz-Signature=9f8e&X-Amz-Expires=60"
    )
    assert redact(s3) == (
        "https://s3.example.com/b/k?X-Amz-Credential=[redacted]&X-Amz-Signature=[redacted]"
        "&X-Amz-Expires=60"
    )
    link = "Reset: http://h/reset?token=Zx9&redirect=/x; invite http://h/email-invite/Ab3dEf6hIj9kLm2nOp5q"
    assert redact(link) == (
        "Reset: http://h/reset?token=[redacted]&redirect=/x; invite http://h/email-invite/[redacted]"
    )


def test_the_formatter_redacts_messages_extras_and_exceptions() -> None:
    url = "http://127.0.0.1:8000/api/v1/storage/object/eyJrIjoieCJ9.Zm9vYmFyYmF6cXV4MTIzNDU2"
    try:
        raise RuntimeError(f"could not fetch {url}")
    except RuntimeError as exc:
        record = logging.makeLogRecord(
            {"msg": "e-mail link %s", "args": (url,), "exc_info": (type(exc), exc, None)}
        )
    record.__dict__["href"] = url
    line = JsonFormatter().format(record)
    assert "Zm9vYmFy" not in line and line.count("[redacted]") == 3
