"""The demo project's records, one section per module, each made through its API routes:
construction records (drawings, issues, RFIs, punch, field reports) here, then ``proposals``,
``operations`` (O&M and the occupant portal), ``planning`` and ``sheets``.

A module added later adds its section (and its list to tests/demo), so the demo keeps showing
every part of the service.
"""

from __future__ import annotations

from typing import Any

from plumbline.demo import issues, operations, planning, proposals
from plumbline.demo.api import Api, back, day
from plumbline.demo.drawing import floor_plan
from plumbline.demo.links import CALENDAR_FEED, Link
from plumbline.demo.people import Team
from plumbline.demo.sheets import populate_sheets


async def populate(team: Team, project_id: str) -> list[Link]:
    """The records of every module, the construction ones over the last two weeks and by the
    team; the links worth printing."""
    api = team.me
    links: list[Link] = []
    base = f"/api/v1/projects/{project_id}"
    with back(12.9):
        drawing = await _drawings(api, project_id)
    issue_ids = await issues.populate(team, base, drawing)
    await _rfis(team, base, issue_ids, drawing)
    await _punch(team, base, drawing)
    with back(1):
        await _field_reports(api, base)
    with back(0.5):
        links += await proposals.populate(api, base)
    links += await operations.populate(api, base)
    with back(11):  # the schedule and its materials, planned at the start
        await planning.populate(api, project_id)
    await populate_sheets(api, project_id)
    links += await _calendar_feed(api, base)
    await issues.todays_round(team, base, issue_ids)
    return links


async def _calendar_feed(api: Api, base: str) -> list[Link]:
    """The project's calendar feed (schedule, maintenance, inspections, RFI and punch due
    dates, proposal expiries), to subscribe to from Outlook or Google Calendar."""
    feed = await api("POST", f"{base}/calendar-feeds", json={"name": "Harbor View Tower"})
    token = feed["url"].rsplit("/", 1)[1].removesuffix(".ics")
    return [Link("project calendar feed (iCalendar)", feed["url"], CALENDAR_FEED, token)]


async def _drawings(api: Api, project_id: str) -> dict[str, Any]:
    """Sheet A-201 in two versions; the records below are pinned to the second."""
    first = await api.upload(project_id, "A-201 Level 3 Floor Plan.pdf", floor_plan(1))
    second: dict[str, Any] = await api.upload(
        project_id, "A-201 Level 3 Floor Plan.pdf", floor_plan(2), fileId=first["id"]
    )
    return second


RFIS = [  # title, question, final status
    ("Slab edge detail at level 7 balconies",
     "Structural S-501 and architectural A-511 show different slab edge setbacks. Which governs?",
     "OPEN"),
    ("Door hardware set for stair doors",
     "Hardware schedule lists set HW-4 for stair doors, which has no panic device. Confirm.",
     "IN_REVIEW"),
    ("Duct conflicts with beam at grid D-2",
     "The 24x14 supply duct cannot pass under beam B3-12 at grid D-2 with the ceiling at 9'-0\".",
     "ANSWERED"),
    ("Substitute porcelain tile in lobby",
     "The specified tile has a 16-week lead time. May we use the attached equal?",
     "CLOSED"),
]  # fmt: skip
ANSWERS = {
    "ANSWERED": "Reroute the duct through the beam web opening shown on S-301; see sketch SK-14.",
    "CLOSED": "Substitution accepted provided the slip resistance meets DCOF 0.42 or higher.",
}


async def _rfis(team: Team, base: str, issue_ids: list[str], drawing: dict[str, Any]) -> None:
    """Asked by the project engineer on days 9 to 6 ago, reviewed and answered the next days."""
    for index, (title, question, status) in enumerate(RFIS):
        with back(9 - index):
            await _rfi(team, base, index, title, question, status, issue_ids, drawing)


