"""The client's side of a proposal, through the link e-mailed at send (PRODUCT §8).

The token is the only credential: 404 unknown (or replaced by a later send), 410 once
``validUntil`` has passed (answered proposals stay readable), 30 requests a minute per token.
Transitions: view (first view SENT -> VIEWED), accept / decline / request-changes from SENT or
VIEWED only; ACCEPTED and DECLINED are read-only (409). Each action is audited with actor
``public`` and notifies the sender.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit
from plumbline.auth.deps import principal_dependency, public_caller
from plumbline.auth.principal import Principal, TokenGrant
from plumbline.auth.public_token import TokenPurpose, resolve_token
from plumbline.auth.session import on_response
from plumbline.db import uow_of
from plumbline.errors import InvalidTransition
from plumbline.kit import clock, crypto, ratelimit
from plumbline.kit.pagination import PageParams
from plumbline.models import Project, Proposal, ProposalMessage, Workspace
from plumbline.notification.service import notification
from plumbline.proposal import flow_repository as flow
from plumbline.proposal import letter
from plumbline.proposal.lifecycle_service import THREAD_OPEN, message_read, status_now
from plumbline.proposal.repository import FIELDS
from plumbline.proposal.service import ENTITY, to_read
from plumbline.proposal.signature import png_of

ANSWERED = ("ACCEPTED", "DECLINED")
ANSWERABLE = ("SENT", "VIEWED")
ACTIONS_PER_MINUTE = 30
# What the client sees of the proposal's fields (no ids, creators or timestamps of ours).
CLIENT_FIELDS = (
    "reference",
    "title",
    "status",
    "clientName",
    "clientEmail",
    "clientCompany",
    "validUntil",
    "currency",
    "coverLetter",
    "items",
    "subtotal",
    "workPricePercent",
    "workAmount",
    "taxPercent",
    "taxAmount",
    "discount",
    "total",
    "sentAt",
    "viewedAt",
    "acceptedAt",
    "signerName",
    "declinedAt",
    "declineReason",
    "declineComment",
    "changeRequestComment",
)
ITEM_FIELDS = ("name", "description", "quantity", "unit", "rate", "lineTotal")


async def _grant(db: AsyncSession, token_hash: str) -> TokenGrant | None:
    found = await flow.by_token_hash(db, token_hash)
    if found is None:
        return None
    proposal, project, workspace = found
    return TokenGrant(
        purpose="proposal",
        token_hash=token_hash,
        workspace_id=workspace.id,
        project_id=project.id,
        subject_id=proposal.id,
        # An answered proposal stays readable by its client after the offer's validity.
        expires_at=None if proposal.status in ANSWERED else proposal.valid_until,
        rows=(proposal, project, workspace),
    )


PROPOSAL_LINK = TokenPurpose(
    "proposal",
    _grant,
    unknown="This proposal link does not exist or was replaced by a newer one",
    expired="This proposal has expired",
)


@principal_dependency()
async def proposal_client(
    request: Request, token: str, _: Annotated[None, Depends(public_caller)]
) -> Principal:
    """The holder of a proposal link: counted against 30 requests a minute per token first
    (429 with ``Retry-After``), then resolved (404 unknown, 410 expired)."""
    verdict = await ratelimit.hit(
        f"proposal-portal:{crypto.sha256_hex(token)}", ACTIONS_PER_MINUTE, 60
    )
    if verdict.enforced:
        on_response(request, lambda response: response.headers.update(verdict.headers()))
    return await resolve_token(uow_of(request).session, PROPOSAL_LINK, token)


def _rows(principal: Principal) -> tuple[Proposal, Project, Workspace]:
    proposal, project, workspace = principal.require_token().rows
    return proposal, project, workspace


def client_view(proposal: Proposal, project: Project, workspace: Workspace) -> dict[str, Any]:
    """What the client sees: the offer with its letter filled in exactly as in the PDF they
    were sent (never the template with its ``{{variables}}``)."""
    full = to_read(FIELDS.of(proposal))
    view: dict[str, Any] = {name: full[name] for name in CLIENT_FIELDS}
    view["items"] = [{name: item.get(name) for name in ITEM_FIELDS} for item in full["items"]]
    view["coverLetter"] = letter.as_sent(
        full, project_name=project.name, company_name=workspace.name
    )
    return {"companyName": workspace.name, "projectName": project.name} | view


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
        """The audit entry (actor ``public``) and the sender's notification of one action."""
        await audit.record(
            db,
            action=action,
            entity_type=ENTITY,
            entity_id=proposal.id,
            principal=principal,
            workspace_id=proposal.workspace_id,
            project_id=proposal.project_id,
            changes=changes,
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
        return proposal.client_name or proposal.client_email or "The client"

    def _answerable(self, proposal: Proposal, action: str) -> str:
        status = status_now(proposal)
        if status not in ANSWERABLE:
            raise InvalidTransition(f"A {status} proposal cannot be {action}")
        return status

    def view(self, principal: Principal) -> dict[str, Any]:
        return client_view(*_rows(principal))

    async def viewed(self, db: AsyncSession, principal: Principal) -> dict[str, Any]:
        """The first view moves SENT to VIEWED; later views change nothing."""
        proposal, project, workspace = _rows(principal)
        if status_now(proposal) == "SENT":
            now = clock.now()
            proposal.status, proposal.viewed_at, proposal.updated_at = "VIEWED", now, now
            await db.flush()
            await self._record(
                db,
                principal,
                proposal,
                "proposal.viewed",
                {"status": ["SENT", "VIEWED"]},
                kind="PROPOSAL_VIEWED",
                title=f"{self._client(proposal)} opened proposal {proposal.reference}",
            )
        return client_view(proposal, project, workspace)

    async def accept(
        self, db: AsyncSession, principal: Principal, signer_name: str, signature: str | None
    ) -> dict[str, Any]:
        proposal, project, workspace = _rows(principal)
        status = self._answerable(proposal, "accepted")
        png = png_of(signature) if signature is not None else None
        now = clock.now()
        proposal.status, proposal.accepted_at, proposal.updated_at = "ACCEPTED", now, now
        proposal.signer_name = signer_name
        proposal.signature_png = png
        await db.flush()
        await self._record(
            db,
            principal,
            proposal,
            "proposal.accepted",
            {
                "status": [status, "ACCEPTED"],
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
        proposal, project, workspace = _rows(principal)
        status = self._answerable(proposal, "declined")
        now = clock.now()
        proposal.status, proposal.declined_at, proposal.updated_at = "DECLINED", now, now
        proposal.decline_reason, proposal.decline_comment = reason, comment
        await db.flush()
        await self._record(
            db,
            principal,
            proposal,
            "proposal.declined",
            {"status": [status, "DECLINED"], "declineReason": [None, reason]},
            kind="PROPOSAL_DECLINED",
            title=f"{self._client(proposal)} declined proposal {proposal.reference}",
        )
        return client_view(proposal, project, workspace)

    async def request_changes(
        self, db: AsyncSession, principal: Principal, comment: str
    ) -> dict[str, Any]:
        proposal, project, workspace = _rows(principal)
        status = self._answerable(proposal, "sent back for changes")
        proposal.status, proposal.updated_at = "CHANGES_REQUESTED", clock.now()
        proposal.change_request_comment = comment
        await db.flush()
        await self._record(
            db,
            principal,
            proposal,
            "proposal.changes_requested",
            {"status": [status, "CHANGES_REQUESTED"]},
            kind="PROPOSAL_CHANGES_REQUESTED",
            title=f"{self._client(proposal)} asked for changes to {proposal.reference}",
        )
        return client_view(proposal, project, workspace)

    async def messages(
        self, db: AsyncSession, principal: Principal, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        proposal, _, _ = _rows(principal)
        rows, headers = page.finish(await flow.messages(db, proposal.id, page))
        return [message_read(row) for row in rows], headers

    async def post_message(
        self, db: AsyncSession, principal: Principal, body: str
    ) -> dict[str, Any]:
        proposal, _, _ = _rows(principal)
        status = status_now(proposal)
        if status not in THREAD_OPEN:
            raise InvalidTransition(f"The thread of a {status} proposal is closed")
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
        return message_read(
            (message.id, message.author, message.author_name, message.body, message.created_at)
        )


portal = PortalService()
