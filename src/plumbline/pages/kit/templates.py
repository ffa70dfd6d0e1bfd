"""The pages' Jinja2 environment: autoescaped, gettext installed, the house filters."""

from __future__ import annotations

from functools import cache
from typing import Any
from urllib.parse import urlencode

from jinja2 import Environment, PackageLoader, select_autoescape

from plumbline.kit import clock
from plumbline.pages.kit import i18n
from plumbline.pages.kit.nav import linkable
from plumbline.pages.kit.static import static_url
from plumbline.proposal.document.letter import day, money, number


def with_query(params: dict[str, Any], **changes: Any) -> str:
    """``?a=1&b=2`` of ``params`` with ``changes`` applied (None removes a key): links that
    change one thing of a view (sort, page, a filter) and keep the rest."""
    merged = {**params, **changes}
    kept = {k: v for k, v in merged.items() if v not in (None, "", (), [])}
    return "?" + urlencode(kept, doseq=True) if kept else "?"


def pairs(values: Any) -> list[tuple[Any, Any]]:
    """``(value, value)`` for a select whose values are their own labels."""
    return [(v, v) for v in values]


@cache
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("plumbline.pages"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=["jinja2.ext.i18n"],
    )
    env.install_gettext_callables(  # type: ignore[attr-defined]
        i18n.gettext, i18n.ngettext, newstyle=True
    )
    env.globals.update(static=static_url, with_query=with_query, languages=i18n.LANGUAGES, zip=zip)
    env.filters.update(
        money=money,
        day=day,
        number=number,
        date=i18n.format_day,
        short_day=i18n.format_short_day,
        moment=i18n.format_moment,
        ago=lambda value: i18n.format_ago(value, clock.now()),
        amount=i18n.format_number,
        currency=i18n.format_money,
        pairs=pairs,
        linkable=linkable,
    )
    return env
