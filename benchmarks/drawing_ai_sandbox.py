"""What reading a page in the drawing AI's worker process costs over reading it in process.

``python -m benchmarks.drawing_ai_sandbox`` reads page 0 of the demo sheet A-101
(``BENCH_SANDBOX_READS`` times, 50) with ``extract.read_page`` in this process, the baseline,
then through ``sandbox.read`` (a warm worker: the file opened there, the page pickled back), and
prints both per read and their ratio. Summaries and takeoffs are cached per page, so the cost is
paid once per page for them and once per question for chat.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time

from benchmarks.harness import check_main

READS = int(os.environ.get("BENCH_SANDBOX_READS", "50"))


async def _run() -> None:
    from plumbline.config import settings
    from plumbline.demo.sheets import sheet_pdf
    from plumbline.drawing_ai import sandbox
    from plumbline.drawing_ai.extract import read_page

    with tempfile.NamedTemporaryFile(suffix=".pdf") as sheet:
        sheet.write(sheet_pdf())
        sheet.flush()
        with open(sheet.name, "rb") as stream:  # both warm: the library imported, a worker up
            read_page(stream, 0)
        for _ in range(3):  # every worker started and its first read (the imports) done
            warm = [sandbox.read(sheet.name, 0) for _ in range(settings.drawing_ai_workers)]
            await asyncio.gather(*warm)
        started = time.perf_counter()
        for _ in range(READS):
            with open(sheet.name, "rb") as stream:
                read_page(stream, 0)
        baseline = (time.perf_counter() - started) / READS
        started = time.perf_counter()
        for _ in range(READS):
            await sandbox.read(sheet.name, 0)
        boxed = (time.perf_counter() - started) / READS
    sandbox.shutdown()
    print(f"page read in process (baseline): {baseline * 1000:7.1f} ms")
    print(f"page read in the worker:         {boxed * 1000:7.1f} ms  ratio {boxed / baseline:.2f}")


def main() -> None:
    asyncio.run(_run())


def check() -> None:
    """``main()`` at a small size, its assertions included (``harness.check_main``)."""
    check_main(__name__, {"BENCH_SANDBOX_READS": "1"})


if __name__ == "__main__":  # the worker processes are spawned: they import this module
    main()
