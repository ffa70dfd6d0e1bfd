"""E-mail messages and their delivery (queued delivery is the ``mail.send`` job).

Delivery writes ``.eml`` files to ``PLUMBLINE_OUTBOX_DIR`` by default, or sends over SMTP when
``PLUMBLINE_SMTP_URL`` is set (``smtp://user:pass@host:port``, ``smtps://`` for TLS).
"""

from __future__ import annotations

import asyncio
import base64
import logging
import re
import smtplib
import ssl
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import make_msgid
from urllib.parse import unquote, urlparse

from plumbline.config import settings
from plumbline.kit import clock
from plumbline.kit.ids import new_id

log = logging.getLogger("plumbline.mail")

# What ends a line for Python (``str.splitlines``: \n \r \v \f \x1c-\x1e U+0085 U+2028 U+2029)
# and every other control character: in a header, any of them makes the message unbuildable.
_LINE_BREAKING = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")


class Undeliverable(Exception):
    """The message can never go out as it is (it cannot be built, or the SMTP server refused it
    for good with a 5xx): sending it again cannot help."""


def one_line(value: str) -> str:
    """``value`` fit for a header: each run of line separators and control characters becomes
    one space, so that no user text (a title, a workspace name) can break a message."""
    return _LINE_BREAKING.sub(" ", value).strip()


@dataclass
class Attachment:
    filename: str
    content_type: str
    data: bytes


@dataclass
class Mail:
    to: list[str]
    subject: str
    text: str
    html: str | None = None
    attachments: list[Attachment] = field(default_factory=list)
    # Chosen once, when the mail is queued: each attempt of its job sends the same Message-ID,
    # so a receiver can tell a repeated delivery (a worker that died after the SMTP server
    # accepted the message but before its job was recorded done) from a second message.
    message_id: str = field(default_factory=lambda: make_msgid(domain="plumbline.local"))

    def to_payload(self) -> dict[str, object]:
        return {
            "to": self.to,
            "subject": self.subject,
            "messageId": self.message_id,
            "text": self.text,
            "html": self.html,
            "attachments": [
                {
                    "filename": a.filename,
                    "contentType": a.content_type,
                    "data": base64.b64encode(a.data).decode(),
                }
                for a in self.attachments
            ],
        }

    @classmethod
    def from_payload(cls, payload: dict[str, object]) -> Mail:
        attachments = [
            Attachment(a["filename"], a["contentType"], base64.b64decode(a["data"]))
            for a in payload.get("attachments") or []  # type: ignore[attr-defined]
        ]
        return cls(
            to=list(payload["to"]),  # type: ignore[call-overload]
            subject=str(payload["subject"]),
            text=str(payload["text"]),
            html=payload.get("html"),  # type: ignore[arg-type]
            attachments=attachments,
            # Jobs queued before the id was kept in the payload get one per attempt.
            message_id=str(payload.get("messageId") or make_msgid(domain="plumbline.local")),
        )


def build_message(mail: Mail) -> EmailMessage:
    """The message to send; every header that can hold free text is ``one_line``. Raises
    ``Undeliverable`` when it cannot be built (an address with a line break, say)."""
    message = EmailMessage()
    try:
        message["From"] = one_line(settings.email_from)
        message["To"] = ", ".join(mail.to)
        message["Subject"] = one_line(mail.subject)
        message["Message-ID"] = mail.message_id
        message.set_content(mail.text)
        if mail.html:
            message.add_alternative(mail.html, subtype="html")
        for a in mail.attachments:
            maintype, _, subtype = a.content_type.partition("/")
            name = one_line(a.filename)
            message.add_attachment(a.data, maintype=maintype, subtype=subtype, filename=name)
    except (ValueError, TypeError) as exc:
        raise Undeliverable(f"Malformed message: {exc}") from exc
    return message


def _refused_for_good(exc: smtplib.SMTPException) -> bool:
    """A 5xx for every recipient, or for the message itself: the same answer every time."""
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        return all(code >= 500 for code, _ in exc.recipients.values())
    return isinstance(exc, smtplib.SMTPDataError) and exc.smtp_code >= 500


def _deliver_sync(message: EmailMessage) -> None:
    if not settings.smtp_url:
        settings.outbox_dir.mkdir(parents=True, exist_ok=True)
        path = settings.outbox_dir / f"{clock.now():%Y%m%dT%H%M%S}-{new_id()}.eml"
        path.write_bytes(bytes(message))
        log.info(
            "e-mail written",
            extra={"path": str(path), "to": message["To"], "subject": message["Subject"]},
        )
        return
    url = urlparse(settings.smtp_url)
    host, port = url.hostname or "localhost", url.port or (465 if url.scheme == "smtps" else 25)
    smtp: smtplib.SMTP
    if url.scheme == "smtps":
        smtp = smtplib.SMTP_SSL(host, port, context=ssl.create_default_context(), timeout=30)
    else:
        smtp = smtplib.SMTP(host, port, timeout=30)
    with smtp:
        if url.username:
            smtp.login(unquote(url.username), unquote(url.password or ""))
        try:
            refused = smtp.send_message(message)
        except smtplib.SMTPException as exc:
            if _refused_for_good(exc):
                raise Undeliverable(f"{type(exc).__name__}: {exc}") from exc
            raise  # a 4xx, a lost connection: worth another try
    if refused:  # some recipients got it: sending again would repeat it to them
        log.warning("e-mail refused for some recipients", extra={"refused": str(refused)})
    log.info("e-mail sent", extra={"to": message["To"], "subject": message["Subject"]})


async def deliver(mail: Mail) -> None:
    """Send now (in a thread: ``smtplib`` blocks). Queued delivery is the ``mail.send`` job."""
    await asyncio.to_thread(_deliver_sync, build_message(mail))
