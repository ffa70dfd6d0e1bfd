"""The contractor's side of a proposal's life: send, resend, duplicate, revisions, internal
comments and the contractor's half of the client thread (PRODUCT §8).

Transitions: send from DRAFT or CHANGES_REQUESTED (>= 1 item, a client e-mail, ``validUntil``
ahead); resend from SENT or VIEWED before ``validUntil``; anything else 409 INVALID_TRANSITION.
Each send and resend mints a new portal token (only its SHA-256 is kept) and so ends the link
e-mailed before.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_change, created
from plumbline.authz.project import ProjectContext
from plumbline.db import UnitOfWork
from plumbline.errors import InvalidTransition, NotFound, ValidationFailed
from plumbline.kit import clock, crypto
from plumbline.kit.ids import new_id
from plumbline.kit.mail import Attachment
from plumbline.kit.pagination import PageParams
from plumbline.kit.sequence import next_number
from plumbline.mail.tasks import queue
from plumbline.models import Proposal, ProposalComment, ProposalMessage, ProposalRevision
from plumbline.proposal import flow_repository as flow
from plumbline.proposal import mails, pdf
from plumbline.proposal import repository as repo
from plumbline.proposal.repository import FIELDS
from plumbline.proposal.service import AUDITED, ENTITY, PRICED, _visibility, to_read
from plumbline.records import add_record
from plumbline.records.fields import iso

SENDABLE = ("DRAFT", "CHANGES_REQUESTED")
RESENDABLE = ("SENT", "VIEWED")
# The thread is open while the client can still answer.
THREAD_OPEN = ("SENT", "VIEWED", "CHANGES_REQUESTED")
COPY = " (copy)"


def status_now(proposal: Proposal) -> str:
    """The proposal's status as reads show it (EXPIRED once ``validUntil`` passed)."""
    status: str = to_read(FIELDS.of(proposal))["status"]
    return status


def _refuse(action: str, status: str) -> InvalidTransition:
    return InvalidTransition(f"A {status} proposal cannot be {action}")


def revision_read(row: Any) -> dict[str, Any]:
    id_, proposal_id, number, snapshot, created_by, created_at = row
    return {
        "id": id_,
        "proposalId": proposal_id,
        "number": number,
        "snapshot": snapshot,
        "createdBy": created_by,
        "createdAt": iso(created_at),
    }


def comment_read(row: Any) -> dict[str, Any]:
    id_, proposal_id, body, created_by, created_at = row
    return {
        "id": id_,
        "proposalId": proposal_id,
        "body": body,
        "createdBy": created_by,
        "createdAt": iso(created_at),
    }


def message_read(row: Any) -> dict[str, Any]:
    id_, author, author_name, body, created_at = row
    return {
        "id": id_,
        "author": author,
        "authorName": author_name,
        "body": body,
        "createdAt": iso(created_at),
    }


def pdf_attachment(body: dict[str, Any], project: str, company: str) -> Attachment:
    """The proposal's PDF (``proposal.pdf``, as ``GET .../pdf`` renders it) for the e-mail."""
    document = pdf.render(body, project_name=project, company_name=company)
    return Attachment(pdf.filename(body), "application/pdf", document)


