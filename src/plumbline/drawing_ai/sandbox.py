"""Pages are read in worker processes, each read with a memory ceiling and a deadline.

A PDF is the uploader's to craft: a 2 MB content stream can inflate to gigabytes (a
decompression bomb) or hold millions of operators. Read in the server's own process, such a
page would take its memory, or all of it. Here it costs one read: past
``PLUMBLINE_DRAWING_AI_MEMORY_MB`` of address space or ``PLUMBLINE_DRAWING_AI_SECONDS`` the
worker gives up on the page (400 ``PAGE_TOO_COMPLEX``) and reads the next one. A worker that
dies all the same (killed from outside) is replaced, and the reads it held are tried once more
on the new ones.

The workers are started (``spawn``) on first use and stay warm: a sheet reads in tens of
milliseconds, the PDF library takes ten times that to import. ``spawn`` imports the main module
in each worker, so a script that reads pages runs its work under ``if __name__ == "__main__"``
(console scripts and ``python -m`` modules do already).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import resource
import signal
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from plumbline.config import settings
from plumbline.drawing_ai.errors import PageTooComplex
from plumbline.drawing_ai.extract import PageContent, read_page
from plumbline.errors import AppError

MiB = 1024 * 1024
WORKER_READS = 200  # reads before a worker is replaced by a fresh process

_pool: ProcessPoolExecutor | None = None


class _OverTime(BaseException):
    """Raised by the read's timer; a BaseException, so that no ``except Exception`` of the PDF
    library (nor of ``extract``) takes it for a damaged file."""


def _over_time(*_: Any) -> None:
    raise _OverTime()


def _read(path: str, page_index: int, memory: int, seconds: float) -> PageContent | AppError:
    """In the worker: one page under this read's limits; a refusal is returned, not raised."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    ceiling = memory if hard == resource.RLIM_INFINITY else min(memory, hard)
    resource.setrlimit(resource.RLIMIT_AS, (ceiling, hard))
    signal.signal(signal.SIGALRM, _over_time)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        try:
            with open(path, "rb") as stream:
                return read_page(stream, page_index)
        finally:  # a timer firing here, as the read ends, is still caught below
            signal.setitimer(signal.ITIMER_REAL, 0)
    except AppError as refusal:
        return refusal
    except (MemoryError, _OverTime):
        return PageTooComplex()
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _workers() -> ProcessPoolExecutor:
    global _pool
    if _pool is None:
        _pool = ProcessPoolExecutor(
            max_workers=settings.drawing_ai_workers,
            mp_context=multiprocessing.get_context("spawn"),
            max_tasks_per_child=WORKER_READS,
        )
    return _pool


async def _in_worker(*args: Any) -> PageContent | AppError:
    """``_read`` in a worker; a pool whose worker died is dropped (the next read makes one)."""
    global _pool
    pool = _workers()
    try:
        return await asyncio.get_running_loop().run_in_executor(pool, _read, *args)
    except BrokenProcessPool:
        if _pool is pool:
            _pool = None
        pool.shutdown(wait=False, cancel_futures=True)
        raise


async def read(path: str, page_index: int) -> PageContent:
    """Page ``page_index`` of the PDF at ``path`` (a file the worker can open); the domain's
    refusals are raised here as in ``extract.read_page``."""
    args = (path, page_index, settings.drawing_ai_memory_mb * MiB, settings.drawing_ai_seconds)
    try:
        result = await _in_worker(*args)
    except BrokenProcessPool:  # a worker killed from outside: once more, on fresh workers
        try:
            result = await _in_worker(*args)
        except BrokenProcessPool:
            raise PageTooComplex() from None
    if isinstance(result, AppError):
        raise result
    return result


def shutdown() -> None:
    """Stops the workers (the server's shutdown)."""
    global _pool
    if _pool is not None:
        _pool.shutdown(wait=True, cancel_futures=True)
        _pool = None
