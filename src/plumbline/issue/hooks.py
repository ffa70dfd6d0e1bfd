"""Hook points of the issue module: other modules act on an issue's change without the issue
module importing them (``plumbline.wiring`` connects them)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.authz.project import ProjectContext
from plumbline.models import Issue


@dataclass(frozen=True)
class Done:
    """An issue (a work order, say) that just moved to RESOLVED or CLOSED, in the request's
    transaction: a callback may write, and its error refuses the change."""

    db: AsyncSession
    ctx: ProjectContext
    issue: Issue


OnDone = Callable[[Done], Awaitable[None]]
_on_done: list[OnDone] = []


def on_done(callback: OnDone) -> None:
    """Run ``callback`` whenever an issue is resolved or closed (connected once)."""
    if callback not in _on_done:
        _on_done.append(callback)


async def done(db: AsyncSession, ctx: ProjectContext, issue: Issue) -> None:
    """Run the callbacks, in the order they were connected."""
    for callback in _on_done:
        await callback(Done(db, ctx, issue))
