"""The unit of work: e-mails queued in a transaction go out only when it commits."""

from sqlalchemy import select
from starlette.background import BackgroundTask

from plumbline.db import UnitOfWork, database
from plumbline.kit.ids import new_id
from plumbline.kit.mail import Mail
from plumbline.mail.tasks import queue
from plumbline.models import Job
from tests.factories import read_mails


async def _outbox_rows(to: str, *, sent: bool = False) -> int:
    """``mail.send`` jobs addressed to ``to`` (only those done with ``sent``)."""
    query = select(Job.payload).where(Job.name == "mail.send")
    if sent:
        query = query.where(Job.status == "done")
    async with database.sessionmaker() as db:
        rows = (await db.execute(query)).scalars().all()
        return sum(1 for payload in rows if to in payload["to"])


async def test_mail_is_delivered_after_commit(outbox) -> None:  # type: ignore[no-untyped-def]
    to = f"{new_id()}@example.com"
    async with database.sessionmaker() as session:
        uow = UnitOfWork(session)
        queue(uow, Mail(to=[to], subject="Hello", text="Body"))
        assert read_mails(outbox, to) == []
        await uow.commit()
    [message] = read_mails(outbox, to)
    assert message["Subject"] == "Hello"
    assert await _outbox_rows(to, sent=True) == 1


async def test_rolled_back_mail_is_never_sent(outbox) -> None:  # type: ignore[no-untyped-def]
    to = f"{new_id()}@example.com"
    async with database.sessionmaker() as session:
        uow = UnitOfWork(session)
        queue(uow, Mail(to=[to], subject="Never", text="Body"))
        await session.flush()
        await uow.rollback()
    assert read_mails(outbox, to) == []
    assert await _outbox_rows(to) == 0


async def test_work_after_the_response_runs_in_order_and_survives_a_failure(caplog) -> None:  # type: ignore[no-untyped-def]
    from starlette.responses import Response

    from plumbline.routing import _run_after_sending

    ran: list[str] = []

    async def earlier() -> None:
        ran.append("response's own task")

    async def failing() -> None:
        ran.append("failing")
        raise RuntimeError("SMTP exploded")

    async def later() -> None:
        ran.append("later")

    response = Response(b"{}")
    response.background = BackgroundTask(earlier)
    _run_after_sending(response, [failing, later])
    assert response.background is not None
    await response.background()
    assert ran == ["response's own task", "failing", "later"]
    assert "work after the response failed" in caplog.text
