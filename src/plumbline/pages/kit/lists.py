"""The list pattern (PRODUCT §18): filters, sort and page in the query string, so a view is a
URL; the same URL answers its table fragment to htmx (``{% block results %}``); cursor paging;
saved views; bulk selection; the CSV of the view; cards on phones (CSS).

A list handler reads the query with the JSON route's own dependencies (``Filters``, ``Page``),
calls the same service, and hands ``Listing.of(...)`` to the template's macros
(``app/_list.html``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from fastapi import Request

LINK_NEXT = 'rel="next"'


def next_cursor(headers: dict[str, str]) -> str | None:
    """The ``cursor`` of the next page, from the list's ``Link`` header."""
    link = headers.get("Link") or headers.get("link") or ""
    for part in link.split(","):
        if LINK_NEXT in part:
            url = part.split(";")[0].strip().strip("<>")
            found = parse_qs(urlsplit(url).query).get("cursor")
            return found[0] if found else None
    return None


@dataclass(frozen=True)
class Listing:
    """One page of a list as its template shows it."""

    rows: list[dict[str, Any]]
    params: dict[str, str]  # the view: every query parameter but the position
    cursor: str | None  # this page's position (None: the first page)
    next: str | None  # the next page's cursor
    views: list[dict[str, Any]] = field(default_factory=list)
    filtered: bool = False  # a filter narrows the list (its empty state says so)

    @classmethod
    def of(
        cls,
        request: Request,
        rows: list[dict[str, Any]],
        headers: dict[str, str],
        *,
        views: list[dict[str, Any]] | None = None,
        filters: tuple[str, ...] = (),
    ) -> Listing:
        params = {k: v for k, v in request.query_params.items() if k not in ("cursor", "view")}
        return cls(
            rows=rows,
            params=params,
            cursor=request.query_params.get("cursor"),
            next=next_cursor(headers),
            views=views or [],
            filtered=any(params.get(name) for name in filters),
        )

    @property
    def query(self) -> str:
        """The view's query string (no position), for the CSV link and saving the view."""
        return urlencode(self.params)
