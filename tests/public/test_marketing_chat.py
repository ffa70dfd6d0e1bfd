from plumbline.public.chat import UNKNOWN, faq

URL = "/api/v1/public/marketing/chat"


async def ask(client, *contents: str):  # type: ignore[no-untyped-def]
    messages = [{"role": "user", "content": c} for c in contents]
    return await client.post(URL, json={"messages": messages})


def test_the_shipped_faq_has_20_to_40_entries():
    entries = faq().entries
    assert 20 <= len(entries) <= 40
    assert all(e.question.endswith("?") and len(e.answer) > 40 for e in entries)


async def test_answers_from_the_faq(client):
    cases = {
        "Can I self-host this on my own server?": "make run",
        "How much does it cost?": "Enterprise adds operations and maintenance",
        "how many seats on the team plan": "5 on Team",
        "What happens if I stop paying?": "reads keep working",
        "Do you support PostgreSQL?": "PLUMBLINE_DATABASE_URL",
        "gantt chart dependencies": "5,000 tasks",
        "What is Plumbline?": "open-source HTTP/JSON service",
        "I forgot my password": "reset",
    }
    for question, words in cases.items():
        response = await ask(client, question)
        assert response.status_code == 200, response.text
        assert words in response.json()["reply"], (question, response.json())
        assert response.headers["RateLimit-Limit"] == "24"


async def test_says_it_does_not_know_and_points_to_the_docs(client):
    for question in ("Who won the world cup in 2022?", "recipe for pancakes", "hello", "?!"):
        response = await ask(client, question)
        assert response.status_code == 200
        assert response.json()["reply"] == UNKNOWN
    assert "/api/v1/docs" in UNKNOWN and "don't know" in UNKNOWN


async def test_answers_the_last_user_message(client):
    response = await client.post(
        URL,
        json={
            "messages": [
                {"role": "user", "content": "What is the storage quota?"},
                {"role": "assistant", "content": "Each workspace has a storage quota..."},
                {"role": "user", "content": "And how do API keys work?"},
            ]
        },
    )
    assert response.status_code == 200
    assert "scopes" in response.json()["reply"]


async def test_bad_bodies_are_400(client):
    cases = [
        {},
        {"messages": []},
        {"messages": [{"role": "system", "content": "x"}]},
        {"messages": [{"role": "user", "content": ""}]},
        {"messages": [{"role": "user", "content": "x" * 2001}]},
        {"messages": [{"role": "user", "content": "x"}] * 21},
        {"messages": [{"role": "user", "content": "plans"}, {"role": "assistant", "content": "x"}]},
    ]
    for body in cases:
        response = await client.post(URL, json=body)
        assert response.status_code == 400, (body, response.text)
        assert response.json()["code"] == "VALIDATION_FAILED"


async def test_24_questions_per_15_minutes_per_address(client):
    for i in range(24):
        response = await ask(client, "pricing")
        assert response.status_code == 200
        assert response.headers["RateLimit-Remaining"] == str(23 - i)
    refused = await ask(client, "pricing")
    assert refused.status_code == 429
    assert refused.json()["code"] == "RATE_LIMITED"
    assert 0 < int(refused.headers["Retry-After"]) <= 900
