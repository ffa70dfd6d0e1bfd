"""Where room membership lives: a hash per room with compare-and-set writes.

Connection id -> encoded member, and one global sequence number stamped on every change. In
one process it is a dict; with ``PLUMBLINE_REDIS_URL`` it is a Redis hash written by a Lua
script, so every server process sees and changes the same membership atomically. The sequence
lets subscribers discard a presence snapshot older than one they already have (two processes
may publish their snapshots out of order).
"""

from __future__ import annotations

from typing import Any, Protocol

from plumbline.config import settings
from plumbline.kit import pubsub

Entries = dict[str, str]
Change = tuple[int, Entries]

ROOM_TTL_MS = 150_000  # twice the presence timeout: rooms nobody touches disappear
SEQ_TTL_MS = 86_400_000  # any live room changes it far more often than this


class RoomStore(Protocol):
    async def read(self, room: str) -> Entries: ...

    async def get(self, room: str, key: str) -> str | None: ...

    async def snapshot(self, room: str) -> Change:
        """The entries with the sequence number they are current as of (read atomically)."""

    async def cas(
        self, room: str, key: str, expected: str | None, value: str | None, *, entries: bool
    ) -> Change | None:
        """Set (or delete, when ``value`` is None) ``key`` if it still holds ``expected``
        (None: absent); returns the new sequence number and, when asked, the room's entries
        (else {}); None when someone changed the key first."""

    async def clear(self, room: str) -> None: ...


class MemoryRoomStore:
    def __init__(self) -> None:
        self._rooms: dict[str, Entries] = {}
        self._seq = 0

    async def read(self, room: str) -> Entries:
        return dict(self._rooms.get(room, {}))

    async def get(self, room: str, key: str) -> str | None:
        return self._rooms.get(room, {}).get(key)

    async def snapshot(self, room: str) -> Change:
        return self._seq, dict(self._rooms.get(room, {}))

    async def cas(
        self, room: str, key: str, expected: str | None, value: str | None, *, entries: bool
    ) -> Change | None:
        current = self._rooms.get(room, {})
        if current.get(key) != expected:
            return None
        if value is None:
            current.pop(key, None)
        else:
            current[key] = value
        if current:
            self._rooms[room] = current
        else:
            self._rooms.pop(room, None)
        self._seq += 1
        return self._seq, dict(current) if entries else {}

    async def clear(self, room: str) -> None:
        self._rooms.pop(room, None)
        self._seq += 1


_CAS = """
local current = redis.call('HGET', KEYS[1], ARGV[1])
if current == false then current = '' end
if current ~= ARGV[2] then return false end
if ARGV[3] == '' then
  redis.call('HDEL', KEYS[1], ARGV[1])
else
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
local seq = redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
if ARGV[6] == '1' then return {seq, redis.call('HGETALL', KEYS[1])} end
return {seq, {}}
"""


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class RedisRoomStore:
    def __init__(self, url: str, prefix: str) -> None:
        import redis.asyncio as redis

        self._redis = redis.from_url(url)
        self._prefix = prefix
        self._cas = self._redis.register_script(_CAS)

    def _key(self, room: str) -> str:
        return f"{self._prefix}:room:{room}"

    @property
    def _seq_key(self) -> str:
        return f"{self._prefix}:presence-seq"

    async def read(self, room: str) -> Entries:
        raw = await self._redis.hgetall(self._key(room))
        return {_text(k): _text(v) for k, v in raw.items()}

    async def get(self, room: str, key: str) -> str | None:
        value = await self._redis.hget(self._key(room), key)
        return None if value is None else _text(value)

    async def snapshot(self, room: str) -> Change:
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.get(self._seq_key)
            pipe.hgetall(self._key(room))
            seq, raw = await pipe.execute()
        return int(seq or 0), {_text(k): _text(v) for k, v in raw.items()}

    async def cas(
        self, room: str, key: str, expected: str | None, value: str | None, *, entries: bool
    ) -> Change | None:
        result = await self._cas(
            keys=[self._key(room), self._seq_key],
            args=[key, expected or "", value or "", ROOM_TTL_MS, SEQ_TTL_MS, int(entries)],
        )
        if not result:
            return None
        seq, flat = result
        return int(seq), {_text(flat[i]): _text(flat[i + 1]) for i in range(0, len(flat), 2)}

    async def clear(self, room: str) -> None:
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.delete(self._key(room))
            pipe.incr(self._seq_key)
            pipe.pexpire(self._seq_key, SEQ_TTL_MS)
            await pipe.execute()


_store: RoomStore | None = None


def store() -> RoomStore:
    global _store
    if _store is None:
        _store = (
            RedisRoomStore(settings.redis_url, pubsub.prefix())
            if settings.redis_url
            else MemoryRoomStore()
        )
    return _store
