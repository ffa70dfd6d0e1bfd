"""The marketing chat: the product FAQ (``faq.md``) ranked with BM25 against the question.

The visitor's last message is the question. No outside service; a weak best match says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

from rank_bm25 import BM25Okapi

# A match is weak, and the reply says it does not know, when the best entry holds no more
# than half of the question's words or its BM25 score is under MIN_SCORE (tried on the FAQ:
# on-topic questions hold most of their words and score 2 and more).
MIN_SCORE = 1.5
MIN_COVERAGE = 0.6
UNKNOWN = (
    "I don't know that one: I can only answer from the Plumbline FAQ. The documentation in the "
    "repository's docs/ folder and the API reference at /api/v1/docs cover the rest. You can "
    "ask me about plans, seats and storage, self-hosting, the API and keys, or any module."
)
_WORD = re.compile(r"[a-z0-9]+")
_STOP_WORDS = (
    "a an and are as at be by can do does for from how i if in is it its me my of on or so "
    "that the their there this to was what when where which who will with you your we our "
    "have has about any much many work works use using get tell"
)
_STOP = frozenset(_STOP_WORDS.split(" "))


def tokens(text: str) -> list[str]:
    """Lower-case words without stop words, plurals folded ("issues" -> "issue"). The product's
    own name is in nearly every entry: a question naming only it asks what it is."""
    words = []
    for word in _WORD.findall(text.lower()):
        if word in _STOP or len(word) < 2:
            continue
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        words.append(word)
    if words and set(words) == {"plumbline"}:
        return ["overview"]
    return [word for word in words if word != "plumbline"]


@dataclass(frozen=True)
class Entry:
    question: str
    answer: str
    keywords: str = ""  # other words people ask it with: indexed, never shown


def parse(text: str) -> list[Entry]:
    """``## question`` blocks; an answer's first line may be ``Keywords: ...``."""
    entries = []
    for block in text.split("\n## ")[1:]:
        question, _, answer = block.partition("\n")
        keywords = ""
        if answer.startswith("Keywords:"):
            first, _, answer = answer.partition("\n")
            keywords = first.removeprefix("Keywords:")
        entries.append(Entry(question.strip(), " ".join(answer.split()), keywords.strip()))
    return entries


class Faq:
    def __init__(self, entries: list[Entry]) -> None:
        self.entries = entries
        # The question counts twice: it says what the entry is about.
        corpus = [tokens(f"{e.question} {e.question} {e.keywords} {e.answer}") for e in entries]
        self._words = [set(words) for words in corpus]
        self._index = BM25Okapi(corpus)

    def best(self, question: str) -> tuple[Entry | None, float, float]:
        """The best entry, its score and the share of the question's words it holds."""
        words = tokens(question)
        if not words:
            return None, 0.0, 0.0
        scores = self._index.get_scores(words)
        index = max(range(len(scores)), key=lambda i: scores[i])
        distinct = set(words)
        coverage = len(distinct & self._words[index]) / len(distinct)
        return self.entries[index], float(scores[index]), coverage

    def reply(self, question: str) -> str:
        entry, score, coverage = self.best(question)
        if entry is None or score < MIN_SCORE or coverage < MIN_COVERAGE:
            return UNKNOWN
        return entry.answer


@cache
def faq() -> Faq:
    return Faq(parse((resources.files("plumbline.public") / "faq.md").read_text("utf-8")))
