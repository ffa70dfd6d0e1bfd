"""One attempt: POST the signed body to the checked address, 10 s at most, no redirect
followed, and what came back (status, duration, the first KiB of the answer, the error)."""

from __future__ import annotations

import ssl
import time
from dataclasses import dataclass
from functools import cache
from typing import Any

import certifi
import httpx

from plumbline.webhook import targets

TIMEOUT_SECONDS = 10.0
KEPT_BYTES = 1024


@dataclass(frozen=True)
class Attempt:
    ok: bool
    status_code: int | None
    duration_ms: int
    response: str | None
    error: str | None

    def log(self, at: str | None) -> dict[str, Any]:
        """The attempt as the deliveries list shows it."""
        return {
            "at": at,
            "statusCode": self.status_code,
            "durationMs": self.duration_ms,
            "response": self.response,
            "error": self.error,
        }


@cache
def _tls() -> ssl.SSLContext:
    # One context for every attempt: loading the CA bundle costs more than the request.
    return ssl.create_default_context(cafile=certifi.where())


def _url(url: str, target: targets.Target) -> httpx.URL:
    """``url`` with the checked address as its host."""
    return httpx.URL(url).copy_with(host=str(target.address))


def _host_header(target: targets.Target) -> str:
    default = 443 if target.scheme == "https" else 80
    host = f"[{target.host}]" if ":" in target.host else target.host
    return host if target.port == default else f"{host}:{target.port}"


async def send(url: str, headers: dict[str, str], body: str) -> Attempt:
    """Never raises: a refused target, a timeout or a refusal by the receiver is a failed
    ``Attempt`` saying why; a 2xx answer is the only success."""
    started = time.perf_counter()

    def failed(error: str, status: int | None = None, text: str | None = None) -> Attempt:
        elapsed = round((time.perf_counter() - started) * 1000)
        return Attempt(False, status, elapsed, text, error)

    try:
        target = await targets.target(url)
    except targets.Refused as exc:
        return failed(str(exc))
    # The address just checked, named in the URL: the connection cannot land elsewhere. The
    # Host header and the TLS server name (certificate check included) stay the URL's host.
    extensions = {"sni_hostname": target.host} if target.scheme == "https" else {}
    request_headers = {**headers, "host": _host_header(target)}
    try:
        async with (
            httpx.AsyncClient(
                verify=_tls(), timeout=TIMEOUT_SECONDS, follow_redirects=False, trust_env=False
            ) as client,
            client.stream(
                "POST",
                _url(url, target),
                content=body.encode(),
                headers=request_headers,
                extensions=extensions,
            ) as response,
        ):
            kept = b""
            async for chunk in response.aiter_bytes():
                kept += chunk
                if len(kept) >= KEPT_BYTES:
                    break
    except httpx.TimeoutException:
        return failed(f"No answer within {TIMEOUT_SECONDS:.0f} s")
    except httpx.HTTPError as exc:
        return failed(f"{type(exc).__name__}: {exc}"[:500] if str(exc) else type(exc).__name__)
    text = kept[:KEPT_BYTES].decode("utf-8", "replace")
    status = response.status_code
    elapsed = round((time.perf_counter() - started) * 1000)
    if 200 <= status < 300:
        return Attempt(True, status, elapsed, text, None)
    if 300 <= status < 400:
        return failed(f"HTTP {status}: redirects are not followed", status, text)
    return failed(f"HTTP {status}", status, text)
