"""The workspace as its pages show it: name, logo and a primary colour held to AA contrast."""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.file.branding import logo_url
from plumbline.models import Workspace

DEFAULT_COLOR = "#1F4068"  # the proposal PDF's accent
_COLOR = re.compile(r"#[0-9A-Fa-f]{6}")


def _luminance(color: str) -> float:
    channels = [int(color[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    """The WCAG contrast ratio of two ``#rrggbb`` colours (1 to 21)."""
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@dataclass(frozen=True)
class Brand:
    """``color`` is a validated ``#rrggbb`` (the only value of the workspace's that reaches
    CSS); ``on_color`` is the text colour on it and ``accent`` the colour of links on white,
    both at least AA contrast."""

    name: str
    logo: str | None
    color: str
    on_color: str
    accent: str

    @property
    def css(self) -> str:
        """The one inline ``<style>`` of a page: the brand's colours as custom properties."""
        return f":root{{--brand:{self.color};--on-brand:{self.on_color};--accent:{self.accent}}}"

    @property
    def css_hash(self) -> str:
        """The CSP source that allows exactly :attr:`css` (a hash, not a nonce: the same on
        every page of the workspace, so a page htmx swaps in keeps matching the policy)."""
        digest = hashlib.sha256(self.css.encode()).digest()
        return f"'sha256-{base64.b64encode(digest).decode()}'"

    @classmethod
    def of(cls, name: str, workspace_id: str | None, has_logo: bool, color: str | None) -> Brand:
        shown = color.upper() if color and _COLOR.fullmatch(color) else DEFAULT_COLOR
        on = "#FFFFFF" if contrast(shown, "#FFFFFF") >= contrast(shown, "#000000") else "#000000"
        accent = shown if contrast(shown, "#FFFFFF") >= 4.5 else DEFAULT_COLOR
        logo = logo_url(workspace_id) if workspace_id and has_logo else None
        return cls(name=name, logo=logo, color=shown, on_color=on, accent=accent)

    @classmethod
    def of_workspace(cls, workspace: Workspace) -> Brand:
        return cls.of(
            workspace.name, workspace.id, workspace.logo_key is not None, workspace.primary_color
        )


PLUMBLINE = Brand.of("Plumbline", None, False, None)


async def branding(db: AsyncSession, workspace_id: str) -> Brand:
    """The workspace's name, logo and primary colour (the branding its PDFs and e-mails use)."""
    query = select(Workspace.name, Workspace.logo_key, Workspace.primary_color).where(
        Workspace.id == workspace_id
    )
    row = (await db.execute(query)).one_or_none()
    if row is None:
        return PLUMBLINE
    return Brand.of(row.name, workspace_id, row.logo_key is not None, row.primary_color)
