"""Per-project counters (issue, RFI, punch, proposal numbers): atomic and never reused."""

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

# One statement on both SQLite (3.35+) and PostgreSQL: the row lock (or SQLite's write lock)
# serialises concurrent creates, so two requests never get the same number.
_NEXT = text(
    "INSERT INTO project_counters (project_id, kind, value) VALUES (:project_id, :kind, 1) "
    "ON CONFLICT (project_id, kind) DO UPDATE SET value = project_counters.value + 1 "
    "RETURNING value"
)


async def next_number(db: AsyncSession, project_id: str, kind: str) -> int:
    return int((await db.execute(_NEXT, {"project_id": project_id, "kind": kind})).scalar_one())
