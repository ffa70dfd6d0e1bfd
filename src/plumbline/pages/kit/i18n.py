"""Languages: every string of the pages through gettext (Babel), English and Spanish.

The catalogues are ``pages/locale/<lang>/LC_MESSAGES/messages.po``, read as they are (no
compile step). ``make messages`` extracts the strings and updates them; a test fails on a
string missing or fuzzy in Spanish. A page is rendered in the person's chosen language, else
the one their browser asks for (``Accept-Language``), else English.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, date, datetime, tzinfo
from decimal import Decimal
from functools import cache
from importlib import resources
from zoneinfo import ZoneInfo

from babel import Locale, dates, numbers
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations

LANGUAGES = {"en": "English", "es": "Español"}
DEFAULT = "en"
LANGUAGE_COOKIE = "plumbline_lang"


@cache
def translations(language: str) -> NullTranslations:
    if language == DEFAULT:
        return NullTranslations()
    source = resources.files("plumbline.pages").joinpath(
        "locale", language, "LC_MESSAGES", "messages.po"
    )
    catalog = read_po(io.BytesIO(source.read_bytes()), locale=language)
    compiled = io.BytesIO()
    write_mo(compiled, catalog, use_fuzzy=False)
    compiled.seek(0)
    return Translations(compiled)


_current: ContextVar[str] = ContextVar("page_language", default=DEFAULT)


def language() -> str:
    return _current.get()


@contextmanager
def speaking(lang: str) -> Iterator[None]:
    """Strings, dates and numbers in ``lang`` within the block (a page's rendering)."""
    token = _current.set(lang if lang in LANGUAGES else DEFAULT)
    try:
        yield
    finally:
        _current.reset(token)


def choose(chosen: str | None, accept_language: str | None) -> str:
    """The request's language for the strings its handler makes before rendering (a form's
    errors, a flash): set for the rest of the request, which ``render`` then speaks too."""
    lang = negotiate(chosen, accept_language)
    _current.set(lang)
    return lang


def gettext(message: str, **variables: object) -> str:
    """``message`` in the page's language; ``%(name)s`` filled from ``variables``."""
    text = translations(_current.get()).ugettext(message)
    return text % variables if variables else text


def ngettext(singular: str, plural: str, n: int) -> str:
    return translations(_current.get()).ungettext(singular, plural, n)


def negotiate(chosen: str | None, accept_language: str | None) -> str:
    """The chosen language when we have it, else the best of ``Accept-Language``, else English."""
    if chosen in LANGUAGES:
        return chosen
    wanted: list[tuple[float, str]] = []
    for part in (accept_language or "").split(",")[:20]:
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                quality = 0.0
        if tag:
            wanted.append((quality, tag.strip().lower()))
    for _, tag in sorted(wanted, key=lambda item: -item[0]):
        base = tag.split("-")[0]
        if base in LANGUAGES:
            return base
    return DEFAULT


# ---------------------------------------------------------------- formats


def _locale() -> Locale:
    return Locale.parse(_current.get())


def zone(name: str | None) -> tzinfo:
    try:
        return ZoneInfo(name or "UTC")
    except (KeyError, ValueError):
        return ZoneInfo("UTC")


def format_day(value: date | datetime | str | None, tz: str | None = None) -> str:
    """A calendar day as people write it ("Nov 28, 2026", "28 nov 2026")."""
    if value is None or value == "":
        return ""
    if isinstance(value, str):
        value = datetime.fromisoformat(value) if "T" in value else date.fromisoformat(value)
    if isinstance(value, datetime):
        value = value.astimezone(zone(tz)).date()
    return dates.format_date(value, "medium", locale=_locale())


def format_short_day(value: date | str | None) -> str:
    """A day on a chart's axis ("Nov 28", "28 nov")."""
    if value is None or value == "":
        return ""
    if isinstance(value, str):
        value = date.fromisoformat(value[:10])
    return dates.format_skeleton("MMMd", value, locale=_locale())


def format_moment(value: datetime | str | None, tz: str | None = None) -> str:
    """An instant in the project's time zone ("Nov 28, 2026, 9:05 AM")."""
    if value is None or value == "":
        return ""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return dates.format_datetime(value, "medium", tzinfo=zone(tz), locale=_locale())


def format_ago(value: datetime | str | None, now: datetime) -> str:
    """How long ago ("3 hours ago", "hace 3 horas")."""
    if value is None or value == "":
        return ""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if value.tzinfo is None:  # SQLite's, stored as UTC
        value = value.replace(tzinfo=UTC)
    return dates.format_timedelta(value - now, add_direction=True, threshold=1.1, locale=_locale())


def format_number(value: int | float | Decimal | str | None) -> str:
    if value is None or value == "":
        return ""
    return numbers.format_decimal(Decimal(str(value)), locale=_locale())


def format_money(value: int | float | Decimal | str | None, currency: str | None) -> str:
    if value is None or value == "":
        return ""
    return numbers.format_currency(Decimal(str(value)), currency or "USD", locale=_locale())
