"""Where things are on a sheet: the title block, the notes block and their boxes."""

from __future__ import annotations

import re
from dataclasses import dataclass

from plumbline.drawing_ai.extract import Box, PageContent, Phrase

NOTES_HEADING = re.compile(r"^(?:GENERAL\s+|SHEET\s+|KEY\s+|CONSTRUCTION\s+)?NOTES?\s*:?$", re.I)
NOTE_ITEM = re.compile(r"^(?:\d{1,3}[.)]|[-*\u2022])\s+")


@dataclass
class Regions:
    title_block: Box | None
    notes_box: Box | None
    notes_heading: Phrase | None
    notes: list[tuple[str, Box]]

    def in_annotation(self, x: float, y: float, margin: float = 0.0) -> bool:
        """In the title block or the notes block: not the drawing area."""
        return any(
            box is not None and box.contains(x, y, margin)
            for box in (self.title_block, self.notes_box)
        )


def union(boxes: list[Box]) -> Box:
    return Box(
        min(b.x0 for b in boxes),
        min(b.top for b in boxes),
        max(b.x1 for b in boxes),
        max(b.bottom for b in boxes),
    )


def box_of(p: Phrase) -> Box:
    return Box(p.x0, p.top, p.x1, p.bottom)


def title_block(page: PageContent) -> Box | None:
    """The largest bordered box reaching into the bottom-right quarter that holds text and is
    smaller than a quarter of the page; else the text in the bottom-right corner."""
    area = page.width * page.height
    candidates = [
        r
        for r in page.rects
        if r.x1 > page.width * 0.75
        and r.bottom > page.height * 0.75
        and (r.x1 - r.x0) * (r.bottom - r.top) < area / 4
        and any(r.contains(p.cx, p.cy) for p in page.phrases)
    ]
    if candidates:
        return max(candidates, key=lambda r: (r.x1 - r.x0) * (r.bottom - r.top))
    corner = [
        box_of(p) for p in page.phrases if p.x0 > page.width * 0.7 and p.top > page.height * 0.7
    ]
    return union(corner) if corner else None


def regions(page: PageContent) -> Regions:
    """The title block, and the notes block: the first "NOTES" heading outside the title block
    and the lines under it, aligned with it, until a gap of 2.5 lines or the title block; a
    numbered or bulleted line starts the next note."""
    block = title_block(page)
    heading = next(
        (
            p
            for p in page.phrases
            if NOTES_HEADING.match(p.text) and not (block and block.contains(p.cx, p.cy))
        ),
        None,
    )
    notes: list[tuple[str, Box]] = []
    if heading is None:
        return Regions(block, None, None, notes)
    below = sorted(
        (
            p
            for p in page.phrases
            if p.top >= heading.bottom - 0.5
            and heading.x0 - heading.size <= p.x0 <= heading.x0 + 6 * heading.size
            and p is not heading
        ),
        key=lambda p: p.top,
    )
    last_bottom = heading.bottom
    current: list[Phrase] = []
    for phrase in below:
        if phrase.top - last_bottom > 2.5 * max(phrase.size, heading.size):
            break
        if block and block.contains(phrase.cx, phrase.cy):
            break
        if NOTE_ITEM.match(phrase.text) and current:
            notes.append(_note(current))
            current = []
        current.append(phrase)
        last_bottom = phrase.bottom
    if current:
        notes.append(_note(current))
    boxes = [box_of(heading), *(b for _, b in notes)]
    return Regions(block, union(boxes), heading, notes)


def _note(lines: list[Phrase]) -> tuple[str, Box]:
    """One note's lines joined, without its number or bullet, and their box."""
    text = " ".join(p.text for p in lines)
    return NOTE_ITEM.sub("", text, count=1).strip(), union([box_of(p) for p in lines])


def norm(page: PageContent, box: Box) -> dict[str, float]:
    """The box in page fractions from the top-left corner, clamped to the page, 4 decimals."""

    def clamp(v: float) -> float:
        return round(min(max(v, 0.0), 1.0), 4)

    return {
        "x0": clamp(box.x0 / page.width),
        "y0": clamp(box.top / page.height),
        "x1": clamp(box.x1 / page.width),
        "y1": clamp(box.bottom / page.height),
    }
