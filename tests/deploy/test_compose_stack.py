"""compose.yaml starts ready to sign in (issue 40 item 11): the stand-in S3 store makes its
bucket as it starts, and a one-shot service makes the first user once the schema is there.
The stack itself runs in scripts/compose-test (podman); these check its parts on this machine."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import boto3
import yaml

from tests.live import STARTUP, free_port

ROOT = Path(__file__).resolve().parents[2]


def test_the_stand_in_store_makes_its_bucket_as_it_starts() -> None:
    port = free_port()
    env = {**os.environ, "PORT": str(port), "S3_BUCKETS": "plumbline"}
    env |= {"AWS_ACCESS_KEY_ID": "plumbline", "AWS_SECRET_ACCESS_KEY": "plumbline-secret"}
    store = subprocess.Popen(
        [sys.executable, str(ROOT / "deploy/s3/serve.py")],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert store.stdout is not None
        # The line it prints once the bucket is made (a bound on the start, not an assertion).
        deadline = time.monotonic() + STARTUP
        lines = []
        while time.monotonic() < deadline and store.poll() is None:
            lines.append(store.stdout.readline())
            if lines[-1].startswith("S3 stand-in on port"):
                break
        assert lines[-1].strip() == f"S3 stand-in on port {port}, buckets: plumbline", lines
        s3 = boto3.client(
            "s3",
            endpoint_url=f"http://127.0.0.1:{port}",
            region_name="us-east-1",
            aws_access_key_id="plumbline",
            aws_secret_access_key="plumbline-secret",
        )
        s3.head_bucket(Bucket="plumbline")  # raises when missing
        assert [b["Name"] for b in s3.list_buckets()["Buckets"]] == ["plumbline"]
    finally:
        store.send_signal(signal.SIGTERM)
        assert store.wait(timeout=30) == 0


def _compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "compose.yaml").read_text())
    return loaded["services"]


def test_compose_makes_the_first_user_after_the_migration_and_names_one_bucket() -> None:
    services = _compose()
    first = services["first-user"]
    assert first["command"] == ["users", "first"] and first["restart"] == "no"
    assert first["depends_on"] == {"migrate": {"condition": "service_completed_successfully"}}
    # the same database as every other process, and the settings it reads from the operator
    assert (
        first["environment"]["PLUMBLINE_DATABASE_URL"]
        == (services["app1"]["environment"]["PLUMBLINE_DATABASE_URL"])
    )
    for name in ("EMAIL", "PASSWORD", "NAME"):
        variable = f"PLUMBLINE_FIRST_USER_{name}"
        assert first["environment"][variable] == f"${{{variable}:-}}"
        assert variable not in services["app1"]["environment"]  # the password stays there
    # the bucket the store makes is the one the apps use
    assert (
        services["s3"]["environment"]["S3_BUCKETS"]
        == (services["app1"]["environment"]["PLUMBLINE_S3_BUCKET"])
    )
