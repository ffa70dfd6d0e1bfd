"""A newcomer's first run, as processes: `make run PORT=<free port>` on a fresh SQLite database says
which migrations it applied, prints the demo banner last and alone with every link on the port
served, e-mails and `plumbline demo --new-key` use that port too, and SIGTERM stops it cleanly
(make exits 0). One `make run` serves the module; the last but one test stops it, and the last
runs `make run` again on the same database, as a newcomer coming back does."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path

import httpx
import pytest
from alembic.script import ScriptDirectory

from plumbline.migrate import alembic_config
from tests.factories import link_in, read_mails
from tests.live import STARTUP, free_port

ROOT = Path(__file__).resolve().parents[2]
READY = "Plumbline is ready at "
BANNER = "Plumbline demo seeded at "


@dataclass
class FirstRun:
    url: str
    env: dict[str, str]
    outbox: Path
    process: subprocess.Popen[str]
    lines: list[str] = field(default_factory=list)  # stdout and stderr, as a terminal shows them
    ready: threading.Event = field(default_factory=threading.Event)

    def read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))
            if line.startswith(READY):
                self.ready.set()
        self.ready.set()  # the process ended: the waiting test looks at what it printed

    def banner(self, first: str = BANNER) -> list[str]:
        start = next(i for i, line in enumerate(self.lines) if line.startswith(first))
        end = next(i for i, line in enumerate(self.lines) if line.startswith(READY))
        return self.lines[start : end + 1]


def fresh_env(var: Path) -> dict[str, str]:
    """The suite's environment on a database and directories of their own, with no public URL
    or origins set (the served port decides), logging at INFO (the lines a newcomer sees)."""
    env = {
        **os.environ,
        "PLUMBLINE_VAR_DIR": str(var),
        "PLUMBLINE_DATABASE_URL": f"sqlite+aiosqlite:///{var}/plumbline.db",
        "PLUMBLINE_STORAGE_DIR": str(var / "objects"),
        "PLUMBLINE_OUTBOX_DIR": str(var / "outbox"),
        "PLUMBLINE_LOG_LEVEL": "INFO",
        "NO_COLOR": "1",
        "COLUMNS": "300",
    }
    for name in ("PLUMBLINE_PUBLIC_URL", "PLUMBLINE_TRUSTED_ORIGINS", "MAKEFLAGS", "MAKELEVEL"):
        env.pop(name, None)
    return env


@contextmanager
def make_run(env: dict[str, str], outbox: Path) -> Iterator[FirstRun]:
    """`make run` on a free port, once it printed that it is ready; killed after if still up."""
    port = free_port()
    # `-o install-server`: the suite's environment is installed already (make test did it).
    process = subprocess.Popen(
        ["make", "-o", "install-server", "run", f"PORT={port}"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its own process group, to find the server in and clean up
    )
    run = FirstRun(f"http://127.0.0.1:{port}", env, outbox, process)
    reader = threading.Thread(target=run.read, daemon=True)
    reader.start()
    try:
        # A safety bound on the start (migrations, the demo, the app), never a timed assertion.
        run.ready.wait(2 * STARTUP)
        assert any(line.startswith(READY) for line in run.lines), "\n".join(run.lines)
        yield run
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        reader.join(10)


@pytest.fixture(scope="module")
def first_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FirstRun]:
    var = tmp_path_factory.mktemp("first-run")
    with make_run(fresh_env(var), var / "outbox") as run:
        yield run


def _server_pid(group: int) -> int:
    """The `plumbline serve` process in the process group of `make run`."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        process_group = int(stat.rsplit(")", 1)[1].split()[2])
        if process_group == group and b"serve" in command and b"run" not in command:
            return int(entry.name)
    raise AssertionError("no plumbline serve process under make run")


