"""The contractor's side of a proposal's life (PRODUCT §8), after the draft.

Send, resend, duplicate, revisions, internal comments and the contractor's half of the client
thread.

Transitions: send from DRAFT or CHANGES_REQUESTED (>= 1 item, a client e-mail, ``validUntil``
ahead); resend from SENT or VIEWED before ``validUntil``; anything else 409 INVALID_TRANSITION.
Each send and resend mints a new portal token (only its SHA-256 is kept) and so ends the link
e-mailed before.
"""

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_change, created
from plumbline.authz.project import ProjectContext
from plumbline.db import UnitOfWork
from plumbline.errors import InvalidTransition, ValidationFailed
from plumbline.kit import clock, crypto
from plumbline.kit.clock import iso
from plumbline.kit.ids import new_id
from plumbline.kit.mail import Attachment
from plumbline.kit.pagination import PageParams
from plumbline.kit.sequence import next_number
from plumbline.mail.tasks import queue
from plumbline.models import Proposal, ProposalComment, ProposalMessage, ProposalRevision
from plumbline.proposal import mails
from plumbline.proposal.auth import load
from plumbline.proposal.drafts.pricing import AUDITED, PRICED
from plumbline.proposal.lifecycle import repository as flow
from plumbline.proposal.lifecycle.schemas import (
    ProposalCommentRead,
    ProposalMessageRead,
    ProposalRevisionRead,
)
from plumbline.proposal.read import ENTITY, FIELDS, status_now, to_read
from plumbline.proposal.status import DRAFT, EDITABLE, LIVE, SENT, THREAD_OPEN
from plumbline.records import add_record

COPY = " (copy)"


def _refuse(action: str, status: str) -> InvalidTransition:
    return InvalidTransition(f"A {status} proposal cannot be {action}")


def read_of(model: type[BaseModel], row: Sequence[Any]) -> dict[str, Any]:
    """A row of the columns selected for ``model`` (revisions, comments, messages: in its
    fields' order) as the response dict."""
    body = dict(zip(model.model_fields, row, strict=True))
    body["createdAt"] = iso(body["createdAt"])
    return body


def pdf_attachment(body: dict[str, Any], project: str, company: str) -> Attachment:
    """The proposal's PDF (``proposal.pdf``, as ``GET .../pdf`` renders it) for the e-mail."""
    from plumbline.proposal.document import pdf  # fpdf: imported when a PDF is made

    document = pdf.render(body, project_name=project, company_name=company)
    return Attachment(pdf.filename(body), "application/pdf", document)


class LifecycleService:
    async def _mail_client(
        self, uow: UnitOfWork, proposal: Proposal, token: str, *, again: bool
    ) -> str:
        """Queues the client's e-mail (link and PDF) after the commit; the link it carries."""
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
        proposal = await load(db, ctx, proposal_id, lock=True)
        status = status_now(proposal)
        if status not in EDITABLE:
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
        proposal.status = SENT
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
        changes = {"status": [status, SENT], "revision": [None, number]}
        await audit_change(db, ctx, (ENTITY, proposal.id), "proposal.sent", changes)
        link = await self._mail_client(uow, proposal, token, again=False)
        return body | {"portalUrl": link}

    async def resend(
        self, uow: UnitOfWork, ctx: ProjectContext, proposal_id: str
    ) -> dict[str, Any]:
        """The client's e-mail again, with a fresh link (the previous one stops working)."""
        db = uow.session
        proposal = await load(db, ctx, proposal_id, lock=True)
        status = status_now(proposal)
        if status not in LIVE:
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
        source = await load(db, ctx, proposal_id)
        values = {name: getattr(source, name) for name in PRICED}
        values["title"] = source.title[: 500 - len(COPY)] + COPY
        values["items"] = [item | {"id": new_id()} for item in source.items]
        number = await next_number(db, ctx.project.id, ENTITY)
        copy = await add_record(
            db,
            ctx,
            Proposal,
            status=DRAFT,
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
        """The proposal as each send snapshotted it, newest first."""
        proposal = await load(db, ctx, proposal_id)
        rows, headers = page.finish(await flow.revisions(db, proposal.id, page))
        return [read_of(ProposalRevisionRead, row) for row in rows], headers

    async def comments(
        self, db: AsyncSession, ctx: ProjectContext, proposal_id: str, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """The internal comments, newest first: never shown to the client."""
        proposal = await load(db, ctx, proposal_id)
        rows, headers = page.finish(await flow.comments(db, proposal.id, page))
        return [read_of(ProposalCommentRead, row) for row in rows], headers

    async def add_comment(
        self, db: AsyncSession, ctx: ProjectContext, proposal_id: str, body: str
    ) -> dict[str, Any]:
        """An internal comment, in any status, audited."""
        proposal = await load(db, ctx, proposal_id)
        comment = ProposalComment(
            proposal_id=proposal.id, body=body, created_by=ctx.user_id, created_at=clock.now()
        )
        db.add(comment)
        await db.flush()
        changes = {"commentId": [None, comment.id]}
        await audit_change(db, ctx, (ENTITY, proposal.id), "proposal.commented", changes)
        return read_of(
            ProposalCommentRead,
            (comment.id, proposal.id, comment.body, comment.created_by, comment.created_at),
        )

    async def messages(
        self, db: AsyncSession, ctx: ProjectContext, proposal_id: str, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """The thread with the client, newest first (readable in any status)."""
        proposal = await load(db, ctx, proposal_id)
        rows, headers = page.finish(await flow.messages(db, proposal.id, page))
        return [read_of(ProposalMessageRead, row) for row in rows], headers

    async def post_message(
        self, uow: UnitOfWork, ctx: ProjectContext, proposal_id: str, body: str
    ) -> dict[str, Any]:
        """The contractor's answer in the client thread (open while the client can answer),
        e-mailed to the client."""
        db = uow.session
        proposal = await load(db, ctx, proposal_id)
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
        return read_of(
            ProposalMessageRead,
            (message.id, message.author, message.author_name, message.body, message.created_at),
        )


lifecycle = LifecycleService()
