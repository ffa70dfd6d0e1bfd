"""A receiver that does not answer within 10 s: the attempt is a failure, retried later."""

from __future__ import annotations

import httpx
import pytest

from plumbline.config import settings
from plumbline.webhook.delivery import TIMEOUT_SECONDS
from tests.factories import World
from tests.webhook.receiver import Receiver
from tests.webhook.support import create_issue, create_webhook, deliveries, event_ids


async def test_no_answer_within_the_timeout_is_a_failed_attempt_kept_for_a_retry(
    client: httpx.AsyncClient, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(settings, "webhooks_allow_private", True)
    with Receiver(200, delay=TIMEOUT_SECONDS + 3) as receiver:
        hook = await create_webhook(client, world, receiver.url)
        issue = await create_issue(client, world)  # the first attempt follows the response
        [sent] = await event_ids(world, issue["id"])
        [delivery] = await deliveries(client, world, hook["id"])
        assert receiver.ids() == [sent]  # it was reached, and answered too late
    assert (delivery["id"], delivery["status"]) == (sent, "pending")
    [attempt] = delivery["attempts"]
    assert attempt["statusCode"] is None
    assert attempt["error"] == f"No answer within {TIMEOUT_SECONDS:.0f} s"
    assert attempt["durationMs"] >= TIMEOUT_SECONDS * 1000
    assert delivery["nextAttemptAt"] is not None
