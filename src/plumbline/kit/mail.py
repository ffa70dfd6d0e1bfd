"""E-mail messages and their delivery (queued delivery is the ``mail.send`` job).

Delivery writes ``.eml`` files to ``PLUMBLINE_OUTBOX_DIR`` by default, or sends over SMTP when
``PLUMBLINE_SMTP_URL`` is set (``smtp://user:pass@host:port``, ``smtps://`` for TLS).
"""

from __future__ import annotations

import asyncio
import base64
import logging
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

    def to_payload(self) -> dict[str, object]:
        return {
            "to": self.to,
            "subject": self.subject,
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
        )


def build_message(mail: Mail) -> EmailMessage:
    message = EmailMessage()
    message["From"] = settings.email_from
    message["To"] = ", ".join(mail.to)
    message["Subject"] = mail.subject
    message["Message-ID"] = make_msgid(domain="plumbline.local")
    message.set_content(mail.text)
    if mail.html:
        message.add_alternative(mail.html, subtype="html")
    for a in mail.attachments:
        maintype, _, subtype = a.content_type.partition("/")
        message.add_attachment(a.data, maintype=maintype, subtype=subtype, filename=a.filename)
    return message


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
        smtp.send_message(message)
    log.info("e-mail sent", extra={"to": message["To"], "subject": message["Subject"]})


async def deliver(mail: Mail) -> None:
    """Send now (in a thread: ``smtplib`` blocks). Queued delivery is the ``mail.send`` job."""
    await asyncio.to_thread(_deliver_sync, build_message(mail))
