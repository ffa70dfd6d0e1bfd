"""Chat grounded in the sheet's text, its rate limit, and the optional OpenAI-compatible LLM
against a local stand-in server speaking the chat-completions protocol."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from pydantic import SecretStr

from plumbline.config import settings
from plumbline.kit.ids import new_id
from tests.drawing_ai.helpers import ai, count_results, stored_results, upload_sheet


def ask(question: str, *history: dict[str, str]) -> dict[str, Any]:
    return {"pageIndex": 0, "messages": [*history, {"role": "user", "content": question}]}


async def test_answers_cite_the_sheet_text_with_boxes(client, world):
    version_id = await upload_sheet(client, world.member.headers, world.project.id)
    response = await client.post(
        ai(version_id, "chat"), json=ask("What is the scale?"), headers=world.member.headers
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["citations"][0]["text"] == "Scale: 1:100"
    assert "1:100" in body["reply"]
    box = body["citations"][0]["bbox"]
    assert 0 <= box["x0"] < box["x1"] <= 1 and 0 <= box["y0"] < box["y1"] <= 1
    fire = (
        await client.post(
            ai(version_id, "chat"),
            json=ask("Which doors are fire rated?"),
            headers=world.member.headers,
        )
    ).json()
    assert fire["citations"][0]["text"] == "Note: DOORS D01 AND D02 TO BE FIRE RATED FD30."
    doors = (
        await client.post(
            ai(version_id, "chat"), json=ask("How many doors?"), headers=world.member.headers
        )
    ).json()
    assert doors["citations"][0]["text"] == "Doors: 3 door tags (D01, D02, D03)"
    # The last user message is the question; earlier turns are context.
    follow = (
        await client.post(
            ai(version_id, "chat"),
            json=ask(
                "and the total wall length?",
                {"role": "user", "content": "What is the scale?"},
                {"role": "assistant", "content": "1:100"},
            ),
            headers=world.member.headers,
        )
    ).json()
    assert follow["citations"][0]["text"] == "Walls: 6 wall runs, total length 53.0 m at 1:100"
    assert await count_results(version_id) == 0  # chat is not cached


async def test_says_plainly_when_the_sheet_does_not_hold_the_answer(client, world):
    version_id = await upload_sheet(client, world.member.headers, world.project.id)
    response = await client.post(
        ai(version_id, "chat"),
        json=ask("What roof insulation thickness is specified?"),
        headers=world.member.headers,
    )
    assert response.status_code == 200
    body = response.json()
    assert body["citations"] == []
    assert body["reply"].startswith("This sheet does not hold the answer")


async def test_forty_questions_per_ten_minutes_per_user(client, world):
    version_id = await upload_sheet(client, world.member.headers, world.project.id)
    for _ in range(40):
        ok = await client.post(
            ai(version_id, "chat"), json=ask("scale"), headers=world.member.headers
        )
        assert ok.status_code == 200
    limited = await client.post(
        ai(version_id, "chat"), json=ask("scale"), headers=world.member.headers
    )
    assert limited.status_code == 429
    assert limited.json()["code"] == "RATE_LIMITED"
    assert 0 < int(limited.headers["Retry-After"]) <= 600
    # Per user: another member still asks.
    other = await client.post(
        ai(version_id, "chat"), json=ask("scale"), headers=world.manager.headers
    )
    assert other.status_code == 200


# -- the LLM stand-in --------------------------------------------------------------------------


@dataclass
class StandIn:
    url: str
    mode: str = "ok"
    reply: str = ""
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[StandIn]:
    """An OpenAI-compatible ``/v1/chat/completions`` on 127.0.0.1: answers a completion
    (``ok``), a 503 (``error``), 200 with a body that is not a completion (``garbage``), or
    nothing until the test ends (``hang``)."""
    state = StandIn(url="", reply=f"LLM wording {new_id()}")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            state.requests.append(json.loads(self.rfile.read(length)))
            state.headers.append({"path": self.path, **dict(self.headers)})
            if state.mode == "hang":  # answers only once the test is over
                state.release.wait(60)
                self._send(200, {"choices": [{"message": {"content": "too late"}}]})
            elif state.mode == "error":
                self._send(503, {"error": {"message": "overloaded", "type": "server_error"}})
            elif state.mode == "garbage":
                self._send(200, {"unexpected": True})
            else:
                self._send(
                    200,
                    {
                        "id": "chatcmpl-1",
                        "object": "chat.completion",
                        "model": state.requests[-1]["model"],
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": state.reply},
                                "finish_reason": "stop",
                            }
                        ],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                    },
                )

        def _send(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *_: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    monkeypatch.setattr(settings, "llm_url", state.url)
    monkeypatch.setattr(settings, "llm_api_key", SecretStr("sk-test-key"))
    monkeypatch.setattr(settings, "llm_model", "sheet-model")
    yield state
    state.release.set()
    server.shutdown()
    server.server_close()


async def test_the_llm_writes_the_summary_from_the_extracted_text(client, world, llm):
    version_id = await upload_sheet(client, world.member.headers, world.project.id)
    response = await client.post(
        ai(version_id, "sheet-summary"), json={"pageIndex": 0}, headers=world.member.headers
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["summaryMarkdown"] == llm.reply
    assert body["sheetNumber"] == "A-101"  # the fields stay the local reading's
    sent = llm.requests[0]
    assert llm.headers[0]["path"] == "/v1/chat/completions"
    assert llm.headers[0]["Authorization"] == "Bearer sk-test-key"
    assert sent["model"] == "sheet-model"
    prompt = sent["messages"][-1]["content"]
    assert "GROUND FLOOR PLAN" in prompt and "DO NOT SCALE FROM THIS DRAWING." in prompt
    stored = await stored_results(version_id)
    assert stored[0]["result"]["summaryMarkdown"] == llm.reply


async def test_the_llm_words_the_chat_reply_from_the_citations(client, world, llm):
    version_id = await upload_sheet(client, world.member.headers, world.project.id)
    response = await client.post(
        ai(version_id, "chat"), json=ask("What is the scale?"), headers=world.member.headers
    )
    body = response.json()
    assert body["reply"] == llm.reply
    assert body["citations"][0]["text"] == "Scale: 1:100"
    system = llm.requests[0]["messages"][0]["content"]
    assert "[1] Scale: 1:100" in system
    assert llm.requests[0]["messages"][-1] == {"role": "user", "content": "What is the scale?"}
    # Nothing on the sheet to ground an answer: the model is not asked to make one up.
    before = len(llm.requests)
    none = await client.post(
        ai(version_id, "chat"), json=ask("roof insulation?"), headers=world.member.headers
    )
    assert none.json()["reply"].startswith("This sheet does not hold the answer")
    assert len(llm.requests) == before


@pytest.mark.parametrize("mode", ["error", "garbage", "hang"])
async def test_a_failing_llm_falls_back_to_the_local_answer(client, world, llm, mode, monkeypatch):
    llm.mode = mode
    # A model that never answers is given up on after the configured timeout.
    monkeypatch.setattr(settings, "llm_timeout_seconds", 1.0)
    version_id = await upload_sheet(client, world.member.headers, world.project.id)
    summary = await client.post(
        ai(version_id, "sheet-summary"), json={"pageIndex": 0}, headers=world.member.headers
    )
    assert summary.status_code == 200
    assert summary.json()["summaryMarkdown"].startswith("### A-101 - GROUND FLOOR PLAN")
    chat = await client.post(
        ai(version_id, "chat"), json=ask("What is the scale?"), headers=world.member.headers
    )
    assert chat.status_code == 200
    assert chat.json()["reply"].startswith("From this sheet:")
    assert len(llm.requests) == 2  # both were tried


async def test_an_unreachable_llm_falls_back_too(client, world, monkeypatch):
    from tests.live import free_port

    monkeypatch.setattr(settings, "llm_url", f"http://127.0.0.1:{free_port()}/v1")
    version_id = await upload_sheet(client, world.member.headers, world.project.id)
    chat = await client.post(
        ai(version_id, "chat"), json=ask("What is the scale?"), headers=world.member.headers
    )
    assert chat.status_code == 200
    assert chat.json()["reply"].startswith("From this sheet:")


@pytest.mark.parametrize("route", ["sheet-summary", "chat"])
async def test_no_transaction_is_held_while_the_llm_words_the_answer(
    client, world, llm, route, monkeypatch
):
    """Parsing the page and waiting on the model happen outside the request's transaction:
    on SQLite (one writer at a time) another request writes meanwhile."""
    llm.mode = "hang"  # answers once released
    monkeypatch.setattr(settings, "llm_timeout_seconds", 120.0)
    version_id = await upload_sheet(client, world.member.headers, world.project.id)
    body = {"pageIndex": 0} if route == "sheet-summary" else ask("What is the scale?")
    asked = asyncio.create_task(
        client.post(ai(version_id, route), json=body, headers=world.member.headers)
    )
    for _ in range(6000):  # a bound on the wait for the model's call, not a timed assertion
        if llm.requests or asked.done():
            break
        await asyncio.sleep(0.01)
    assert llm.requests, "the model was never called"
    written = await client.post(
        f"/api/v1/projects/{world.project.id}/issues",
        json={"title": f"Written while the model thinks {new_id()}"},
        headers=world.manager.headers,
    )
    assert written.status_code == 200, written.text
    assert not asked.done()  # the model has not answered yet: the write did not wait for it
    llm.release.set()
    answered = await asked
    assert answered.status_code == 200, answered.text
