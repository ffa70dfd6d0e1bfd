"""What scripts/compose-test checks once the stack is up: the S3 store's bucket there without
anyone making it, both app servers ready, the stack's first user signed in, a file uploaded
through a presigned PUT to the S3 store and completed on the other server, its bytes read back.
Exits non-zero on the first failure (the message says which)."""

from __future__ import annotations

import hashlib
import os
import sys
import time
from urllib.parse import urlsplit, urlunsplit

import boto3
import httpx

APPS = [
    f"http://127.0.0.1:{os.environ['APP1_PORT']}",
    f"http://127.0.0.1:{os.environ['APP2_PORT']}",
]
S3 = f"http://127.0.0.1:{os.environ['S3_PORT']}"
EMAIL, PASSWORD = os.environ["SMOKE_EMAIL"], os.environ["SMOKE_PASSWORD"]
DEADLINE = time.monotonic() + float(os.environ.get("SMOKE_WAIT_SECONDS", "180"))


class Failed(Exception):
    pass


def check(condition: bool, what: object) -> None:
    if not condition:
        raise Failed(str(what))


def say(message: str) -> None:
    print(f"[compose-smoke] {message}", flush=True)


def store(url: str) -> tuple[str, dict[str, str]]:
    """A presigned URL names the store as the apps reach it (http://s3:9000): the same request
    sent to its published port, with the Host it was signed for (as a client whose DNS names
    the store would send it)."""
    parts = urlsplit(url)
    local = urlsplit(S3)
    return urlunsplit(parts._replace(scheme=local.scheme, netloc=local.netloc)), {
        "Host": parts.netloc
    }


def wait_ready(url: str) -> dict[str, object]:
    last = "no answer"
    while time.monotonic() < DEADLINE:
        try:
            answer = httpx.get(f"{url}/api/v1/ready", timeout=10)
            if answer.status_code == 200:
                ready: dict[str, object] = answer.json()
                return ready
            last = f"{answer.status_code} {answer.text}"
        except httpx.TransportError as exc:
            last = repr(exc)
        time.sleep(1)
    raise Failed(f"{url} not ready: {last}")


def main() -> None:
    s3 = boto3.client(
        "s3", endpoint_url=S3, region_name="us-east-1",
        aws_access_key_id=os.environ["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=os.environ["AWS_SECRET_ACCESS_KEY"],
    )  # fmt: skip
    while True:  # the store makes its bucket as it starts (deploy/s3/serve.py)
        try:
            s3.head_bucket(Bucket="plumbline")
            break
        except Exception as exc:
            if time.monotonic() > DEADLINE:
                raise Failed(f"the S3 store has no bucket plumbline: {exc}") from exc
            time.sleep(1)
    for url in APPS:
        say(f"{url} ready: {wait_ready(url)['checks']}")

    origin = {"Origin": APPS[0]}
    with httpx.Client(timeout=30, headers=origin) as web:
        signed = web.post(
            f"{APPS[0]}/api/auth/sign-in/email", json={"email": EMAIL, "password": PASSWORD}
        )
        check(signed.status_code == 200, signed.text)
        ws = web.post(f"{APPS[0]}/api/v1/workspaces", json={"name": "Compose test"})
        check(ws.status_code == 200, ws.text)
        project = web.post(
            f"{APPS[1]}/api/v1/workspaces/{ws.json()['id']}/projects", json={"name": "Tower"}
        )
        check(project.status_code == 200, project.text)
        body = b"%PDF-1.4\n% compose test\n" + os.urandom(4096)
        target = web.post(
            f"{APPS[0]}/api/v1/files/presign-upload",
            json={
                "fileName": "plan.pdf",
                "contentType": "application/pdf",
                "sizeBytes": len(body),
                "projectId": project.json()["id"],
            },
        )
        check(target.status_code == 200, target.text)
        check(target.json()["uploadUrl"].startswith("http://s3:9000/"), target.text)
        url, host = store(target.json()["uploadUrl"])
        put = httpx.put(url, content=body, headers={**host, "Content-Type": "application/pdf"})
        check(put.status_code == 200, f"S3 PUT: {put.status_code} {put.text}")
        done = web.post(
            f"{APPS[1]}/api/v1/files/complete-upload",
            json={
                "uploadId": target.json()["uploadId"],
                "sha256": hashlib.sha256(body).hexdigest(),
            },
        )
        check(done.status_code == 200, done.text)
        say(f"uploaded {done.json()['name']} ({done.json()['sizeBytes']} bytes) through S3")
        read = web.get(f"{APPS[0]}/api/v1/files/{done.json()['id']}/presign-read")
        check(read.status_code == 200, read.text)
        url, host = store(read.json()["url"])
        back = httpx.get(url, headers=host)
        check(back.status_code == 200 and back.content == body, back.status_code)
        say("read the file back from S3 through the other server: same bytes")


if __name__ == "__main__":
    try:
        main()
    except Failed as failure:
        print(f"[compose-smoke] FAILED: {failure}", file=sys.stderr)
        sys.exit(1)
