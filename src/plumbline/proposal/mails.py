"""The e-mails of the proposal lifecycle. Every value a user typed is escaped in the HTML."""

from __future__ import annotations

from datetime import datetime
from html import escape

from plumbline.config import settings
from plumbline.kit import money
from plumbline.kit.mail import Attachment, Mail
from plumbline.models import Proposal

PORTAL_PATH = "/portal/proposals/"


def portal_url(token: str) -> str:
    """The client's link: the proposal page (``plumbline.pages.proposal``), on top of the
    portal's JSON routes at ``/api/v1/public/proposals/{token}``."""
    return f"{settings.public_url.rstrip('/')}{PORTAL_PATH}{token}"


def _day(value: datetime) -> str:
    return value.strftime("%d %B %Y")


def to_client(
    proposal: Proposal,
    *,
    company: str,
    project: str,
    link: str,
    pdf: Attachment | None,
    again: bool = False,
) -> Mail:
    """The proposal for the client: the link to read, sign or answer it, and the PDF."""
    total = f"{proposal.currency} {money.text(proposal.total)}"
    greeting = f"Dear {proposal.client_name}," if proposal.client_name else "Hello,"
    lead = (
        f"A reminder: {company} sent you a proposal for {project}."
        if again
        else f"{company} sent you a proposal for {project}."
    )
    lines = [
        greeting,
        "",
        lead,
        "",
        f"{proposal.reference}: {proposal.title}",
        f"Total: {total}",
        f"Valid until: {_day(proposal.valid_until)}",
        "",
        "Read it, ask a question, accept or decline it here:",
        link,
        "",
        "The proposal is attached as a PDF." if pdf else "",
    ]
    html = (
        f"<p>{escape(greeting)}</p><p>{escape(lead)}</p>"
        f"<p><strong>{escape(proposal.reference)}: {escape(proposal.title)}</strong><br>"
        f"Total: {escape(total)}<br>Valid until: {escape(_day(proposal.valid_until))}</p>"
        f'<p><a href="{escape(link, quote=True)}">Read, accept or decline the proposal</a></p>'
    )
    subject = f"{'Reminder: ' if again else ''}Proposal {proposal.reference} from {company}"
    return Mail(
        to=[proposal.client_email or ""],
        subject=subject,
        text="\n".join(lines).rstrip() + "\n",
        html=html,
        attachments=[pdf] if pdf else [],
    )


def answered(proposal: Proposal, *, company: str, author: str | None, body: str) -> Mail:
    """To the client: the contractor answered in the proposal's thread. The portal link is not
    repeated (only its hash is kept): the client answers from the proposal's own e-mail."""
    who = f"{author} ({company})" if author else company
    lead = f"{who} wrote to you about proposal {proposal.reference} ({proposal.title}):"
    where = "To answer, open the link in the e-mail that brought you the proposal."
    text = f"{lead}\n\n{body}\n\n{where}\n"
    quoted = escape(body).replace("\n", "<br>")
    html = f"<p>{escape(lead)}</p><blockquote>{quoted}</blockquote><p>{escape(where)}</p>"
    subject = f"Message about proposal {proposal.reference} from {company}"
    return Mail(to=[proposal.client_email or ""], subject=subject, text=text, html=html)


def expiring(
    *, to: str, name: str, reference: str, title: str, client: str | None, valid_until: datetime
) -> Mail:
    """To the sender: their proposal expires within 48 hours, still unanswered."""
    who = f" to {client}" if client else ""
    text = (
        f"Hello {name},\n\nYour proposal {reference} ({title}){who} expires on "
        f"{valid_until.strftime('%d %B %Y at %H:%M UTC')} and has not been answered yet.\n"
        "Resend it, or extend its validity and send it again.\n"
    )
    html = (
        f"<p>Hello {escape(name)},</p><p>Your proposal <strong>{escape(reference)}</strong> "
        f"({escape(title)}){escape(who)} expires on "
        f"{escape(valid_until.strftime('%d %B %Y at %H:%M UTC'))} and has not been answered "
        "yet.</p>"
    )
    return Mail(to=[to], subject=f"Proposal {reference} expires soon", text=text, html=html)