class LifecycleService:
    async def _load(self, db: AsyncSession, ctx: ProjectContext, proposal_id: str) -> Proposal:
        proposal = await repo.get(db, _visibility(ctx), proposal_id)
        if proposal is None:
            raise NotFound("Proposal not found")
        return proposal

    async def _lock(self, db: AsyncSession, ctx: ProjectContext, proposal_id: str) -> Proposal:
        proposal = await flow.lock(db, _visibility(ctx), proposal_id)
        if proposal is None:
            raise NotFound("Proposal not found")
        return proposal

    async def _mail_client(
        self, uow: UnitOfWork, proposal: Proposal, token: str, *, again: bool
    ) -> str:
        db = uow.session
        project, company = await flow.names(db, proposal.project_id, proposal.workspace_id)
        link = mails.portal_url(token)
        mail = mails.to_client(
            proposal,
            company=company,
            project=project,
            link=link,
            pdf=pdf_attachment(to_read(FIELDS.of(proposal)), project, company),
            again=again,
        )
        queue(uow, mail)
        return link

    async def send(self, uow: UnitOfWork, ctx: ProjectContext, proposal_id: str) -> dict[str, Any]:
        """SENT with a new portal token, a revision snapshot and the client's e-mail."""
        db = uow.session
        proposal = await self._lock(db, ctx, proposal_id)
        status = status_now(proposal)
        if status not in SENDABLE:
            raise _refuse("sent", status)
        now = clock.now()
        missing = []
        if not proposal.items:
            missing.append({"field": "items", "message": "needs at least one line item to send"})
        if not proposal.client_email:
            missing.append({"field": "clientEmail", "message": "is needed to send"})
        if proposal.valid_until <= now:
            missing.append({"field": "validUntil", "message": "is in the past"})
        if missing:
            raise ValidationFailed(details=missing)
        token = crypto.random_token(32)
        proposal.token_hash = crypto.sha256_hex(token)
        proposal.status = "SENT"
        proposal.sent_at = proposal.updated_at = now
        proposal.sent_by = ctx.user_id
        proposal.viewed_at = None  # a new round: the client's next view counts again
        await db.flush()
        body = to_read(FIELDS.of(proposal))
        number = await flow.next_revision(db, proposal.id)
        db.add(
            ProposalRevision(
                proposal_id=proposal.id,
                number=number,
                snapshot=body,
                created_by=ctx.user_id,
                created_at=now,
            )
        )
        await db.flush()
        changes = {"status": [status, "SENT"], "revision": [None, number]}
        await audit_change(db, ctx, (ENTITY, proposal.id), "proposal.sent", changes)
        link = await self._mail_client(uow, proposal, token, again=False)
        return body | {"portalUrl": link}

    async def resend(
        self, uow: UnitOfWork, ctx: ProjectContext, proposal_id: str
    ) -> dict[str, Any]:
        """The client's e-mail again, with a fresh link (the previous one stops working)."""
        db = uow.session
        proposal = await self._lock(db, ctx, proposal_id)
        status = status_now(proposal)
        if status not in RESENDABLE:
            raise _refuse("resent", status)
        token = crypto.random_token(32)
        proposal.token_hash = crypto.sha256_hex(token)
        proposal.updated_at = clock.now()
        await db.flush()
        await audit_change(db, ctx, (ENTITY, proposal.id), "proposal.resent", {})
        link = await self._mail_client(uow, proposal, token, again=True)
        return to_read(FIELDS.of(proposal)) | {"portalUrl": link}

    async def duplicate(
        self, db: AsyncSession, ctx: ProjectContext, proposal_id: str
    ) -> dict[str, Any]:
        """A new DRAFT "... (copy)" with a new reference and the same items (new item ids)."""
        source = await self._load(db, ctx, proposal_id)
        values = {name: getattr(source, name) for name in PRICED}
        values["title"] = source.title[: 500 - len(COPY)] + COPY
        values["items"] = [item | {"id": new_id()} for item in source.items]
        number = await next_number(db, ctx.project.id, ENTITY)
        copy = await add_record(
            db,
            ctx,
            Proposal,
            status="DRAFT",
            currency=source.currency,
            reference=f"PROP-{clock.now().year}-{number:03}",
            **values,
        )
        changes = created(FIELDS.audited(copy, AUDITED)) | {"duplicatedFrom": [None, source.id]}
        await audit_change(db, ctx, (ENTITY, copy.id), "proposal.created", changes)
        return to_read(FIELDS.of(copy))

    async def revisions(
        self, db: AsyncSession, ctx: ProjectContext, proposal_id: str, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        proposal = await self._load(db, ctx, proposal_id)
        rows, headers = page.finish(await flow.revisions(db, proposal.id, page))
        return [revision_read(row) for row in rows], headers

    async def comments(
        self, db: AsyncSession, ctx: ProjectContext, proposal_id: str, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        proposal = await self._load(db, ctx, proposal_id)
        rows, headers = page.finish(await flow.comments(db, proposal.id, page))
        return [comment_read(row) for row in rows], headers

    async def add_comment(
        self, db: AsyncSession, ctx: ProjectContext, proposal_id: str, body: str
    ) -> dict[str, Any]:
        proposal = await self._load(db, ctx, proposal_id)
        comment = ProposalComment(
            proposal_id=proposal.id, body=body, created_by=ctx.user_id, created_at=clock.now()
        )
        db.add(comment)
        await db.flush()
        changes = {"commentId": [None, comment.id]}
        await audit_change(db, ctx, (ENTITY, proposal.id), "proposal.commented", changes)
        return comment_read(
            (comment.id, proposal.id, comment.body, comment.created_by, comment.created_at)
        )

    async def messages(
        self, db: AsyncSession, ctx: ProjectContext, proposal_id: str, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        proposal = await self._load(db, ctx, proposal_id)
        rows, headers = page.finish(await flow.messages(db, proposal.id, page))
        return [message_read(row) for row in rows], headers

    async def post_message(
        self, uow: UnitOfWork, ctx: ProjectContext, proposal_id: str, body: str
    ) -> dict[str, Any]:
        """The contractor's answer in the client thread (open while the client can answer),
        e-mailed to the client."""
        db = uow.session
        proposal = await self._load(db, ctx, proposal_id)
        status = status_now(proposal)
        if status not in THREAD_OPEN:
            raise InvalidTransition(f"The client thread of a {status} proposal is closed")
        name = await flow.user_name(db, ctx.user_id)
        message = ProposalMessage(
            proposal_id=proposal.id,
            author="CONTRACTOR",
            author_name=name,
            body=body,
            created_by=ctx.user_id,
            created_at=clock.now(),
        )
        db.add(message)
        await db.flush()
        changes = {"messageId": [None, message.id]}
        await audit_change(db, ctx, (ENTITY, proposal.id), "proposal.message_posted", changes)
        if proposal.client_email:
            _, company = await flow.names(db, proposal.project_id, proposal.workspace_id)
            queue(uow, mails.answered(proposal, company=company, author=name, body=body))
        return message_read(
            (message.id, message.author, message.author_name, message.body, message.created_at)
        )


lifecycle = LifecycleService()
