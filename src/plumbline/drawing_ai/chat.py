"""Questions about one sheet, answered from its own text with ranked retrieval (BM25).

The passages are the sheet's phrases, its notes (each whole), and the title-block facts
("Scale: 1:100"), each with its box. The question's words (stop words dropped) are scored
against them with Okapi BM25 (``rank-bm25``); the best passages, and only those sharing a word
with the question, are the reply's citations. No shared word: the reply says plainly that the
sheet does not hold the answer, and cites nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from plumbline.drawing_ai.analysis.labels import DOOR_TAG, FIXTURES, WINDOW_TAG, is_room
from plumbline.drawing_ai.analysis.regions import box_of, norm, regions
from plumbline.drawing_ai.analysis.takeoff import read_takeoff
from plumbline.drawing_ai.analysis.title_block import discipline, read_title_block
from plumbline.drawing_ai.extract import Box, PageContent

TOP = 3
_TOKEN = re.compile(r"[a-z0-9]+(?:[-./][a-z0-9]+)*")
_STOP = """a an and are as at be by can could do does for from has have how i in is it its me
    of on or please shown show tell that the their there these this those to was what when
    where which who why will with you your sheet drawing page say says said"""
STOP_WORDS = frozenset(_STOP.split())
SYNONYMS = {
    "toilet": "wc",
    "toilets": "wc",
    "lavatory": "basin",
    "rev": "revision",
    "dated": "date",
    "doors": "door",
    "windows": "window",
    "rooms": "room",
    "notes": "note",
    "walls": "wall",
    "fixtures": "fixture",
}


@dataclass(frozen=True)
class Passage:
    text: str
    box: Box


def tokens(text: str) -> list[str]:
    words = []
    for word in _TOKEN.findall(text.lower()):
        word = SYNONYMS.get(word, word)
        words.append(word)
        if "-" in word:  # A-101 also matches a101 and 101
            words.append(word.replace("-", ""))
    return words


def passages(page: PageContent) -> list[Passage]:
    reg = regions(page)
    tb = read_title_block(page, reg.title_block)
    block = reg.title_block or Box(0, 0, page.width, page.height)
    found: list[Passage] = []
    facts = {
        "Sheet number": tb.number,
        "Sheet title": tb.title,
        "Discipline": discipline(tb.number),
        "Scale": tb.scale,
        "Revision": tb.revision,
        "Date": tb.date,
    }
    found.extend(Passage(f"{name}: {value}", block) for name, value in facts.items() if value)
    found.extend(_takeoff_facts(page))
    note_boxes = [box for _, box in reg.notes]
    found.extend(Passage(f"Note: {text}", box) for text, box in reg.notes)
    for phrase in page.phrases:
        if any(b.contains(phrase.cx, phrase.cy) for b in note_boxes):
            continue
        text = phrase.text
        upper = text.upper()
        if DOOR_TAG.match(upper):
            text = f"Door tag {text}"
        elif WINDOW_TAG.match(upper):
            text = f"Window tag {text}"
        elif FIXTURES.get(upper):
            text = f"Fixture {text}"
        elif is_room(text) and not reg.in_annotation(phrase.cx, phrase.cy, 1.0):
            text = f"Room {text}"
        found.append(Passage(text, box_of(phrase)))
    return found


def _takeoff_facts(page: PageContent) -> list[Passage]:
    """One passage per takeoff category: "Doors: 3 door tags (D01, D02, D03)"."""
    result = read_takeoff(page)
    whole = Box(0, 0, page.width, page.height)
    found = []
    for category, noun in (
        ("doors", "door tags"),
        ("windows", "window tags"),
        ("rooms", "room labels"),
        ("fixtures", "fixtures"),
    ):
        labels = [i["label"] for i in result["items"] if i["category"] == category]
        if labels:
            found.append(
                Passage(f"{category.title()}: {len(labels)} {noun} ({', '.join(labels)})", whole)
            )
    walls = result["lengths"]["walls"]
    if walls["runs"]:
        real = f"{walls['metres']} m" if walls["metres"] is not None else None
        if walls["feet"] is not None:
            real = f"{walls['feet']} ft ({walls['metres']} m)"
        length = f"{real} at {walls['scale']}" if real else f"{walls['paperMm']} mm on paper"
        found.append(Passage(f"Walls: {walls['runs']} wall runs, total length {length}", whole))
    return found


def answer(page: PageContent, messages: list[dict[str, str]]) -> dict[str, Any]:
    """``{reply, citations}`` for the last user message, from this page alone."""
    from rank_bm25 import BM25Okapi  # numpy: imported on first use, not at server start

    question = next((m["content"] for m in reversed(messages) if m["role"] == "user"), "")
    query = [t for t in tokens(question) if t not in STOP_WORDS]
    corpus = passages(page)
    if not query or not corpus:
        return not_found(question)
    docs = [tokens(p.text) for p in corpus]
    bm25 = BM25Okapi(docs)
    scores = bm25.get_scores(query)
    wanted = set(query)
    ranked = sorted(
        (i for i, doc in enumerate(docs) if wanted & set(doc)),
        key=lambda i: (-float(scores[i]), i),
    )
    if not ranked:
        return not_found(question)
    best = float(scores[ranked[0]])
    chosen = [i for i in ranked[:TOP] if float(scores[i]) >= best * 0.5]
    citations = [{"text": corpus[i].text, "bbox": norm(page, corpus[i].box)} for i in chosen]
    lines = [f"- {c['text']}" for c in citations]
    reply = "From this sheet:\n" + "\n".join(lines)
    return {"reply": reply, "citations": citations, "answered": True}


def not_found(question: str) -> dict[str, Any]:
    shown = question.strip()[:200]
    reply = (
        "This sheet does not hold the answer: nothing in its text matches"
        + (f' "{shown}".' if shown else " the question.")
        + " Try another page or sheet."
    )
    return {"reply": reply, "citations": [], "answered": False}
