"""Loading the RFI a route names, within what the caller may see."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.authz.project import ProjectContext
from plumbline.errors import found
from plumbline.models import Rfi
from plumbline.records.visibility import Visibility
from plumbline.rfi.errors import RfiClosed, RfiNotFound
from plumbline.rfi.repository import rfi_repository
from plumbline.rfi.workflow import CLOSED


async def visible_rfi(
    db: AsyncSession, ctx: ProjectContext, rfi_id: str, *, for_update: bool = False
) -> Rfi:
    """The RFI if the caller may see it (404 otherwise, deleted ones included)."""
    vis = Visibility.of(ctx, "showRfis")
    return found(await rfi_repository.get(db, vis, rfi_id, for_update=for_update), RfiNotFound())


async def open_rfi(db: AsyncSession, ctx: ProjectContext, rfi_id: str, action: str) -> Rfi:
    """A visible RFI that is not CLOSED (409: a closed RFI is read-only until reopened)."""
    rfi = await visible_rfi(db, ctx, rfi_id)
    if rfi.status == CLOSED:
        raise RfiClosed(f"This RFI is closed; reopen it to {action}")
    return rfi
