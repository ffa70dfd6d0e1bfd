"""What a sheet says, read from its text positions and vector lines (docs/drawing-ai.md).

Regions: the title block (the bordered box in the bottom-right corner holding text, else the
text in that corner), the notes block (a "NOTES" heading and the lines under it) and the drawing
area (everything else). Boxes in answers are normalised to 0..1 from the page's top-left corner:
``{x0, y0, x1, y1}``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from plumbline.drawing_ai.extract import Box, PageContent, Phrase, Segment

# -- patterns ----------------------------------------------------------------------------------

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
METRIC_SCALE = re.compile(r"\b1\s*:\s*(\d{1,5})\b")
_INCHES = r"(\d+\s+\d+/\d+|\d+/\d+|\d+(?:\.\d+)?)"
IMPERIAL_SCALE = re.compile(
    _INCHES + r"\s*(?:\"|''|in\b)\s*=\s*(\d+)\s*(?:'|ft\b)\s*(?:-?\s*(\d+)\s*\"?)?",
    re.IGNORECASE,
)
REVISION = re.compile(r"^REV(?:ISION)?\b\.?\s*(?:NO\.?)?\s*:?\s*([A-Z0-9]{1,4})\b", re.IGNORECASE)
DATE_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
DATE_WORDS = re.compile(r"\b(\d{1,2})\s+([A-Za-z]{3,9})\.?\s+(\d{4})\b")
DATE_NUMERIC = re.compile(r"\b\d{1,2}[./]\d{1,2}[./]\d{2,4}\b")
NOTES_HEADING = re.compile(r"^(?:GENERAL\s+|SHEET\s+|KEY\s+|CONSTRUCTION\s+)?NOTES?\s*:?$", re.I)
NOTE_ITEM = re.compile(r"^(?:\d{1,3}[.)]|[-*\u2022])\s+")
# Door and window tags: a letter D or W, an optional hyphen, 1 to 3 digits, an optional letter.
DOOR_TAG = re.compile(r"^D-?\d{1,3}[A-Z]?$")
WINDOW_TAG = re.compile(r"^W-?\d{1,3}[A-Z]?$")
FIXTURES = {
    "WC": "WC",
    "TOILET": "WC",
    "WATER CLOSET": "WC",
    "URINAL": "urinal",
    "BASIN": "basin",
    "WHB": "basin",
    "LAV": "basin",
    "LAVATORY": "basin",
    "SINK": "sink",
    "KITCHEN SINK": "sink",
    "SHOWER": "shower",
    "BATH TUB": "bathtub",
    "BATHTUB": "bathtub",
    "TUB": "bathtub",
    "DRINKING FOUNTAIN": "drinking fountain",
}
ROOM_WORDS = {
    "ROOM",
    "KITCHEN",
    "KITCHENETTE",
    "BEDROOM",
    "BATHROOM",
    "BATH",
    "ENSUITE",
    "LIVING",
    "DINING",
    "LOUNGE",
    "OFFICE",
    "OFFICES",
    "LOBBY",
    "FOYER",
    "ENTRY",
    "HALL",
    "HALLWAY",
    "CORRIDOR",
    "STAIR",
    "STAIRS",
    "STAIRWELL",
    "ELEV",
    "ELEVATOR",
    "LIFT",
    "STORE",
    "STORAGE",
    "CLOSET",
    "PANTRY",
    "LAUNDRY",
    "UTILITY",
    "GARAGE",
    "STUDY",
    "DEN",
    "CONF",
    "CONFERENCE",
    "MEETING",
    "RECEPTION",
    "WAITING",
    "RESTROOM",
    "RESTROOMS",
    "TOILETS",
    "LOCKER",
    "LOCKERS",
    "CHANGING",
    "PLANT",
    "MECH",
    "MECHANICAL",
    "ELECTRICAL",
    "SERVER",
    "IT",
    "JANITOR",
    "CLEANER",
    "CLASSROOM",
    "LAB",
    "LABORATORY",
    "WORKSHOP",
    "WAREHOUSE",
    "CAFE",
    "CAFETERIA",
    "BREAK",
    "BREAKOUT",
    "COPY",
    "PRINT",
    "MAIL",
    "LIBRARY",
    "GYM",
    "NURSERY",
    "WARD",
    "TERRACE",
    "BALCONY",
    "PORCH",
    "VESTIBULE",
    "SHAFT",
    "RISER",
    "CUPBOARD",
    "WARDROBE",
}
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

POINTS_PER_MM = 72 / 25.4
WALL_MIN_WIDTH = 1.0  # points (0.35 mm): thinner strokes are annotation, not walls
WALL_MIN_LENGTH = 3 * POINTS_PER_MM  # shorter strokes are ticks and hatching
EDGE_BAND = 15 * POINTS_PER_MM  # strokes this close to a page edge are the sheet border
ANGLE_TOLERANCE = math.radians(1.0)
OFFSET_TOLERANCE = 1.0  # points between two strokes of one straight wall
GAP_TOLERANCE = 1.0  # points: strokes this close along a wall are one wall
FEET_PER_METRE = 1 / 0.3048


# -- regions -----------------------------------------------------------------------------------


@dataclass
class Regions:
    title_block: Box | None
    notes_box: Box | None
    notes_heading: Phrase | None
    notes: list[tuple[str, Box]]

    def in_annotation(self, x: float, y: float, margin: float = 0.0) -> bool:
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
    text = " ".join(p.text for p in lines)
    return NOTE_ITEM.sub("", text, count=1).strip(), union([box_of(p) for p in lines])


# -- title block -------------------------------------------------------------------------------


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
    if not number:
        return None
    match = SHEET_NUMBER.match(number)
    if match is None:
        return None
    prefix = match["prefix"]
    return DISCIPLINES.get(prefix) or DISCIPLINES.get(prefix[0])


@dataclass(frozen=True)
class Scale:
    """Real length per PDF point: metres, and feet for an imperial scale."""

    text: str
    metres_per_point: float
    imperial: bool


def parse_scale(text: str | None) -> Scale | None:
    if not text:
        return None
    if m := METRIC_SCALE.search(text):
        ratio = int(m[1])
        if ratio <= 0:
            return None
        return Scale(m[0], ratio / POINTS_PER_MM / 1000, imperial=False)
    if m := IMPERIAL_SCALE.search(text):
        inches = _number(m[1])
        feet = int(m[2]) + (int(m[3]) / 12 if m[3] else 0)
        if inches <= 0 or feet <= 0:
            return None
        feet_per_point = feet / inches / 72
        return Scale(m[0], feet_per_point * 0.3048, imperial=True)
    return None


def _number(text: str) -> float:
    total = 0.0
    for part in text.split():
        if "/" in part:
            top, bottom = part.split("/", 1)
            total += int(top) / int(bottom) if int(bottom) else 0.0
        else:
            total += float(part)
    return total


# -- labels in the drawing area ----------------------------------------------------------------


def drawing_phrases(page: PageContent, reg: Regions) -> list[Phrase]:
    return [p for p in page.phrases if not reg.in_annotation(p.cx, p.cy, 1.0)]


def is_room(text: str) -> bool:
    words = re.findall(r"[A-Z]+", text.upper())
    return any(w in ROOM_WORDS for w in words) and not _fixture(text)


def _fixture(text: str) -> str | None:
    return FIXTURES.get(" ".join(text.upper().split()))


def rooms(page: PageContent, reg: Regions) -> list[Phrase]:
    return [p for p in drawing_phrases(page, reg) if is_room(p.text)]


def norm(page: PageContent, box: Box) -> dict[str, float]:
    def clamp(v: float) -> float:
        return round(min(max(v, 0.0), 1.0), 4)

    return {
        "x0": clamp(box.x0 / page.width),
        "y0": clamp(box.top / page.height),
        "x1": clamp(box.x1 / page.width),
        "y1": clamp(box.bottom / page.height),
    }


# -- summary -----------------------------------------------------------------------------------


def summary(page: PageContent) -> dict[str, Any]:
    reg = regions(page)
    tb = read_title_block(page, reg.title_block)
    room_phrases = rooms(page, reg)
    room_names = _unique(p.text for p in room_phrases)
    notes = [text for text, _ in reg.notes]
    toc: list[dict[str, Any]] = []
    if reg.title_block:
        toc.append({"title": "Title block", "bbox": norm(page, reg.title_block)})
    if reg.notes_box and reg.notes_heading:
        toc.append({"title": reg.notes_heading.text.title(), "bbox": norm(page, reg.notes_box)})
    area = drawing_extent(page, reg)
    if area is not None:
        toc.append({"title": "Drawing", "bbox": norm(page, area)})
    toc.extend({"title": f"Room: {p.text}", "bbox": norm(page, box_of(p))} for p in room_phrases)
    result = {
        "sheetNumber": tb.number,
        "sheetTitle": tb.title,
        "discipline": discipline(tb.number),
        "scale": tb.scale,
        "revision": tb.revision,
        "date": tb.date,
        "summaryMarkdown": "",
        "notes": notes,
        "rooms": room_names,
        "tableOfContents": toc,
    }
    result["summaryMarkdown"] = summary_markdown(result, page)
    return result


def summary_markdown(s: dict[str, Any], page: PageContent) -> str:
    heading = " - ".join(x for x in (s["sheetNumber"], s["sheetTitle"]) if x) or (
        f"Page {page.page_index + 1}"
    )
    lines = [f"### {heading}"]
    facts = [
        f"**Discipline:** {s['discipline']}" if s["discipline"] else None,
        f"**Scale:** {s['scale']}" if s["scale"] else None,
        f"**Revision:** {s['revision']}" if s["revision"] else None,
        f"**Date:** {s['date']}" if s["date"] else None,
    ]
    lines.extend(f"- {f}" for f in facts if f)
    if s["rooms"]:
        lines.append(f"- **Rooms ({len(s['rooms'])}):** {', '.join(s['rooms'])}")
    if s["notes"]:
        lines.append(f"- **Notes ({len(s['notes'])}):**")
        lines.extend(f"  {i}. {note}" for i, note in enumerate(s["notes"], 1))
    if len(lines) == 1:
        lines.append("- No title block, notes or room labels were found on this page.")
    lines.append(f"\n_Page {page.page_index + 1} of {page.page_count}._")
    return "\n".join(lines)


def _unique(values: Any) -> list[str]:
    seen: dict[str, None] = {}
    for v in values:
        seen.setdefault(v, None)
    return list(seen)


def drawing_extent(page: PageContent, reg: Regions) -> Box | None:
    walls = wall_segments(page, reg)
    if not walls:
        return None
    return Box(
        min(min(s.x0, s.x1) for s in walls),
        min(min(s.y0, s.y1) for s in walls),
        max(max(s.x0, s.x1) for s in walls),
        max(max(s.y0, s.y1) for s in walls),
    )


# -- takeoff -----------------------------------------------------------------------------------

CATEGORIES = ("doors", "windows", "rooms", "walls", "fixtures")


def _near_edge(page: PageContent, s: Segment) -> bool:
    """Both ends within the border band of the same page edge: the sheet's frame."""
    return (
        max(s.x0, s.x1) <= EDGE_BAND
        or max(s.y0, s.y1) <= EDGE_BAND
        or min(s.x0, s.x1) >= page.width - EDGE_BAND
        or min(s.y0, s.y1) >= page.height - EDGE_BAND
    )


