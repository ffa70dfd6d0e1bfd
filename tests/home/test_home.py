"""The front door and the docs pages: served by the app, every asset local."""

from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import httpx
import pytest

from tests.conftest import ORIGIN


class _References(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.urls += [v for k, v in attrs if k in ("src", "href", "spec-url") and v is not None]


def references(html: str) -> list[str]:
    parser = _References()
    parser.feed(html)
    return parser.urls


@pytest.mark.parametrize("path", ["/api/v1/docs", "/api/v1/redoc"])
async def test_docs_pages_reference_only_their_own_assets(
    client: httpx.AsyncClient, path: str
) -> None:
    page = await client.get(path)
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    # No absolute URL anywhere in the page, inline scripts included.
    assert "://" not in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    urls = references(page.text)
    assert len(urls) >= 2  # a script and the favicon at least
    for url in urls:
        absolute = urljoin(f"{ORIGIN}{path}", url)
        assert urlsplit(absolute).netloc == urlsplit(ORIGIN).netloc, url
        asset = await client.get(absolute)
        assert asset.status_code == 200, url
        assert len(asset.content) > 1000, url


async def test_redoc_script_names_no_other_host_to_load(client: httpx.AsyncClient) -> None:
    # ReDoc's own copy shows its vendor's logo from a CDN: the served script leaves it out.
    script = await client.get("/api/v1/docs/assets/redoc.standalone.js")
    assert script.status_code == 200
    assert script.headers["content-type"].startswith("text/javascript")
    assert "cdn.redoc.ly" not in script.text and "API docs by Redocly" in script.text
    again = await client.get(
        "/api/v1/docs/assets/redoc.standalone.js",
        headers={"If-None-Match": script.headers["etag"]},
    )
    assert again.status_code == 304


async def test_swagger_ui_loads_its_description_and_oauth_helper_under_api_v1(
    client: httpx.AsyncClient,
) -> None:
    page = (await client.get("/api/v1/docs")).text
    assert "url: '/api/v1/openapi.json'" in page
    assert "'/api/v1/docs/oauth2-redirect'" in page
    assert '"validatorUrl": null' in page
    helper = await client.get("/api/v1/docs/oauth2-redirect")
    assert helper.status_code == 200 and "swaggerUIRedirectOauth2" in helper.text
    assert (await client.get("/docs")).status_code == 404


async def test_front_door_leads_a_browser_to_sign_in_and_into_the_app(
    client: httpx.AsyncClient,
) -> None:
    door = await client.get("/", headers={"Accept": "text/html,application/json;q=0.9"})
    assert door.status_code == 303 and door.headers["location"] == "/app/"
    app = await client.get("/app/")
    assert app.status_code == 303
    assert app.headers["location"] == "/account/sign-in?next=%2Fapp%2F"
    sign_in = await client.get(app.headers["location"])
    assert sign_in.status_code == 200 and "<h1" in sign_in.text
    for link in ("/api/v1/docs", "/api/v1/redoc", "/api/v1/openapi.json", "/api/v1/health"):
        assert (await client.get(link)).status_code == 200, link


async def test_front_door_answers_json_when_asked(client: httpx.AsyncClient) -> None:
    answer = await client.get("/", headers={"Accept": "application/json"})
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("application/json")
    assert answer.json() == {
        "name": "Plumbline",
        "version": "1.0.0",
        "docs": "/api/v1/docs",
        "redoc": "/api/v1/redoc",
        "openapi": "/api/v1/openapi.json",
        "health": "/api/v1/health",
    }
    assert (await client.get("/", headers={"Accept": "*/*"})).headers["location"] == "/app/"


async def test_front_door_is_in_the_openapi(client: httpx.AsyncClient) -> None:
    paths = (await client.get("/api/v1/openapi.json")).json()["paths"]
    assert "/" in paths
    assert not {"/api/v1/docs", "/api/v1/redoc", "/api/v1/docs/oauth2-redirect"} & set(paths)
