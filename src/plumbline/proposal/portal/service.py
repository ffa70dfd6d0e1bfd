"""The client's side of a proposal, through the link e-mailed at send (PRODUCT §8).

Transitions: view (first view SENT -> VIEWED), accept / decline / request-changes from SENT or
VIEWED only; ACCEPTED and DECLINED are read-only (409). Each action is audited with actor
``public`` and notifies the sender.
"""

from __future__ import annotations

import asyncio
from functools import partial
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_as
from plumbline.auth.principal import Principal
from plumbline.errors import InvalidTransition
from plumbline.kit import clock
from plumbline.kit.pagination import PageParams
from plumbline.models import Project, Proposal, ProposalMessage, Workspace
from plumbline.notification.service import notification
from plumbline.proposal import status
from plumbline.proposal.drafts import repository as drafts
from plumbline.proposal.lifecycle import repository as flow
from plumbline.proposal.lifecycle.schemas import ProposalMessageRead
from plumbline.proposal.lifecycle.service import read_of
from plumbline.proposal.portal.signature import png_of
from plumbline.proposal.read import ENTITY, FIELDS, client_view, status_now, to_read


def _rows(principal: Principal) -> tuple[Proposal, Project, Workspace]:
    proposal, project, workspace = principal.require_token().rows
    return proposal, project, workspace


