"""What the served OpenAPI states about the layers around every operation (issue 21, finding 13)."""

from __future__ import annotations


async def test_servers_and_the_statuses_of_the_layers_around_the_operations(client):
    schema = (await client.get("/openapi.json")).json()
    assert schema["servers"] == [{"url": "/", "description": "Ce serveur (adresse du document OpenAPI)"}]
    authenticated = with_body = 0
    for path, item in schema["paths"].items():
        for method, op in item.items():
            if not isinstance(op, dict) or "responses" not in op:
                continue
            if op.get("security"):
                authenticated += 1
                assert "503" in op["responses"], (method, path)
            if "requestBody" in op:
                with_body += 1
                assert {"413", "415"} <= set(op["responses"]), (method, path)
    assert authenticated > 100 and with_body > 50


async def test_every_tag_has_a_description(client):
    tags = (await client.get("/openapi.json")).json()["tags"]
    assert len(tags) >= 40 and all(tag.get("description") for tag in tags), [t["name"] for t in tags]
