"""The project's modules as the sidebar (a bottom bar on phones) shows them: one line per area
that has pages, shown when the project's settings turn its module on and the person may see it.
A new area's pages add their line here."""

from __future__ import annotations

from dataclasses import dataclass

from plumbline.authz.permissions import ProjectRole
from plumbline.authz.project import ProjectContext, module_enabled
from plumbline.pages.kit.i18n import gettext as _


@dataclass(frozen=True)
class Area:
    key: str  # the path under /app/projects/{p}/ and the page module's name
    label: str  # translated when shown
    icon: str  # a symbol of templates/app/_icons.html
    module: str | None = None  # the project setting that turns it on
    clients: str | None = None  # the client-visibility flag a CLIENT needs
    phone: bool = False  # in the phone's bottom bar (four at most, with Home)


@dataclass(frozen=True)
class Link:
    key: str
    label: str
    href: str
    icon: str
    phone: bool


# The string literals are marked for extraction; the label is translated when the bar is built.
def N_(message: str) -> str:
    return message


AREAS = (Area("issues", N_("Issues"), "issue", "issues", "showIssues", phone=True),)


def project_links(ctx: ProjectContext) -> list[Link]:
    """Home, then each area this person may open in this project."""
    base = f"/app/projects/{ctx.project.id}"
    links = [Link("home", _("Home"), base, "home", True)]
    client = ctx.is_external and ctx.project_role == ProjectRole.CLIENT
    for area in AREAS:
        if area.module is not None and not module_enabled(ctx.project, area.module):
            continue
        if client and area.clients and not ctx.project.client_visibility.get(area.clients):
            continue
        links.append(Link(area.key, _(area.label), f"{base}/{area.key}", area.icon, area.phone))
    return links


def page_for(href: str | None) -> str:
    """The app's page of a record a notification (or an audit entry) names by its API path
    (``/projects/{p}/issues/{id}``): the area's page when the area has pages, else the
    project's home; anything else, the app's door."""
    parts = (href or "").strip("/").split("/")
    if len(parts) < 2 or parts[0] != "projects" or not parts[1]:
        return "/app/"
    project = f"/app/projects/{parts[1]}"
    if len(parts) >= 3 and parts[2] in {area.key for area in AREAS}:
        return "/app/" + "/".join(parts)
    return project


def linkable(href: str | None) -> str | None:
    """``href`` (an ``/app/projects/{p}/<area>...`` page) when that area has pages, else None:
    a figure or a line about a record of an area still without pages is shown, not linked."""
    parts = (href or "").split("?")[0].strip("/").split("/")
    if len(parts) >= 4 and parts[:2] == ["app", "projects"]:
        return href if parts[3] in {area.key for area in AREAS} else None
    return href or None
