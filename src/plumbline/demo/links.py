"""The demo's links (its proposal page, occupant pages, label sheet, calendar feed), kept so that
every later `make run` prints them again, on the port it serves.

The routes that made them store only their tokens' hashes, so the demo keeps its own copy of
each link (`demo_links`): the path encrypted with the secret key, as the server's other kept
secrets are, and the token's hash, to tell whether the link still opens (a proposal sent again,
an occupant link or a feed revoked since)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.config import settings
from plumbline.kit import clock, crypto
from plumbline.models import CalendarFeed, DemoLink, OccupantLink, Proposal

PURPOSE = "demo-link"
PROPOSAL, OCCUPANT_LINK, CALENDAR_FEED = "proposal", "occupant-link", "calendar-feed"


@dataclass(frozen=True)
class Link:
    """A link worth printing; ``kind`` names the table its ``token`` was made in."""

    label: str
    url: str
    kind: str | None = None
    token: str | None = None


# Each kind of link: its token's hash column and the column set once it no longer opens.
LIVE = {
    PROPOSAL: (Proposal.token_hash, Proposal.deleted_at),
    OCCUPANT_LINK: (OccupantLink.token_hash, OccupantLink.revoked_at),
    CALENDAR_FEED: (CalendarFeed.token_hash, CalendarFeed.revoked_at),
}


async def _opens(db: AsyncSession, row: DemoLink) -> bool:
    """Whether the token of ``row`` still opens what it was made for (a proposal sent again
    has a new token; a link or feed may have been revoked or deleted)."""
    if row.kind not in LIVE or row.token_hash is None:
        return True  # no token: nothing to revoke
    token_hash, gone = LIVE[row.kind]
    query = select(func.count()).where(token_hash == row.token_hash, gone.is_(None))
    return bool((await db.execute(query)).scalar_one())


def keep(db: AsyncSession, workspace_id: str, project_id: str, links: Sequence[Link]) -> None:
    """The project's links, in the order printed (their paths: the port may change)."""
    base = settings.public_url.rstrip("/")
    for position, link in enumerate(links):
        db.add(
            DemoLink(
                project_id=project_id,
                workspace_id=workspace_id,
                position=position,
                label=link.label,
                path=crypto.encrypt(link.url.removeprefix(base), PURPOSE),
                kind=link.kind,
                token_hash=crypto.sha256_hex(link.token) if link.token else None,
                created_at=clock.now(),
            )
        )


async def recall(db: AsyncSession, project_id: str) -> tuple[tuple[str, str], ...]:
    """The project's links as printed at seeding, on the public URL now; a link that no
    longer opens (or that another secret key sealed) says so instead of its URL."""
    query = select(DemoLink).where(DemoLink.project_id == project_id).order_by(DemoLink.position)
    base = settings.public_url.rstrip("/")
    shown = []
    for row in (await db.execute(query)).scalars():
        path = crypto.decrypt(row.path, PURPOSE)
        if path is None:
            shown.append((row.label, "kept under another secret key: not shown"))
        elif not await _opens(db, row):
            shown.append((row.label, "replaced or revoked since the demo was seeded"))
        else:
            shown.append((row.label, base + path))
    return tuple(shown)
