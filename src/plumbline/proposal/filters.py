"""List filters: ``status`` (comma-separated), ``q`` (title, client or reference,
case-insensitive), ``clientEmail`` (exact, case-insensitive) and ``updatedSince``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, get_args

from fastapi import Depends, Query

from plumbline.errors import ValidationFailed
from plumbline.proposal.schemas import ProposalStatus

STATUSES: tuple[str, ...] = get_args(ProposalStatus)


@dataclass(frozen=True)
class ProposalFilters:
    status: tuple[str, ...] = ()
    q: str | None = None
    client_email: str | None = None
    updated_since: datetime | None = None


def _statuses(raw: str | None) -> tuple[str, ...]:
    if raw is None:
        return ()
    values = tuple(dict.fromkeys(v.strip() for v in raw.split(",") if v.strip()))
    wrong = [v for v in values if v not in STATUSES]
    if wrong:
        message = f"must be one of {', '.join(STATUSES)}"
        raise ValidationFailed(
            f"Invalid status: {message}", details=[{"field": "status", "message": message}]
        )
    return values


async def proposal_filters(
    status: Annotated[
        str | None,
        Query(max_length=200, description=f"One or more of {', '.join(STATUSES)}, comma-separated"),
    ] = None,
    q: Annotated[
        str | None,
        Query(max_length=200, description="Text in the title, the client or the reference"),
    ] = None,
    client_email: Annotated[
        str | None, Query(alias="clientEmail", max_length=400, description="The client's e-mail")
    ] = None,
    updated_since: Annotated[
        datetime | None, Query(alias="updatedSince", description="Changed at or after")
    ] = None,
) -> ProposalFilters:
    return ProposalFilters(
        status=_statuses(status),
        q=q.strip() or None if q else None,
        client_email=client_email.strip() or None if client_email else None,
        updated_since=updated_since,
    )


Filters = Annotated[ProposalFilters, Depends(proposal_filters)]
