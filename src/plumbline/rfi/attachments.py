"""RFI attachments: any type, at most 25 MB and 50 each, through the records' upload flow.

Presigning answers 413 over 25 MB and 409 LIMIT_REACHED at 50; a closed RFI takes none (409).
Completing is idempotent, and the RFI counts as updated."""

from __future__ import annotations

from functools import partial

from plumbline.records.uploads import RecordFiles, Uploads
from plumbline.rfi.access import open_rfi

ATTACHMENTS = Uploads("rfi", max_bytes=25 * 1024 * 1024, max_count=50, types=None)
rfi_attachments = RecordFiles(ATTACHMENTS, partial(open_rfi, action="attach files"))