def wall_segments(page: PageContent, reg: Regions) -> list[Segment]:
    """Stroked segments of wall weight and length in the drawing area."""
    return [
        s
        for s in page.segments
        if s.width >= WALL_MIN_WIDTH
        and math.hypot(s.x1 - s.x0, s.y1 - s.y0) >= WALL_MIN_LENGTH
        and not _near_edge(page, s)
        and not (reg.in_annotation(s.x0, s.y0, 2.0) and reg.in_annotation(s.x1, s.y1, 2.0))
    ]


def merged_runs(segments: list[Segment]) -> list[tuple[float, Box]]:
    """Collinear strokes merged into runs (a wall drawn as overlapping or touching strokes
    counts once): each run's length in points and its box."""
    lines: list[tuple[float, float, float, float]] = []  # angle, offset, start, end
    for s in segments:
        angle = math.atan2(s.y1 - s.y0, s.x1 - s.x0) % math.pi
        if angle > math.pi - ANGLE_TOLERANCE:
            angle = 0.0
        dx, dy = math.cos(angle), math.sin(angle)
        offset = -dy * s.x0 + dx * s.y0
        a, b = dx * s.x0 + dy * s.y0, dx * s.x1 + dy * s.y1
        lines.append((angle, offset, min(a, b), max(a, b)))
    lines.sort()
    groups: list[list[tuple[float, float, float, float]]] = []
    for line in lines:
        for group in groups[-8:]:
            ref = group[0]
            if (
                abs(line[0] - ref[0]) <= ANGLE_TOLERANCE
                and abs(line[1] - ref[1]) <= OFFSET_TOLERANCE
            ):
                group.append(line)
                break
        else:
            groups.append([line])
    runs: list[tuple[float, Box]] = []
    for group in groups:
        angle, offset = group[0][0], group[0][1]
        intervals = sorted((start, end) for _, _, start, end in group)
        start, end = intervals[0]
        for a, b in intervals[1:]:
            if a <= end + GAP_TOLERANCE:
                end = max(end, b)
            else:
                runs.append(_run(angle, offset, start, end))
                start, end = a, b
        runs.append(_run(angle, offset, start, end))
    return runs


