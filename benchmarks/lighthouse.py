"""Lighthouse (npm ``lighthouse``, package.json) on four pages of a seeded demo, as a phone.

``python -m benchmarks.lighthouse``: a fresh SQLite database in a temporary directory,
``plumbline serve --demo`` on a free port, the demo login signed in (its session cookie sent
through ``--extra-headers``), then Lighthouse's mobile run (its default form factor) with
Debian's Chromium (``CHROME_PATH``, /usr/bin/chromium unless set; ``--headless=new
--no-sandbox``) on the workspace home, the project home, the issue list and an issue page;
prints performance / accessibility / best-practices per page. Needs ``npm ci`` first.

Not in ``BENCHMARKS`` and no ``check()``: four Lighthouse runs take minutes, and the figures are
scores, not a ratio against a baseline.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from benchmarks.harness import START_SECONDS, free_port

ROOT = Path(__file__).resolve().parents[1]
LIGHTHOUSE = ROOT / "node_modules" / ".bin" / "lighthouse"
DEMO = {"email": "demo@plumbline.local", "password": "Plumbline-Demo-2026!"}
CATEGORIES = ("performance", "accessibility", "best-practices")


def _pages(client: httpx.Client) -> dict[str, str]:
    """The four pages' paths, found by following the app from ``/app/``."""
    home = client.get("/app/", follow_redirects=True)
    assert home.status_code == 200, home.status_code
    workspace = home.url.path
    project = re.search(r'href="(/app/projects/[0-9a-f]+)"', home.text)
    assert project, "no project on the workspace home"
    issues = f"{project[1]}/issues"
    listing = client.get(issues)
    issue = re.search(rf'href="({issues}/[0-9a-f]+)"', listing.text)
    assert issue, "no issue in the list"
    return {
        "workspace home": workspace,
        "project home": project[1],
        "issue list": issues,
        "issue page": issue[1],
    }


def _lighthouse(url: str, cookie: str, out: Path) -> dict[str, float]:
    env = {**os.environ, "CHROME_PATH": os.environ.get("CHROME_PATH", "/usr/bin/chromium")}
    args = [
        str(LIGHTHOUSE), url, "--quiet", "--output=json", f"--output-path={out}",
        "--chrome-flags=--headless=new --no-sandbox",
        f"--only-categories={','.join(CATEGORIES)}",
        "--extra-headers", json.dumps({"Cookie": f"auth.session_token={cookie}"}),
    ]  # fmt: skip
    subprocess.run(args, env=env, check=True, timeout=600)
    report = json.loads(out.read_text())
    return {c: report["categories"][c]["score"] for c in CATEGORIES}


def main() -> None:
    if not LIGHTHOUSE.exists():
        raise SystemExit("no lighthouse: run `npm ci`")
    with tempfile.TemporaryDirectory(prefix="plumbline-lighthouse-") as tmp:
        var = Path(tmp)
        port = free_port()
        env = {
            **os.environ,
            "PLUMBLINE_DATABASE_URL": f"sqlite+aiosqlite:///{var / 'demo.db'}",
            "PLUMBLINE_VAR_DIR": str(var),
            "PLUMBLINE_STORAGE_DIR": str(var / "objects"),
            "PLUMBLINE_OUTBOX_DIR": str(var / "outbox"),
            "PLUMBLINE_LOG_LEVEL": "WARNING",
        }
        cli = [sys.executable, "-m", "plumbline.cli"]
        subprocess.run([*cli, "db", "upgrade"], env=env, check=True, capture_output=True)
        server = subprocess.Popen(
            [*cli, "serve", "--host", "127.0.0.1", "--port", str(port), "--demo"],
            env=env,
            stdout=subprocess.DEVNULL,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            # Seeding the demo comes first: on a busy machine, minutes.
            deadline = time.monotonic() + max(START_SECONDS, 600)
            while True:
                try:
                    httpx.get(base + "/", timeout=1)
                    break
                except httpx.TransportError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        raise SystemExit("plumbline serve --demo did not start") from None
                    time.sleep(0.5)
            with httpx.Client(base_url=base, timeout=60) as client:
                signed = client.post("/api/auth/sign-in/email", json=DEMO)
                assert signed.status_code == 200, signed.text[:300]
                cookie = client.cookies["auth.session_token"]
                pages = _pages(client)
            print(
                f"Lighthouse (mobile) on the demo at {base}, Chromium {os.environ.get('CHROME_PATH', '/usr/bin/chromium')}"
            )
            print(f"  {'page':16} {'performance':>12} {'accessibility':>14} {'best-practices':>15}")
            for name, path in pages.items():
                scores = _lighthouse(base + path, cookie, var / f"{name.replace(' ', '-')}.json")
                row = "".join(
                    f" {round(scores[c] * 100):>{w}}"
                    for c, w in zip(CATEGORIES, (12, 14, 15), strict=True)
                )
                print(f"  {name:16}{row}   {path}", flush=True)
        finally:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()


if __name__ == "__main__":
    main()
