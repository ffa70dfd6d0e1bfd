"""POST .../proposals/{id}/preview: the letter as HTML, variables filled, user text escaped."""

from datetime import UTC, datetime

import pytest

from plumbline.kit import clock
from tests.factories import make_world
from tests.proposal.test_endpoints import create, item, proposal_count, url

LETTER = (
    "Dear {{client.name}} ({{client.company}}),\n\n"
    "{{company.name}} is pleased to price {{project.name}}: {{proposal.reference}} "
    "comes to {{proposal.total}}, valid until {{proposal.validUntil}}. Today is {{today}}.\n"
    "{{items.table}}\n\n"
    "Regards{{ nobody.knows }}{{unknown}}{{ client.name.upper }}{{ client['name'].__class__ }}"
)


async def preview(client, world, proposal_id, headers=None):  # type: ignore[no-untyped-def]
    return await client.post(
        url(world.project, f"/{proposal_id}/preview"), headers=headers or world.member.headers
    )


async def test_preview_fills_every_variable(client, world):
    clock.set_now(datetime(2026, 11, 23, 9, 0, tzinfo=UTC))
    body = await create(
        client,
        world,
        clientName="Zoë Müller",
        clientCompany="Café Crème",
        coverLetter=LETTER,
        items=[item("33.3333", "45.50", name="Drywall"), item("2", "1250", name="Ceiling")],
    )
    response = await preview(client, world, body["id"])
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/html")
    html = response.text
    assert "<p>Dear Zoë Müller (Café Crème),</p>" in html
    assert f"{world.workspace.name} is pleased to price {world.project.name}:" in html
    assert f"{body['reference']} comes to $4,016.67, valid until 31 Dec 2026." in html
    assert "Today is 23 Nov 2026." in html
    assert '<table class="items">' in html
    assert "<td>Drywall</td>" in html
    assert '<td class="num">33.3333</td>' in html
    assert '<td class="num">$1,516.67</td>' in html
    assert '<th class="num">$4,016.67</th>' in html
    # Unknown variables render empty.
    assert "<p>Regards</p>" in html
    assert "{{" not in html


async def test_user_text_is_escaped(client, world):
    body = await create(
        client,
        world,
        title="<b>Fit-out</b>",
        clientName="<script>alert(1)</script>",
        coverLetter="Hi {{client.name}} <img src=x onerror=alert(2)>\n{{items.table}}",
        items=[item("1", "10", name="<i>Drywall</i>")],
    )
    response = await preview(client, world, body["id"])
    assert response.status_code == 200, response.text
    html = response.text
    assert "<script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<img" not in html
    assert "&lt;img src=x onerror=alert(2)&gt;" in html
    assert "<i>Drywall</i>" not in html
    assert "&lt;i&gt;Drywall&lt;/i&gt;" in html
    assert "<title>" in html
    assert "<b>Fit-out</b>" not in html


async def test_an_empty_letter_uses_the_default_one(client, world):
    body = await create(client, world, clientName="Dana", items=[item("1", "10")])
    response = await preview(client, world, body["id"])
    assert response.status_code == 200
    assert "<p>Dear Dana,</p>" in response.text
    assert '<table class="items">' in response.text
    assert world.workspace.name in response.text


@pytest.mark.parametrize(
    "letter",
    [
        "{{ client.name ",  # syntax error
        "{% for i in range(10) %}x{% endfor %}",  # loops
        "{{ ''.__class__.__mro__ }}",  # still parses; refused by the sandbox rules below
        "{{ client.name.__class__ }}",
        "{{ 9 ** 9 ** 9 }}",  # arithmetic
        "{{ lipsum() }}",  # calls
        "{% set x = 1 %}",
        "{% include 'x' %}",
        "{{ client.name | attr('x') }}",  # filters outside the list
    ],
)
async def test_templates_that_are_not_letters_are_refused(client, world, letter):
    before = await proposal_count(world.project)
    response = await client.post(
        url(world.project),
        json={"title": "x", "validUntil": "2026-12-31T00:00:00Z", "coverLetter": letter},
        headers=world.member.headers,
    )
    if letter == "{{ ''.__class__.__mro__ }}" or letter == "{{ client.name.__class__ }}":
        # Attribute look-ups are allowed syntax; the sandbox answers internals as undefined.
        assert response.status_code == 200, response.text
        shown = await preview(client, world, response.json()["id"])
        assert shown.status_code == 200
        assert "__" not in shown.text
        assert "&lt;class" not in shown.text
        return
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "VALIDATION_FAILED"
    assert response.json()["details"][0]["field"] == "coverLetter"
    assert await proposal_count(world.project) == before


async def test_patch_with_a_broken_letter_changes_nothing(client, world):
    body = await create(client, world, coverLetter="Hello {{client.name}}")
    response = await client.patch(
        url(world.project, f"/{body['id']}"),
        json={"coverLetter": "{% if %}", "title": "Changed"},
        headers=world.member.headers,
    )
    assert response.status_code == 400
    assert response.json()["details"][0]["field"] == "coverLetter"
    again = await client.get(url(world.project, f"/{body['id']}"), headers=world.member.headers)
    assert again.json()["title"] == body["title"]
    assert again.json()["coverLetter"] == "Hello {{client.name}}"


async def test_preview_of_another_workspace_is_404(client, world):
    body = await create(client, world)
    other = await make_world()
    response = await preview(client, world, body["id"], headers=other.owner.headers)
    assert response.status_code == 404
    response = await client.post(
        url(other.project, f"/{body['id']}/preview"), headers=other.owner.headers
    )
    assert response.status_code == 404
