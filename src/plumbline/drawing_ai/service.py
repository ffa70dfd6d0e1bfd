"""The drawing AI's rules: read the stored page, compute once per version, page and kind, and
answer from the cache after; chat is never cached (each question differs) and is limited to
40 per 10 minutes per user."""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
from collections.abc import AsyncIterator
from typing import IO, Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_change
from plumbline.authz.files import VersionAccess
from plumbline.db import UnitOfWork
from plumbline.drawing_ai import chat, llm, repository, sandbox
from plumbline.drawing_ai.analysis.summary import read_summary
from plumbline.drawing_ai.analysis.takeoff import read_takeoff, select
from plumbline.drawing_ai.errors import NotAPdf
from plumbline.drawing_ai.extract import PageContent
from plumbline.errors import found
from plumbline.kit import clock, ratelimit
from plumbline.kit.storage import get_storage
from plumbline.kit.storage.local import LocalStorage
from plumbline.models import FileVersion

CHAT_LIMIT = 40
CHAT_WINDOW_SECONDS = 600
SUMMARY, TAKEOFF = "summary", "takeoff"
ENTITY = "file_version"


@contextlib.asynccontextmanager
async def stored_pdf(version: FileVersion) -> AsyncIterator[str]:
    """The path of a file holding the version's bytes, for the reading worker to open: the
    local object itself, or an object-store download written to a temporary file in 1 MiB
    chunks (never held whole in memory)."""
    storage = get_storage()
    size = found(
        await storage.head(version.storage_key), "The file version's content is not in storage"
    )
    if size == 0:
        raise NotAPdf()
    if isinstance(storage, LocalStorage):
        yield str(storage.path(version.storage_key))
        return
    spool: IO[bytes] = tempfile.NamedTemporaryFile(suffix=".pdf")  # noqa: SIM115
    try:
        async for chunk in storage.open_range(version.storage_key, 0, size - 1):
            await asyncio.to_thread(spool.write, chunk)
        await asyncio.to_thread(spool.flush)
        yield spool.name
    finally:
        await asyncio.to_thread(spool.close)


async def load_page(uow: UnitOfWork, version: FileVersion, page_index: int) -> PageContent:
    """The page, read in a worker process (``sandbox``) and then worded by the LLM with no
    transaction open: the access check's reads are committed first (``commit_reads``)."""
    await uow.commit_reads()
    async with stored_pdf(version) as path:
        return await sandbox.read(path, page_index)


def sheet_text(page: PageContent) -> str:
    return "\n".join(p.text for p in page.phrases)[:20_000]


class DrawingAI:
    async def _cached(
        self, db: AsyncSession, access: VersionAccess, page_index: int, kind: str
    ) -> dict[str, Any] | None:
        cached = await repository.results(db, access.version.id, page_index, (kind,))
        return cached[kind][0] if kind in cached else None

    async def _store(
        self,
        db: AsyncSession,
        access: VersionAccess,
        page_index: int,
        kind: str,
        result: dict[str, Any],
    ) -> dict[str, Any]:
        """Keep the result; when another request stored the page first, answer theirs."""
        version = access.version
        stored = await repository.store(
            db,
            {
                "file_version_id": version.id,
                "project_id": version.project_id,
                "workspace_id": version.workspace_id,
                "page_index": page_index,
                "kind": kind,
                "result": result,
                "created_by": access.user_id,
                "created_at": clock.now(),
            },
        )
        if not stored:
            return await self._cached(db, access, page_index, kind) or result
        await audit_change(
            db,
            access.ctx,
            (ENTITY, version.id),
            f"drawing_ai.{kind}_computed",
            {"pageIndex": [None, page_index]},
        )
        return result

    async def summary(
        self, uow: UnitOfWork, access: VersionAccess, page_index: int
    ) -> dict[str, Any]:
        db = uow.session
        cached = await self._cached(db, access, page_index, SUMMARY)
        if cached is not None:
            return cached
        page = await load_page(uow, access.version, page_index)
        result = read_summary(page)
        written = await llm.summary_markdown(result, sheet_text(page))
        if written:
            result["summaryMarkdown"] = written
        return await self._store(db, access, page_index, SUMMARY, result)

    async def takeoff(
        self, uow: UnitOfWork, access: VersionAccess, page_index: int, categories: list[str]
    ) -> dict[str, Any]:
        """Every category is computed and cached at once; the answer holds those asked for."""
        db = uow.session
        result = await self._cached(db, access, page_index, TAKEOFF)
        if result is None:
            page = await load_page(uow, access.version, page_index)
            result = await self._store(db, access, page_index, TAKEOFF, read_takeoff(page))
        return select(result, categories)

    async def chat(
        self,
        uow: UnitOfWork,
        access: VersionAccess,
        page_index: int,
        messages: list[dict[str, str]],
    ) -> dict[str, Any]:
        await ratelimit.hit(f"drawing-ai-chat:{access.user_id}", CHAT_LIMIT, CHAT_WINDOW_SECONDS)
        page = await load_page(uow, access.version, page_index)
        local = chat.answer(page, messages)
        written = await llm.chat_reply(messages, local["citations"], local["answered"])
        return {"reply": written or local["reply"], "citations": local["citations"]}

    async def cache(
        self, db: AsyncSession, access: VersionAccess, page_index: int
    ) -> dict[str, Any]:
        cached = await repository.results(db, access.version.id, page_index, (SUMMARY, TAKEOFF))
        summary, takeoff = cached.get(SUMMARY), cached.get(TAKEOFF)
        return {
            "fileVersionId": access.version.id,
            "pageIndex": page_index,
            "summary": summary[0] if summary else None,
            "summaryComputedAt": clock.iso(summary[1]) if summary else None,
            "takeoff": takeoff[0] if takeoff else None,
            "takeoffComputedAt": clock.iso(takeoff[1]) if takeoff else None,
        }


drawing_ai = DrawingAI()