def _run(angle: float, offset: float, start: float, end: float) -> tuple[float, Box]:
    """A merged run's length and box, back from (angle, offset, interval) to page points."""
    dx, dy = math.cos(angle), math.sin(angle)
    ends = [(dx * t - dy * offset, dy * t + dx * offset) for t in (start, end)]
    xs, ys = [p[0] for p in ends], [p[1] for p in ends]
    return end - start, Box(min(xs), min(ys), max(xs), max(ys))


def takeoff(page: PageContent) -> dict[str, Any]:
    """Every category; the route answers the ones asked for."""
    reg = regions(page)
    tb = read_title_block(page, reg.title_block)
    items: list[dict[str, Any]] = []
    for phrase in drawing_phrases(page, reg):
        text = phrase.text.upper()
        bbox = norm(page, box_of(phrase))
        if DOOR_TAG.match(text):
            items.append({"category": "doors", "label": text, "bbox": bbox})
        elif WINDOW_TAG.match(text):
            items.append({"category": "windows", "label": text, "bbox": bbox})
        elif fixture := _fixture(text):
            items.append({"category": "fixtures", "label": fixture, "bbox": bbox})
        elif is_room(text):
            items.append({"category": "rooms", "label": phrase.text, "bbox": bbox})
    runs = merged_runs(wall_segments(page, reg))
    points = sum(length for length, _ in runs)
    scale = parse_scale(tb.scale)
    for length, box in runs:
        real = _real(length, scale)
        label = f"wall {real}" if real else f"wall {length / POINTS_PER_MM:.0f} mm on paper"
        items.append({"category": "walls", "label": label, "bbox": norm(page, box)})
    metres = round(points * scale.metres_per_point, 3) if scale else None
    wall_length = {
        "paperMm": round(points / POINTS_PER_MM, 1),
        "metres": metres,
        "feet": round(metres * FEET_PER_METRE, 2) if scale and scale.imperial and metres else None,
        "runs": len(runs),
        "scale": scale.text if scale else None,
    }
    counts = {c: sum(1 for i in items if i["category"] == c) for c in CATEGORIES}
    return {"counts": counts, "items": items, "lengths": {"walls": wall_length}}


def _real(points: float, scale: Scale | None) -> str | None:
    if scale is None:
        return None
    metres = points * scale.metres_per_point
    if scale.imperial:
        return f"{metres * FEET_PER_METRE:.2f} ft"
    return f"{metres:.2f} m"


def select(result: dict[str, Any], categories: list[str]) -> dict[str, Any]:
    """The cached full takeoff narrowed to the categories asked for."""
    wanted = set(categories)
    return {
        "counts": {c: n for c, n in result["counts"].items() if c in wanted},
        "items": [i for i in result["items"] if i["category"] in wanted],
        "lengths": {k: v for k, v in result["lengths"].items() if k in wanted},
    }
