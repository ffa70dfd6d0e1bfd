"""Schemathesis over the served OpenAPI against a live server: no 5xx, every response matches
the description (status code, content type, body schema)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import httpx
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.live import LiveServer

# A safety bound on the first calls (sign-in hashes a password, the OpenAPI is built on first
# use), never a timed assertion: under parallel suites they took over httpx's default 5 s.
FIRST_CALLS = 60  # seconds
EXAMPLES = int(os.environ.get("PLUMBLINE_FUZZ_EXAMPLES", "6"))
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
# Calls that would end the fuzzer's own session or delete the tenant it works in, and streams.
EXCLUDED = [
    ("POST", r"/api/auth/(sign-out|revoke-.*|change-password|reset-password|update-user)"),
    ("DELETE", r"/api/v1/workspaces/\{workspaceId\}"),
    ("DELETE", r"/api/v1/projects/\{projectId\}"),
    ("DELETE", r"/api/v1/workspaces/\{workspaceId\}/members/\{userId\}"),
    ("GET", r".*/viewer-collab/events"),
]


def _demo(env: dict[str, str]) -> dict[str, str]:
    out = subprocess.run(
        [sys.executable, "-m", "plumbline.cli", "demo"],
        env={**env, "COLUMNS": "300", "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {
        "apiKey": re.search(r"API key:\s+(psk_\S+)", out).group(1),  # type: ignore[union-attr]
        "workspaceId": re.search(r"workspace:\s+(\S+)", out).group(1),  # type: ignore[union-attr]
        "projectId": re.search(r"project:\s+(\S+)", out).group(1),  # type: ignore[union-attr]
    }


def _excluded(method: str, path: str) -> bool:
    return any(method == m and re.fullmatch(p, path) for m, p in EXCLUDED)


def test_fuzzed_requests_never_break_the_contract() -> None:
    known = _demo(dict(os.environ))
    with LiveServer() as server:
        signed_in = httpx.post(
            f"{server.url}/api/auth/sign-in/email",
            json={"email": "demo@plumbline.local", "password": "Plumbline-Demo-2026!"},
            headers={"Origin": "http://127.0.0.1:8000"},
            timeout=FIRST_CALLS,
        )
        assert signed_in.status_code == 200, signed_in.text
        cookie = signed_in.cookies["auth.session_token"]
        headers = {"Origin": "http://127.0.0.1:8000", "Cookie": f"auth.session_token={cookie}"}
        schema = schemathesis.openapi.from_dict(
            httpx.get(f"{server.url}/api/v1/openapi.json", timeout=FIRST_CALLS).json()
        )
        failures: list[str] = []
        operations = 0
        for result in schema.get_all_operations():
            operation = result.ok()
            if _excluded(operation.method.upper(), operation.path):
                continue
            operations += 1

            @settings(
                max_examples=EXAMPLES,
                deadline=None,
                database=None,
                phases=[Phase.explicit, Phase.generate],
                suppress_health_check=list(HealthCheck),
            )
            @given(case=operation.as_strategy())
            def exercise(case: schemathesis.Case) -> None:
                for name, value in known.items():
                    if case.path_parameters and name in case.path_parameters:
                        case.path_parameters[name] = value
                response = case.call(base_url=server.url, headers=headers, timeout=15)
                case.validate_response(response, checks=CHECKS, headers=headers)

            try:
                exercise()
            except Exception as exc:
                failures.append(f"{operation.method.upper()} {operation.path}: {exc}"[:2000])
        assert operations > 1
        assert failures == [], "\n\n".join(failures)
