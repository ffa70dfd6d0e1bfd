"""A webhook receiver on 127.0.0.1: a real HTTP server in a thread that answers each POST with
the next of its statuses (the last repeats) and keeps what it received."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType

from standardwebhooks.webhooks import Webhook


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def id(self) -> str:
        return self.headers["webhook-id"]

    def verify(self, secret: str) -> dict[str, object]:
        """The body, once its signature checks out with ``secret`` (standardwebhooks)."""
        return Webhook(secret).verify(self.body, self.headers)  # type: ignore[no-any-return]


class Receiver:
    def __init__(self, *statuses: int, body: bytes = b"ok", delay: float = 0) -> None:
        """``delay``: seconds each answer waits before it is sent (a receiver too slow)."""
        self.statuses = list(statuses or (200,))
        self.answer = body
        self.received: list[Received] = []
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length)
                headers = {name.lower(): value for name, value in self.headers.items()}
                with receiver._lock:
                    receiver.received.append(Received(self.path, headers, body))
                    status = receiver.statuses[
                        min(len(receiver.received), len(receiver.statuses)) - 1
                    ]
                time.sleep(delay)
                self.send_response(status)
                if 300 <= status < 400:
                    self.send_header("Location", "http://127.0.0.1:9/elsewhere")
                self.send_header("Content-Length", str(len(receiver.answer)))
                self.end_headers()
                self.wfile.write(receiver.answer)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/hooks/plumbline"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Receiver:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.server.shutdown()
        self.server.server_close()

    def ids(self) -> list[str]:
        with self._lock:
            return [r.id for r in self.received]