def _mail_to(outbox: Path, address: str) -> EmailMessage:
    """The e-mail to ``address``, once the server's inline job has written it (after the
    response); the bound is a safety net, never a timed assertion."""
    deadline = time.monotonic() + STARTUP
    while not (mails := read_mails(outbox, to=address)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert mails, f"no e-mail to {address}"
    return mails[-1]


def _head() -> tuple[int, str]:
    script = ScriptDirectory.from_config(alembic_config())
    head = script.get_current_head()
    assert head is not None
    return len(list(script.walk_revisions())), head


def test_first_run_says_which_migrations_it_applied(first_run: FirstRun) -> None:
    count, head = _head()
    assert f"Applied {count} migrations: 0001_foundation \u2192 {head}." in first_run.lines
    assert "Database is up to date." not in first_run.lines


def test_the_banner_comes_last_and_alone(first_run: FirstRun) -> None:
    banner = first_run.banner()
    assert banner[0] == f"{BANNER}{first_run.url}"
    assert banner[-1].startswith(f"{READY}{first_run.url} ")
    assert [line for line in banner if line.lstrip().startswith("{")] == []
    assert any("sign in:" in line for line in banner) and any("API key:" in line for line in banner)
    # where to sign in, on the port served
    assert f"               at {first_run.url}/account/sign-in" in banner
    # after the server's startup lines
    started = next(i for i, line in enumerate(first_run.lines) if "startup complete" in line)
    assert started < first_run.lines.index(banner[0])


def test_links_mails_and_new_keys_use_the_served_port(first_run: FirstRun) -> None:
    links = [link for line in first_run.banner() for link in re.findall(r"https?://\S+", line)]
    assert len(links) >= 5
    served = re.compile(rf"{re.escape(first_run.url)}(/|$)")
    assert [link for link in links if not served.match(link)] == [], links
    # the e-mails written while the demo was seeded (a proposal sent to its client)
    proposal = read_mails(first_run.outbox, to="priya.shah@example.com")
    assert proposal and link_in(proposal[0]).startswith(first_run.url + "/portal/proposals/")
    # an e-mail the running server sends
    sent = httpx.post(
        first_run.url + "/api/auth/request-password-reset",
        json={"email": "demo@plumbline.local"},
        headers={"Origin": first_run.url},
        timeout=60,
    )
    assert sent.status_code == 200, sent.text
    assert link_in(_mail_to(first_run.outbox, "demo@plumbline.local")).startswith(
        first_run.url + "/"
    )
    # a key minted later, by another command, links to the same port
    minted = subprocess.run(
        [sys.executable, "-m", "plumbline.cli", "demo", "--new-key"],
        env=first_run.env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert minted.returncode == 0, minted.stdout + minted.stderr
    assert f"demo key minted at {first_run.url}\n" in minted.stdout
    assert "curl -H 'x-api-key: psk_" in minted.stdout
    assert f" {first_run.url}/api/v1/projects/" in minted.stdout


def test_sigterm_stops_make_run_cleanly(first_run: FirstRun) -> None:
    os.kill(_server_pid(first_run.process.pid), signal.SIGTERM)
    assert first_run.process.wait(timeout=STARTUP) == 0, "\n".join(first_run.lines[-20:])
    first_run.ready.wait(10)
    assert [line for line in first_run.lines if line.startswith("make: ***")] == []


def _links(banner: list[str]) -> dict[str, str]:
    """The banner's links by their label (`  label: URL`), the curl example's aside."""
    found = (re.fullmatch(r"\s+(.+?):\s+(https?://\S+)", line) for line in banner)
    return {match.group(1): match.group(2) for match in found if match}


def test_a_second_make_run_prints_the_demo_and_the_same_links_again(first_run: FirstRun) -> None:
    seeded = first_run.banner()
    if first_run.process.poll() is None:  # run alone: stop the first `make run` here
        os.kill(_server_pid(first_run.process.pid), signal.SIGTERM)
        first_run.process.wait(timeout=STARTUP)
    with make_run(first_run.env, first_run.outbox) as again:
        assert again.url != first_run.url  # another port: the links follow it
        first_line = f"Plumbline demo at {again.url} "
        assert any(line.startswith(first_line) for line in again.lines), "\n".join(again.lines)
        banner = again.banner(first_line)
        text = "\n".join(banner)
        assert "seeded on an earlier run" in banner[0] and banner[-1].startswith(READY)
        # the same login, where to sign in, the same ids
        assert "demo@plumbline.local / Plumbline-Demo-2026!" in text
        assert f"               at {again.url}/account/sign-in" in banner
        ids = re.compile(r"workspace:\s+(\S+)\s+project: (\S+)")
        first_ids, ids_again = ids.search("\n".join(seeded)), ids.search(text)
        assert first_ids and ids_again and first_ids.groups() == ids_again.groups()
        # keys are stored hashed: never shown twice, but how to get one is
        assert "psk_" not in text and "plumbline demo --new-key" in text
        # every link the first run printed, on this port
        links = _links(banner)
        first_links = {
            label: link.replace(first_run.url, again.url) for label, link in _links(seeded).items()
        }
        assert len(first_links) >= 6 and first_links == links, text
        with httpx.Client(base_url=again.url, timeout=60) as http:
            for label, link in links.items():
                if "/portal/" in link or link.endswith(".ics"):  # the links with a token
                    opened = http.get(link)
                    assert opened.status_code == 200, f"{label}: {link} {opened.status_code}"
            assert http.get("/account/sign-in").status_code == 200
        os.kill(_server_pid(again.process.pid), signal.SIGTERM)
        assert again.process.wait(timeout=STARTUP) == 0, "\n".join(again.lines[-20:])
