"""Live co-viewing of a file version over Server-Sent Events.

How a room works across processes:

- Events travel on the pub/sub channel ``viewer:<fileVersionId>`` (``kit.pubsub``: in-process
  queues, or Redis when configured), so every stream in every process sees every event.
- Membership lives in a room store (``viewer.presence``: a dict, or a Redis hash when Redis is
  configured) keyed by connection id, written with compare-and-set. The process that changes
  it (a stream joining or leaving, a heartbeat, a sweep) publishes a snapshot read atomically
  with a global sequence number, as a ``presence`` event, at most every 0.2 s per room (up
  to 2 s for rooms of 1,000 viewers, whose snapshots cost members x viewers to deliver);
  streams forward only snapshots newer than the last one they sent. A joining stream gets its
  own snapshot at once.
- The host is computed from the snapshot, never stored: the earliest-joined visible
  connection's user (users who hid their presence are left out of ``members`` and host only
  when nobody visible is in the room), so when the host leaves the next earliest member is.
- A stream whose connection is missing from a newer snapshot (it left, or was swept after 75 s
  without a heartbeat) ends; so does every stream after ``session_ended``. A client reconnects.
- A server asked to stop (SIGTERM) sends each of its streams ``server_closing`` and ends it,
  leaving presence: the client reconnects, to another server behind the same address.
- Every process sweeps the rooms it has streams in every 15 s, and a heartbeat sweeps its room
  (at most once a second), so a connection of a crashed process also leaves presence.

Other modules notify viewers with ``viewer.events.publish_to_version`` (after their commit).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

import anyio
import orjson

from plumbline.kit import clock, pubsub
from plumbline.kit.ids import new_id
from plumbline.viewer.errors import NotHost, UnknownConnection
from plumbline.viewer.events import PING, channel, publish, sse
from plumbline.viewer.presence import Entries, store

log = logging.getLogger("plumbline.viewer")

PING_SECONDS = 25.0
STALE_AFTER = timedelta(seconds=75)
SWEEP_SECONDS = 15.0
HEARTBEAT_SWEEP_SECONDS = 1.0
PRESENCE_DEBOUNCE_SECONDS = 0.2  # small rooms; big rooms wait longer (O(members²) traffic)
PRESENCE_DEBOUNCE_PER_MEMBER = 0.002
PRESENCE_DEBOUNCE_MAX = 2.0
BATCH = 128
CAS_ATTEMPTS = 8
# Offered to this process's own streams only, never published: the others' servers go on.
CLOSING = {"event": "server_closing", "data": {"reconnect": True}}


def _now_ms() -> int:
    return int(clock.now().timestamp() * 1000)


@dataclass(frozen=True)
class Member:
    connection_id: str
    user_id: str
    name: str
    hidden: bool
    page_index: int | None
    joined_ms: int
    seen_ms: int

    def encode(self) -> str:
        return orjson.dumps(
            {
                "u": self.user_id,
                "n": self.name,
                "h": self.hidden,
                "p": self.page_index,
                "j": self.joined_ms,
                "s": self.seen_ms,
            }
        ).decode()

    @classmethod
    def decode(cls, connection_id: str, raw: str) -> Member:
        v = orjson.loads(raw)
        return cls(connection_id, v["u"], v["n"], v["h"], v["p"], v["j"], v["s"])


@dataclass(frozen=True)
class Snapshot:
    seq: int
    members: list[Member]

    @classmethod
    def of(cls, seq: int, entries: Entries) -> Snapshot:
        members = [Member.decode(cid, raw) for cid, raw in entries.items()]
        members.sort(key=lambda m: (m.joined_ms, m.connection_id))
        return cls(seq, members)

    def host_user_id(self) -> str | None:
        pool = [m for m in self.members if not m.hidden] or self.members
        return pool[0].user_id if pool else None

    def presence(self) -> dict[str, Any]:
        """One entry per visible user, in order of joining; the page of their latest heartbeat."""
        users: dict[str, dict[str, Any]] = {}
        seen: dict[str, int] = {}
        for m in self.members:
            if m.hidden:
                continue
            if m.user_id not in users:
                users[m.user_id] = {"userId": m.user_id, "name": m.name, "pageIndex": m.page_index}
                seen[m.user_id] = m.seen_ms
            elif m.seen_ms >= seen[m.user_id]:
                users[m.user_id]["pageIndex"] = m.page_index
                seen[m.user_id] = m.seen_ms
        return {"members": list(users.values()), "hostUserId": self.host_user_id()}

    def envelope(self) -> dict[str, Any]:
        return {
            "event": "presence",
            "data": self.presence(),
            "seq": self.seq,
            "connections": [m.connection_id for m in self.members],
        }


@dataclass
class Viewer:
    user_id: str
    name: str
    hidden: bool


class Hub:
    """This process's streams and counters; the room state itself is in the room store."""

    def __init__(self) -> None:
        self.local: dict[str, set[str]] = {}
        self.heartbeats = 0
        self.connections_total = 0
        self.presence_swept = 0
        self.sessions_ended = 0
        self._sweeper: asyncio.Task[None] | None = None
        self._pending: dict[str, asyncio.Task[None]] = {}
        self._running: set[asyncio.Task[None]] = set()  # strong references until done
        self._last_sweep: dict[str, float] = {}
        self._room_size: dict[str, int] = {}
        self._streams: dict[str, pubsub.Subscription] = {}  # this process's, by connection

    # streams

    async def stream(self, file_version_id: str, viewer: Viewer) -> AsyncIterator[bytes]:
        """The SSE body of one connection; ends on disconnect, removal or session end."""
        connection_id = new_id()
        subscription = pubsub.subscribe(channel(file_version_id))
        self._streams[connection_id] = subscription
        joined = False
        try:
            await subscription.ready()
            now = _now_ms()
            member = Member(
                connection_id, viewer.user_id, viewer.name, viewer.hidden, None, now, now
            )
            change = await store().cas(
                file_version_id, connection_id, None, member.encode(), entries=True
            )
            if change is None:
                raise RuntimeError("a fresh connection id was already in the room")
            joined = True
            self._register(file_version_id, connection_id)
            self._presence_changed(file_version_id)
            snapshot = Snapshot.of(*change)
            yield sse(
                "hello", {"connectionId": connection_id, "hostUserId": snapshot.host_user_id()}
            )
            yield sse("presence", snapshot.presence())
            last_seq = snapshot.seq
            loop = asyncio.get_running_loop()
            next_ping = loop.time() + PING_SECONDS
            while True:
                first = await subscription.next(max(next_ping - loop.time(), 0.0))
                if first is None:
                    yield PING
                    next_ping = loop.time() + PING_SECONDS
                    continue
                batch = [first]
                while len(batch) < BATCH and (more := subscription.next_nowait()) is not None:
                    batch.append(more)
                chunk, last_seq, ended = _render(batch, connection_id, last_seq)
                if chunk:
                    yield chunk
                if ended:
                    if ended == "removed":
                        joined = False
                    return
        except pubsub.SubscriptionClosed:
            log.info("viewer stream dropped as a slow consumer")
        finally:
            subscription.close()
            self._streams.pop(connection_id, None)
            self._unregister(file_version_id, connection_id)
            if joined:
                # shielded: a disconnect arrives as a cancellation, and the room must still
                # learn that this connection left
                with anyio.CancelScope(shield=True):
                    try:
                        await self._remove(file_version_id, connection_id, None)
                    except Exception:
                        log.warning("viewer connection not removed", exc_info=True)

    def _register(self, file_version_id: str, connection_id: str) -> None:
        self.local.setdefault(file_version_id, set()).add(connection_id)
        self.connections_total += 1
        if self._sweeper is None or self._sweeper.done():
            self._sweeper = asyncio.create_task(self._sweep_loop(), name="viewer-presence-sweeper")

    def _unregister(self, file_version_id: str, connection_id: str) -> None:
        connections = self.local.get(file_version_id)
        if connections is not None:
            connections.discard(connection_id)
            if not connections:
                del self.local[file_version_id]

    def close_streams(self) -> None:
        """The server is stopping: each stream of this process sends ``server_closing`` and
        ends (its connection leaves presence), so the server's shutdown does not wait on it."""
        for subscription in list(self._streams.values()):
            subscription.offer(CLOSING)

    # presence changes

    async def heartbeat(
        self, file_version_id: str, connection_id: str, user_id: str, page_index: int | None
    ) -> None:
        self.heartbeats += 1
        moved = False
        for _ in range(CAS_ATTEMPTS):
            raw = await store().get(file_version_id, connection_id)
            member = _own(connection_id, raw, user_id)
            page = member.page_index if page_index is None else page_index
            updated = replace(member, page_index=page, seen_ms=_now_ms())
            if await store().cas(
                file_version_id, connection_id, raw, updated.encode(), entries=False
            ):
                moved = page != member.page_index
                break
        if moved:
            self._presence_changed(file_version_id)
        now = clock.now().timestamp()
        if now - self._last_sweep.get(file_version_id, 0.0) >= HEARTBEAT_SWEEP_SECONDS:
            if len(self._last_sweep) > 10_000:
                self._last_sweep.clear()
            self._last_sweep[file_version_id] = now
            await self.sweep(file_version_id)

    async def leave(self, file_version_id: str, connection_id: str, user_id: str) -> None:
        if not await self._remove(file_version_id, connection_id, user_id):
            raise UnknownConnection()

    async def _remove(self, file_version_id: str, connection_id: str, user_id: str | None) -> bool:
        """Take the connection out of the room and publish the change; False when absent."""
        for _ in range(CAS_ATTEMPTS):
            raw = await store().get(file_version_id, connection_id)
            if raw is None:
                return False
            if user_id is not None:
                _own(connection_id, raw, user_id)
            if await store().cas(file_version_id, connection_id, raw, None, entries=False):
                self._presence_changed(file_version_id)
                return True
        return False

    async def end_session(self, file_version_id: str, user_id: str) -> None:
        snapshot = Snapshot.of(0, await store().read(file_version_id))
        if snapshot.host_user_id() != user_id:
            raise NotHost()
        await store().clear(file_version_id)
        self.sessions_ended += 1
        await publish(file_version_id, {"event": "session_ended", "data": {"endedBy": user_id}})

    async def sweep(self, file_version_id: str) -> bool:
        """Remove connections without a heartbeat for 75 s; True when any was removed."""
        cutoff = _now_ms() - int(STALE_AFTER.total_seconds() * 1000)
        swept = False
        for connection_id, raw in (await store().read(file_version_id)).items():
            if Member.decode(connection_id, raw).seen_ms < cutoff and await store().cas(
                file_version_id, connection_id, raw, None, entries=False
            ):
                self.presence_swept += 1
                swept = True
        if swept:
            self._presence_changed(file_version_id)
        return swept

    def _presence_changed(self, file_version_id: str) -> None:
        """Publish the room's snapshot shortly (once for all changes in the window)."""
        if file_version_id not in self._pending:
            task = asyncio.create_task(
                self._publish_presence(file_version_id), name="viewer-presence"
            )
            self._pending[file_version_id] = task
            self._running.add(task)
            task.add_done_callback(self._running.discard)

    async def _publish_presence(self, file_version_id: str) -> None:
        size = self._room_size.get(file_version_id, 0)
        await asyncio.sleep(
            min(
                PRESENCE_DEBOUNCE_SECONDS + PRESENCE_DEBOUNCE_PER_MEMBER * size,
                PRESENCE_DEBOUNCE_MAX,
            )
        )
        # changes from here on schedule another publication; this one may already include them
        self._pending.pop(file_version_id, None)
        try:
            snapshot = Snapshot.of(*await store().snapshot(file_version_id))
        except Exception:
            log.warning("presence not read", exc_info=True)
            return
        if snapshot.members:
            self._room_size[file_version_id] = len(snapshot.members)
        else:
            self._room_size.pop(file_version_id, None)
        await publish(file_version_id, snapshot.envelope())

    async def _sweep_loop(self) -> None:
        while self.local:
            await asyncio.sleep(SWEEP_SECONDS)
            for file_version_id in list(self.local):
                try:
                    await self.sweep(file_version_id)
                except Exception:
                    log.warning("presence sweep failed", exc_info=True)

    def metrics(self) -> dict[str, Any]:
        stats = pubsub.stats()
        return {
            "connectionsOpen": sum(len(c) for c in self.local.values()),
            "rooms": len(self.local),
            "eventsPublished": stats["eventsPublished"],
            "eventsDelivered": stats["eventsDelivered"],
            "eventsDropped": stats["eventsDropped"],
            "slowConsumersDropped": stats["slowConsumersDropped"],
            "heartbeats": self.heartbeats,
            "connectionsTotal": self.connections_total,
            "presenceSwept": self.presence_swept,
            "sessionsEnded": self.sessions_ended,
            "backend": stats["backend"],
        }