class PortalService:
    async def _record(
        self,
        db: AsyncSession,
        principal: Principal,
        proposal: Proposal,
        action: str,
        changes: dict[str, Any],
        *,
        kind: str,
        title: str,
    ) -> None:
        """The change written, its audit entry (actor ``public``) and the sender's notification."""
        await db.flush()
        await audit_as(
            db,
            principal,
            (ENTITY, proposal.id),
            action,
            changes,
            workspace_id=proposal.workspace_id,
            project_id=proposal.project_id,
        )
        await notification.notify(
            db,
            [proposal.sent_by or proposal.created_by],
            kind=kind,
            title=title,
            href=f"/projects/{proposal.project_id}/proposals/{proposal.id}",
            workspace_id=proposal.workspace_id,
            project_id=proposal.project_id,
        )

    def _client(self, proposal: Proposal) -> str:
        """How the sender's notifications name the client."""
        return proposal.client_name or proposal.client_email or "The client"

    def _answerable(self, proposal: Proposal, action: str) -> str:
        """The status now, if the client may still answer: SENT or VIEWED (409 otherwise)."""
        was = status_now(proposal)
        if was not in status.LIVE:
            raise InvalidTransition(f"A {was} proposal cannot be {action}")
        return was

    def view(self, principal: Principal) -> dict[str, Any]:
        """The client's view, in any status (an answered one after its validity too)."""
        return client_view(*_rows(principal))

    async def pdf(self, db: AsyncSession, principal: Principal) -> tuple[bytes, str]:
        """The proposal's PDF as the client was sent it, signed once accepted, and its file
        name (the contractor's document: the same render, in a worker thread)."""
        from plumbline.proposal.document.pdf import filename, render  # fpdf: when it is made

        proposal, project, workspace = _rows(principal)
        body = to_read(FIELDS.of(proposal))
        signature = await drafts.signature(db, proposal.id) if body["acceptedAt"] else None
        document = await asyncio.to_thread(
            partial(
                render,
                body,
                project_name=project.name,
                company_name=workspace.name,
                signature=signature,
            )
        )
        return document, filename(body)

    async def viewed(self, db: AsyncSession, principal: Principal) -> dict[str, Any]:
        """The first view moves SENT to VIEWED; later views change nothing."""
        proposal, project, workspace = _rows(principal)
        if status_now(proposal) == status.SENT:
            now = clock.now()
            proposal.status, proposal.viewed_at, proposal.updated_at = status.VIEWED, now, now
            await self._record(
                db,
                principal,
                proposal,
                "proposal.viewed",
                {"status": [status.SENT, status.VIEWED]},
                kind="PROPOSAL_VIEWED",
                title=f"{self._client(proposal)} opened proposal {proposal.reference}",
            )
        return client_view(proposal, project, workspace)

    async def accept(
        self, db: AsyncSession, principal: Principal, signer_name: str, signature: str | None
    ) -> dict[str, Any]:
        """ACCEPTED from SENT or VIEWED, signed by name and optionally a drawn PNG (400
        unless it is a well-formed PNG of at most 200 KB)."""
        proposal, project, workspace = _rows(principal)
        was = self._answerable(proposal, "accepted")
        png = png_of(signature) if signature is not None else None
        now = clock.now()
        proposal.status, proposal.accepted_at, proposal.updated_at = status.ACCEPTED, now, now
        proposal.signer_name = signer_name
        proposal.signature_png = png
        await self._record(
            db,
            principal,
            proposal,
            "proposal.accepted",
            {
                "status": [was, status.ACCEPTED],
                "signerName": [None, signer_name],
                "signed": [None, png is not None],
            },
            kind="PROPOSAL_ACCEPTED",
            title=f"{signer_name} accepted proposal {proposal.reference}",
        )
        return client_view(proposal, project, workspace)

    async def decline(
        self, db: AsyncSession, principal: Principal, reason: str, comment: str | None
    ) -> dict[str, Any]:
        """DECLINED from SENT or VIEWED, with a reason and an optional comment."""
        proposal, project, workspace = _rows(principal)
        was = self._answerable(proposal, "declined")
        now = clock.now()
        proposal.status, proposal.declined_at, proposal.updated_at = status.DECLINED, now, now
        proposal.decline_reason, proposal.decline_comment = reason, comment
        await self._record(
            db,
            principal,
            proposal,
            "proposal.declined",
            {"status": [was, status.DECLINED], "declineReason": [None, reason]},
            kind="PROPOSAL_DECLINED",
            title=f"{self._client(proposal)} declined proposal {proposal.reference}",
        )
        return client_view(proposal, project, workspace)

    async def request_changes(
        self, db: AsyncSession, principal: Principal, comment: str
    ) -> dict[str, Any]:
        """Back to the contractor (CHANGES_REQUESTED) from SENT or VIEWED, saying what."""
        proposal, project, workspace = _rows(principal)
        was = self._answerable(proposal, "sent back for changes")
        proposal.status, proposal.updated_at = status.CHANGES_REQUESTED, clock.now()
        proposal.change_request_comment = comment
        await self._record(
            db,
            principal,
            proposal,
            "proposal.changes_requested",
            {"status": [was, status.CHANGES_REQUESTED]},
            kind="PROPOSAL_CHANGES_REQUESTED",
            title=f"{self._client(proposal)} asked for changes to {proposal.reference}",
        )
        return client_view(proposal, project, workspace)

    async def messages(
        self, db: AsyncSession, principal: Principal, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """The thread with the contractor, newest first."""
        proposal, _, _ = _rows(principal)
        rows, headers = page.finish(await flow.messages(db, proposal.id, page))
        return [read_of(ProposalMessageRead, row) for row in rows], headers

    async def post_message(
        self, db: AsyncSession, principal: Principal, body: str
    ) -> dict[str, Any]:
        """The client's message, while the client can still answer (SENT, VIEWED or
        CHANGES_REQUESTED; 409 after)."""
        proposal, _, _ = _rows(principal)
        was = status_now(proposal)
        if was not in status.THREAD_OPEN:
            raise InvalidTransition(f"The thread of a {was} proposal is closed")
        message = ProposalMessage(
            proposal_id=proposal.id,
            author="CLIENT",
            author_name=proposal.client_name,
            body=body,
            created_at=clock.now(),
        )
        db.add(message)
        await db.flush()
        await self._record(
            db,
            principal,
            proposal,
            "proposal.message_posted",
            {"messageId": [None, message.id]},
            kind="PROPOSAL_MESSAGE",
            title=f"{self._client(proposal)} wrote about proposal {proposal.reference}",
        )
        return read_of(
            ProposalMessageRead,
            (message.id, message.author, message.author_name, message.body, message.created_at),
        )


portal = PortalService()
