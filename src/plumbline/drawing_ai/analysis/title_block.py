"""The title block's fields: sheet number and discipline, title, scale, revision and date."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime

from plumbline.drawing_ai.analysis.scale import IMPERIAL_SCALE, METRIC_SCALE
from plumbline.drawing_ai.extract import Box, PageContent, Phrase

# US National CAD Standard discipline designators.
DISCIPLINES = {
    "A": "Architectural",
    "C": "Civil",
    "D": "Process",
    "E": "Electrical",
    "F": "Fire Protection",
    "FP": "Fire Protection",
    "G": "General",
    "H": "Hazardous Materials",
    "I": "Interiors",
    "ID": "Interiors",
    "L": "Landscape",
    "M": "Mechanical",
    "P": "Plumbing",
    "Q": "Equipment",
    "R": "Resource",
    "S": "Structural",
    "T": "Telecommunications",
    "V": "Survey",
    "X": "Other",
    "Z": "Contractor",
}
SHEET_NUMBER = re.compile(r"^(?P<prefix>[A-Z]{1,2})-?\d{1,3}(?:\.\d{1,3})?[A-Z]?$")
REVISION = re.compile(r"^REV(?:ISION)?\b\.?\s*(?:NO\.?)?\s*:?\s*([A-Z0-9]{1,4})\b", re.IGNORECASE)
DATE_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
DATE_WORDS = re.compile(r"\b(\d{1,2})\s+([A-Za-z]{3,9})\.?\s+(\d{4})\b")
DATE_NUMERIC = re.compile(r"\b\d{1,2}[./]\d{1,2}[./]\d{2,4}\b")
# Words that make a title-block line the sheet's title when it has no label.
DRAWING_WORDS = {
    "PLAN", "PLANS", "ELEVATION", "ELEVATIONS", "SECTION", "SECTIONS", "DETAIL", "DETAILS",
    "SCHEDULE", "SCHEDULES", "LAYOUT", "DIAGRAM", "RISER", "REFLECTED", "SITE", "FRAMING",
    "FOUNDATION", "ROOF", "FLOOR", "LEVEL", "COVER", "LEGEND", "NOTES",
}  # fmt: skip
# Title-block labels and the field each names.
LABELS = {
    "TITLE": "title",
    "DRAWING TITLE": "title",
    "SHEET TITLE": "title",
    "DRAWING": "title",
    "SCALE": "scale",
    "DATE": "date",
    "REV": "revision",
    "REVISION": "revision",
    "SHEET": "number",
    "SHEET NO": "number",
    "SHEET NO.": "number",
    "SHEET NUMBER": "number",
    "DRAWING NO": "number",
    "DRAWING NO.": "number",
    "DWG NO": "number",
    "DWG NO.": "number",
}
_LABEL = re.compile(
    r"^("
    + "|".join(re.escape(k) for k in sorted(LABELS, key=len, reverse=True))
    + r")\s*[:#]?\s*(.*)$",
    re.IGNORECASE,
)


@dataclass
class TitleBlock:
    number: str | None = None
    title: str | None = None
    scale: str | None = None
    revision: str | None = None
    date: str | None = None
    number_phrase: Phrase | None = None


def _labelled(phrases: list[Phrase]) -> dict[str, tuple[str, Phrase]]:
    """Label: value on one line, or a label alone with its value on the line below."""
    found: dict[str, tuple[str, Phrase]] = {}
    for i, phrase in enumerate(phrases):
        match = _LABEL.match(phrase.text)
        if match is None:
            continue
        field = LABELS[match[1].upper()]
        value = match[2].strip()
        source = phrase
        if not value:
            under = [
                p
                for p in phrases[i + 1 :]
                if p.top >= phrase.bottom - 0.5
                and p.x0 < phrase.x1 + phrase.size
                and p.x1 > phrase.x0 - phrase.size
                and not _LABEL.match(p.text)
            ]
            if not under:
                continue
            source = min(under, key=lambda p: p.top)
            value = source.text
        if field == "revision" and len(value) > 6:
            continue  # a revision history table's heading, not the current revision
        found.setdefault(field, (value, source))
    return found


def read_title_block(page: PageContent, block: Box | None) -> TitleBlock:
    """Each field from its label first. Unlabelled: the number is the largest text shaped like
    a sheet number, the revision a ``REV x`` line, the date the first date, the title the
    largest remaining line, preferring one with a drawing word (PLAN, SECTION ...)."""
    inside = [p for p in page.phrases if block is not None and block.contains(p.cx, p.cy, 1.0)]
    result = TitleBlock()
    labelled = _labelled(inside)
    if "number" in labelled:
        value, source = labelled["number"]
        token = value.split()[0] if value.split() else ""
        if SHEET_NUMBER.match(token.upper()):
            result.number, result.number_phrase = token.upper(), source
    if result.number is None:
        numbers = [p for p in inside if SHEET_NUMBER.match(p.text.upper())]
        if numbers:
            best = max(numbers, key=lambda p: p.size)
            result.number, result.number_phrase = best.text.upper(), best
    text = [p.text for p in inside]
    result.scale = _scale_text(labelled["scale"][0] if "scale" in labelled else None, text)
    if "revision" in labelled:
        result.revision = labelled["revision"][0].split()[0].upper()
    else:
        result.revision = next(
            (m[1].upper() for t in text if (m := REVISION.match(t.strip())) is not None), None
        )
    date_source = [labelled["date"][0]] if "date" in labelled else text
    result.date = next((d for t in date_source if (d := parse_date(t)) is not None), None)
    if "title" in labelled:
        result.title = labelled["title"][0]
    else:
        others = [
            p
            for p in inside
            if p is not result.number_phrase
            and not _LABEL.match(p.text)
            and parse_date(p.text) is None
            and not METRIC_SCALE.search(p.text)
            and not IMPERIAL_SCALE.search(p.text)
            and len(p.text) > 3
        ]
        if others:
            result.title = max(
                others, key=lambda p: (bool(DRAWING_WORDS & set(p.text.upper().split())), p.size)
            ).text
    return result


def _scale_text(labelled: str | None, text: list[str]) -> str | None:
    """The labelled scale, else the first scale in the block, as printed; ``NOT TO SCALE``
    and its abbreviations read ``NTS``."""
    for candidate in ([labelled] if labelled else []) + text:
        if candidate and candidate.strip().upper() in {"NTS", "N.T.S.", "NOT TO SCALE"}:
            return "NTS"
        match = METRIC_SCALE.search(candidate) or IMPERIAL_SCALE.search(candidate)
        if match:
            return match[0].strip()
    return None


def parse_date(text: str) -> str | None:
    """ISO ``YYYY-MM-DD`` when the written date is unambiguous (ISO, or with a month name);
    a numeric day/month date as printed (03/04/2026 reads both ways)."""
    if m := DATE_ISO.search(text):
        try:
            return date(int(m[1]), int(m[2]), int(m[3])).isoformat()
        except ValueError:
            return None
    if m := DATE_WORDS.search(text):
        for fmt in ("%d %b %Y", "%d %B %Y"):
            try:
                return datetime.strptime(f"{m[1]} {m[2]} {m[3]}", fmt).date().isoformat()
            except ValueError:
                continue
    if m := DATE_NUMERIC.search(text):
        return m[0]
    return None


def discipline(number: str | None) -> str | None:
    """The discipline named by the sheet number's prefix: both letters (``FP``), else the first."""
    if not number:
        return None
    match = SHEET_NUMBER.match(number)
    if match is None:
        return None
    prefix = match["prefix"]
    return DISCIPLINES.get(prefix) or DISCIPLINES.get(prefix[0])
