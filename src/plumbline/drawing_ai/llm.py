"""The optional LLM: an OpenAI-compatible ``/chat/completions`` endpoint that words the summary
and the chat reply from the text the sheet reader already found and cited.

It never decides what the sheet says: the fields, notes, rooms and citations stay the local
reading's. Unset (``PLUMBLINE_LLM_URL``), slow, failing or answering something that is not a
chat completion, it is skipped and the local wording stands; the failure is logged.
"""

from __future__ import annotations

import logging
from typing import Any

import httpx

from plumbline.config import settings

log = logging.getLogger("plumbline")
MAX_REPLY = 8000  # characters kept from the model's answer
SYSTEM = (
    "You help construction and facilities teams read drawing sheets. Answer only from the "
    "sheet content you are given; if it does not hold the answer, say so plainly. Be brief."
)


def configured() -> bool:
    return bool(settings.llm_url)


def endpoint() -> str:
    url = (settings.llm_url or "").rstrip("/")
    return url if url.endswith("/chat/completions") else f"{url}/chat/completions"


async def complete(messages: list[dict[str, str]]) -> str | None:
    """The model's reply, or None when there is no model or it did not answer properly."""
    if not configured():
        return None
    headers = {"Content-Type": "application/json"}
    if settings.llm_api_key is not None:
        headers["Authorization"] = f"Bearer {settings.llm_api_key.get_secret_value()}"
    body = {"model": settings.llm_model, "messages": messages, "temperature": 0}
    try:
        async with httpx.AsyncClient(timeout=settings.llm_timeout_seconds) as client:
            response = await client.post(endpoint(), json=body, headers=headers)
        response.raise_for_status()
        return _content(response.json())
    except (httpx.HTTPError, httpx.InvalidURL, ValueError) as exc:
        log.warning("drawing-ai: LLM unavailable, local answer used: %s", type(exc).__name__)
        return None


def _content(payload: Any) -> str | None:
    try:
        content = payload["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        log.warning("drawing-ai: LLM answer is not a chat completion; local answer used")
        return None
    if not isinstance(content, str) or not content.strip():
        log.warning("drawing-ai: LLM answer is empty; local answer used")
        return None
    return content.strip()[:MAX_REPLY]


async def summary_markdown(summary: dict[str, Any], sheet_text: str) -> str | None:
    facts = {k: v for k, v in summary.items() if k not in ("summaryMarkdown", "tableOfContents")}
    prompt = (
        "Write a short markdown summary (at most 8 lines) of this drawing sheet for a site "
        f"team.\n\nFields read from the sheet: {facts}\n\nSheet text:\n{sheet_text}"
    )
    return await complete(
        [{"role": "system", "content": SYSTEM}, {"role": "user", "content": prompt}]
    )


async def chat_reply(
    messages: list[dict[str, str]], citations: list[dict[str, Any]], answered: bool
) -> str | None:
    if not answered:
        return None  # nothing on the sheet to ground an answer in: the plain local refusal
    cited = "\n".join(f"[{i}] {c['text']}" for i, c in enumerate(citations, 1))
    context = "Sheet passages that match the question (cite them by number):\n" + cited
    return await complete(
        [
            {"role": "system", "content": f"{SYSTEM}\n\n{context}"},
            *({"role": m["role"], "content": m["content"]} for m in messages[-10:]),
        ]
    )
