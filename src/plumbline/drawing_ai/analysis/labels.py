"""Labels in the drawing area: room names, door and window tags, fixtures."""

from __future__ import annotations

import re

from plumbline.drawing_ai.analysis.regions import Regions
from plumbline.drawing_ai.extract import PageContent, Phrase

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
# The words a room label holds (one of them is enough).
_ROOMS = """ROOM KITCHEN KITCHENETTE BEDROOM BATHROOM BATH ENSUITE LIVING DINING LOUNGE OFFICE
    OFFICES LOBBY FOYER ENTRY HALL HALLWAY CORRIDOR STAIR STAIRS STAIRWELL ELEV ELEVATOR LIFT
    STORE STORAGE CLOSET PANTRY LAUNDRY UTILITY GARAGE STUDY DEN CONF CONFERENCE MEETING
    RECEPTION WAITING RESTROOM RESTROOMS TOILETS LOCKER LOCKERS CHANGING PLANT MECH MECHANICAL
    ELECTRICAL SERVER IT JANITOR CLEANER CLASSROOM LAB LABORATORY WORKSHOP WAREHOUSE CAFE
    CAFETERIA BREAK BREAKOUT COPY PRINT MAIL LIBRARY GYM NURSERY WARD TERRACE BALCONY PORCH
    VESTIBULE SHAFT RISER CUPBOARD WARDROBE"""
ROOM_WORDS = frozenset(_ROOMS.split())


def drawing_phrases(page: PageContent, reg: Regions) -> list[Phrase]:
    """The phrases outside the title block and the notes block."""
    return [p for p in page.phrases if not reg.in_annotation(p.cx, p.cy, 1.0)]


def is_room(text: str) -> bool:
    """A room label holds a room word and is not itself a fixture label (``BATH TUB``)."""
    words = re.findall(r"[A-Z]+", text.upper())
    return any(w in ROOM_WORDS for w in words) and not fixture(text)


def fixture(text: str) -> str | None:
    """The fixture a phrase names when it is exactly a fixture label (spacing aside)."""
    return FIXTURES.get(" ".join(text.upper().split()))


def rooms(page: PageContent, reg: Regions) -> list[Phrase]:
    return [p for p in drawing_phrases(page, reg) if is_room(p.text)]
