"""Reference photos of issues (images only, 15 MB each, 12 per issue): the records' uploads.

Presigning answers 415 for a file that is not an image, 413 over 15 MB and 409 LIMIT_REACHED
at 12 photos; completing is idempotent, and completing or removing a photo updates the issue."""

from __future__ import annotations

from plumbline.issue import repository as repo
from plumbline.issue.access import require_entity
from plumbline.records.uploads import RecordFiles, Uploads

PHOTOS = Uploads(repo.PHOTO_ENTITY, max_bytes=15 * 1024 * 1024, max_count=12)
reference_photos = RecordFiles(PHOTOS, require_entity)
