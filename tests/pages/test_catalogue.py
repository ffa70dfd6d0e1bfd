"""Languages (PRODUCT §18): every string of the pages is in the Spanish catalogue, translated
and not fuzzy, with its placeholders kept and every plural form written, and the catalogue holds
nothing the pages no longer say. Extracted from the sources as `make messages` does (babel.cfg),
so a new string fails here until translated."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from tests.factories import World

ROOT = Path(__file__).resolve().parents[2]
PAGES = ROOT / "src" / "plumbline" / "pages"
METHODS = [("**.py", "python"), ("templates/**.html", "jinja2")]
OPTIONS = {
    "templates/**.html": {
        "extensions": "jinja2.ext.i18n",
        "trim_blocks": "true",
        "lstrip_blocks": "true",
    }
}
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|%%|<[^>]+>")


def said() -> set[str]:
    """Every msgid the pages' code and templates mark (plural forms by their singular)."""
    found: set[str] = set()
    for _file, _line, message, _comments, _context in extract_from_dir(
        str(PAGES), METHODS, options_map=OPTIONS
    ):
        found.add(message[0] if isinstance(message, tuple) else message)
    return found


def spanish() -> Catalog:
    with (PAGES / "locale/es/LC_MESSAGES/messages.po").open("rb") as source:
        return read_po(source, locale="es")


def forms(message: Message) -> tuple[str, ...]:
    return message.string if isinstance(message.string, tuple) else (message.string,)


def key(message: Message) -> str:
    return message.id if isinstance(message.id, str) else message.id[0]


def test_spanish_is_complete_and_nothing_is_fuzzy() -> None:
    catalogue = spanish()
    entries = {key(m): m for m in catalogue if m.id}
    wanted = said()
    assert len(wanted) > 100, "the extraction found next to nothing: is babel.cfg still right?"
    missing = sorted(wanted - set(entries))
    assert missing == [], f"not in the catalogue (run `make messages`): {missing[:20]}"
    untranslated = sorted(k for k in wanted if not all(forms(entries[k])))
    assert untranslated == [], f"no Spanish yet: {untranslated[:20]}"
    fuzzy = sorted(k for k in wanted if entries[k].fuzzy)
    assert fuzzy == [], f"fuzzy: {fuzzy[:20]}"
    stale = sorted(set(entries) - wanted)
    assert stale == [], f"no longer said by any page (run `make messages`): {stale[:20]}"


def test_spanish_keeps_every_placeholder_and_plural_form() -> None:
    catalogue = spanish()
    assert catalogue.num_plurals == 3  # Babel's CLDR rule for es: one, many (1 000 000), other
    short = sorted(
        key(m) for m in catalogue if m.pluralizable and len(forms(m)) != catalogue.num_plurals
    )
    assert short == [], f"plural forms missing: {short}"
    changed = []
    for m in catalogue:
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        wanted = sorted(PLACEHOLDER.findall(ids[-1]))
        for text in forms(m):
            if text and sorted(PLACEHOLDER.findall(text)) != wanted:
                changed.append(key(m))
    assert changed == [], f"placeholders or markup not kept: {changed}"


async def test_the_project_areas_speak_the_page_language(
    client: httpx.AsyncClient, world: World
) -> None:
    """The sidebar and bottom bar's labels (built in Python before rendering) follow the cookie."""
    page = await client.get(
        f"/app/projects/{world.project.id}",
        headers={"Cookie": world.member.headers["Cookie"] + "; plumbline_lang=es"},
    )
    assert page.status_code == 200 and '<html lang="es">' in page.text
    bar = page.text.split('class="bottombar"', 1)[1].split("</nav>", 1)[0]
    assert "<span>Inicio</span>" in bar and "<span>Incidencias</span>" in bar, bar
    assert "<span>Home</span>" not in page.text and "<span>Issues</span>" not in page.text


async def test_the_issue_list_speaks_spanish_down_to_its_sort_options(
    client: httpx.AsyncClient, world: World
) -> None:
    for path in ("issues", "issues/board"):
        page = await client.get(
            f"/app/projects/{world.project.id}/{path}",
            headers={"Cookie": world.member.headers["Cookie"] + "; plumbline_lang=es"},
        )
        assert page.status_code == 200, path
        assert "Las más nuevas" in page.text and "Newest first" not in page.text, path
