"""One CSV export for the record modules: streamed in keyset batches from sessions of its own."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from typing import Any

from fastapi.responses import StreamingResponse
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.db import database

BATCH = 500
# One batch of rows after ``before_id`` (None: the first), newest first, as CSV lines.
Batch = Callable[[AsyncSession, str | None, int], Awaitable[tuple[Sequence[Any], Iterable[Any]]]]


def csv_bytes(rows: Iterable[Sequence[Any]]) -> bytes:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\r\n").writerows(rows)
    return buffer.getvalue().encode()


async def stream(header: Sequence[str], batch: Batch) -> AsyncIterator[bytes]:
    """Runs after the request's unit of work has closed: one short session per batch, so no
    connection, transaction or SQLite write lock is held while a slow client reads.
    ``batch`` returns the batch's rows (for the keyset: each has an ``id``) and its lines."""
    yield csv_bytes([header])
    before_id: str | None = None
    while True:
        async with await database.read_session() as db:
            rows, lines = await batch(db, before_id, BATCH)
            lines = list(lines)
        if lines:
            yield csv_bytes(lines)
        if len(rows) < BATCH:
            return
        before_id = rows[-1].id


def csv_response(body: AsyncIterator[bytes], filename: str) -> StreamingResponse:
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", filename)
    return StreamingResponse(
        body,
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{safe}"'},
    )