async def _rfi(
    team: Team,
    base: str,
    index: int,
    title: str,
    question: str,
    status: str,
    issue_ids: list[str],
    drawing: dict[str, Any],
) -> None:
    asked, api = team["grace"], team["tomas"]
    body: dict[str, Any] = {
        "title": title,
        "question": question,
        "priority": "HIGH" if index == 2 else "MEDIUM",
        "dueDate": day(7 - 3 * index),
    }
    if index == 2:
        body |= {
            "issueIds": [issue_ids[0]],
            "fileVersionId": drawing["fileVersionId"],
            "pageNumber": 1,
            "pin": {"x": 0.55, "y": 0.2},
        }
    rfi = await asked("POST", f"{base}/rfi", json=body)
    path = f"{base}/rfi/{rfi['id']}"
    if status == "OPEN":
        return
    responders = [team.id("dana"), team.id("grace")]
    await api("PATCH", path, json={"status": "IN_REVIEW", "assigneeIds": responders})
    if status == "IN_REVIEW":
        return
    answer = await team.me("POST", f"{path}/messages", json={"body": ANSWERS[status]})
    await api("PATCH", path, json={"status": "ANSWERED", "answerMessageId": answer["id"]})
    if status == "CLOSED":
        await api("PATCH", path, json={"status": "CLOSED"})


PUNCH = [  # title, location, trade, priority, status
    ("Touch up paint at corridor corner guard", "Level 3 corridor", "Painting", "P3", "OPEN"),
    ("Ceiling tile stained in conference 302", "Conference 302", "Ceilings", "P2",
     "IN_PROGRESS"),
    ("Outlet cover plate missing", "Open office 301, column C-2", "Electrical", "P2",
     "READY_FOR_REVIEW"),
    ("Door 303 does not latch", "Conference 303", "Doors and hardware", "P1", "CLOSED"),
]  # fmt: skip
PUNCH_STEPS = ["IN_PROGRESS", "READY_FOR_REVIEW", "CLOSED"]


async def _punch(team: Team, base: str, drawing: dict[str, Any]) -> None:
    """Walked by the superintendent on days 5 to 2 ago; the electrical item is the contractor's."""
    for index, (title, location, trade, priority, status) in enumerate(PUNCH):
        with back(5 - index):
            await _punch_item(team, base, drawing, index, title, location, trade, priority, status)


async def _punch_item(
    team: Team,
    base: str,
    drawing: dict[str, Any],
    index: int,
    *row: str,
) -> None:
    api = team["tomas"]
    title, location, trade, priority, status = row
    item = await api(
        "POST",
        f"{base}/punch",
        json={
            "title": title,
            "location": location,
            "trade": trade,
            "priority": priority,
            "assigneeIds": [team.id("luis" if trade == "Electrical" else "dana")],
            "dueDate": day(index - 1),
            "fileVersionId": drawing["fileVersionId"],
            "pageNumber": 1,
            "pin": {"x": 0.2 + 0.15 * index, "y": 0.6},
        },
    )
    steps = PUNCH_STEPS[: PUNCH_STEPS.index(status) + 1] if status != "OPEN" else []
    for step in steps:
        await api("PATCH", f"{base}/punch/{item['id']}", json={"status": step})


async def _field_reports(api: Api, base: str) -> None:
    await api(
        "POST",
        f"{base}/field-reports",
        json={
            "title": "Daily report",
            "reportDate": day(-1),
            "status": "SUBMITTED",
            "weather": {"conditions": "Overcast, light rain after 2 pm", "highTemp": 54,
                        "lowTemp": 43, "precipitation": "0.2 in"},
            "manpower": [
                {"company": "Cascade Concrete", "trade": "Concrete", "workers": 8, "hours": 64},
                {"company": "Sound Mechanical", "trade": "HVAC", "workers": 5, "hours": 40},
                {"company": "Northline Electric", "trade": "Electrical", "workers": 6,
                 "hours": 48},
            ],
            "workPerformed": "Poured level 9 slab (pour 3 of 4). Ductwork rough-in level 4.",
            "delays": "Rain stopped the curtain wall crew at 2 pm.",
            "safetyNotes": "Toolbox talk on ladder safety; no incidents.",
        },
    )  # fmt: skip
    await api(
        "POST",
        f"{base}/field-reports",
        json={"title": "Daily report", "reportDate": day(0), "workPerformed": "In progress."},
    )
