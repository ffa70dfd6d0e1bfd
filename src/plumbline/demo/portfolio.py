"""The rest of the demo company's portfolio: projects at other stages (preconstruction, planning,
closeout, completed, on hold), each with the few records a project at that stage has, raised
over the last two weeks by the team, so the workspace home reads like a real one."""

from __future__ import annotations

from typing import Any

from plumbline.demo.api import back, day
from plumbline.demo.people import Team

# name, number, stage, site, start and end in days from today
PROJECTS = [
    ("Riverside Medical Office Building", "RMOB-2027", "Preconstruction",
     "480 Riverside Drive, Portland, OR", 45, 560),
    ("Lincoln Elementary Modernization", "LEM-2025", "Closeout",
     "1200 Lincoln Avenue, Tacoma, WA", -420, 18),
    ("Cedar Park Apartments, Phase 2", "CPA-P2", "Planning",
     "Cedar Park, Bellevue, WA", 150, 720),
    ("Northgate Distribution Center", "NDC-2024", "Completed",
     "11500 Northgate Way, Seattle, WA", -690, -75),
    ("Pier 5 Ferry Terminal Upgrades", "P5-FTU", "On Hold",
     "Pier 5, Bremerton, WA", -60, 300),
]  # fmt: skip

# project number: (title, status, priority, due in days, raised by, assigned to, days ago)
ISSUES: dict[str, list[tuple[str, str, str, int, str, str, float]]] = {
    "RMOB-2027": [
        ("Geotech report flags high groundwater at east footings", "OPEN", "HIGH", 6,
         "grace", "dana", 11),
        ("Storm line conflicts with new transformer pad", "IN_PROGRESS", "MEDIUM", -2,
         "ben", "grace", 8),
        ("Confirm MRI suite shielding with the imaging vendor", "OPEN", "MEDIUM", 10,
         "dana", "ben", 3),
    ],
    "LEM-2025": [
        ("RTU-3 commissioning report outstanding", "OPEN", "HIGH", -4, "aisha", "tomas", 12),
        ("As-built drawings missing from the mechanical subcontractor", "OPEN", "MEDIUM", -6,
         "ben", "ben", 10),
        ("Gym floor game lines not striped", "IN_PROGRESS", "MEDIUM", 3, "tomas", "tomas", 6),
        ("Kitchen hood suppression test witnessed and passed", "CLOSED", "HIGH", -3,
         "aisha", "aisha", 4),
    ],
    "CPA-P2": [
        ("Survey shows fence encroachment at the west property line", "OPEN", "MEDIUM", 14,
         "dana", "grace", 2),
    ],
    "NDC-2024": [
        ("Dock leveler 7 warranty repair", "CLOSED", "LOW", -20, "aisha", "aisha", 9),
    ],
}  # fmt: skip

PUNCH = {  # project number: (title, location, trade, status, due in days, days ago)
    "LEM-2025": [
        ("Whiteboard loose in classroom 114", "Classroom 114", "Carpentry", "OPEN", -2, 7),
        ("Exit sign missing at east stair", "East stair, level 2", "Electrical", "OPEN", 1, 5),
        ("Paint touch-up at library casework", "Library", "Painting", "CLOSED", -1, 5),
    ],
}  # fmt: skip

RFIS = {  # project number: (title, question, due in days, days ago)
    "RMOB-2027": [
        ("Footing depth at grid A-1 to A-4",
         "With groundwater at 6 ft, may the east footings step up to the -5'-0\" bearing "
         "elevation recommended in the geotech addendum?", 5, 9),
    ],
}  # fmt: skip


async def create_projects(team: Team, workspace_id: str) -> dict[str, str]:
    """The projects, made by the demo user; their ids by project number."""
    made = {}
    for name, number, stage, site, start, end in PROJECTS:
        project = await team.me(
            "POST",
            f"/api/v1/workspaces/{workspace_id}/projects",
            json={"name": name, "projectNumber": number, "stage": stage, "location": site,
                  "startDate": day(start), "endDate": day(end)},
        )  # fmt: skip
        made[number] = project["id"]
    return made


async def populate(team: Team, projects: dict[str, str]) -> None:
    """Each project's issues, RFIs and punch items on their days."""
    for number, rows in ISSUES.items():
        base = f"/api/v1/projects/{projects[number]}"
        for title, status, priority, due, by, to, ago in rows:
            body: dict[str, Any] = {
                "title": title,
                "priority": priority,
                "dueDate": day(due),
                "assigneeId": team.id(to),
            }
            with back(ago):
                issue = await team[by]("POST", f"{base}/issues", json=body)
            if status != "OPEN":
                with back(ago - 0.3):
                    path = f"{base}/issues/{issue['id']}"
                    await team[to]("PATCH", path, json={"status": status})
    for number, items in PUNCH.items():
        base = f"/api/v1/projects/{projects[number]}"
        for title, location, trade, status, due, ago in items:
            body = {"title": title, "location": location, "trade": trade, "priority": "P2",
                    "dueDate": day(due), "assigneeIds": [team.id("tomas")]}  # fmt: skip
            with back(ago):
                item = await team["tomas"]("POST", f"{base}/punch", json=body)
                for step in (
                    ("IN_PROGRESS", "READY_FOR_REVIEW", "CLOSED") if status == "CLOSED" else ()
                ):
                    await team["tomas"](
                        "PATCH", f"{base}/punch/{item['id']}", json={"status": step}
                    )
    for number, questions in RFIS.items():
        base = f"/api/v1/projects/{projects[number]}"
        for title, question, due, ago in questions:
            with back(ago):
                await team["grace"](
                    "POST",
                    f"{base}/rfi",
                    json={"title": title, "question": question, "dueDate": day(due)},
                )