def _own(connection_id: str, raw: str | None, user_id: str) -> Member:
    """The caller's own connection, or 404 (another user's connection id reveals nothing)."""
    if raw is None:
        raise UnknownConnection()
    member = Member.decode(connection_id, raw)
    if member.user_id != user_id:
        raise UnknownConnection()
    return member


def _render(
    batch: list[dict[str, Any]], connection_id: str, last_seq: int
) -> tuple[bytes, int, str | None]:
    """SSE bytes for a batch of envelopes. Presence snapshots collapse to the newest one;
    ends with "removed" when that snapshot no longer holds this connection, "ended" after
    ``session_ended``, "closing" after ``server_closing`` (this server stops)."""
    newest = max(
        (i for i, e in enumerate(batch) if e.get("event") == "presence" and e["seq"] > last_seq),
        key=lambda i: batch[i]["seq"],
        default=None,
    )
    parts: list[bytes] = []
    for i, envelope in enumerate(batch):
        name = envelope.get("event")
        if name == "presence":
            if i != newest:
                continue
            last_seq = envelope["seq"]
            if connection_id not in envelope["connections"]:
                return b"".join(parts), last_seq, "removed"
            parts.append(sse("presence", envelope["data"]))
        elif name == "session_ended":
            parts.append(sse("session_ended", envelope.get("data", {})))
            return b"".join(parts), last_seq, "ended"
        elif name == "server_closing":
            parts.append(sse("server_closing", envelope.get("data", {})))
            return b"".join(parts), last_seq, "closing"
        elif isinstance(name, str):
            parts.append(sse(name, envelope.get("data", {})))
    return b"".join(parts), last_seq, None


hub = Hub()
