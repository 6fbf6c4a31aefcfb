"""Request bodies and targets from the outside (issue 21, findings 7-8): control characters refused with the same
French 400 on both databases (PostgreSQL answered 500 on NUL, SQLite stored it), a body of the wrong media type is
415, a JSON body over the limit is 413 before it is read whole, uploads keep their own limit."""

from __future__ import annotations

import json

import pytest

from tests.documents.fichiers import PDF_BYTES
from tests.factories.documents import upload
from unionflow.core.routing import _ESCAPED_CONTROL

PROBLEM = "application/problem+json"


def _french_400(response, field: str | None = None) -> dict:
    assert response.status_code == 400, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    body = response.json()
    assert "contrôle" in body["detail"] and body["type"].endswith("/caractere-controle"), body
    if field is not None:
        assert [e["field"] for e in body["errors"]] == [field], body
    return body


@pytest.mark.parametrize("text", ["ab\u0000", "a\u0001b", "\u001f", "x\u007f"])
async def test_control_characters_in_json_bodies_are_400_naming_the_field(client, factory, text):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    created = await client.post("/api/organisations", headers=admin.headers,
                                json={"nom": text, "typeOrganisation": "UNION"})
    _french_400(created, "nom")
    member = await factory.actor(["MEMBRE"], organisation=await factory.organisation())
    updated = await client.put(f"/api/membres/{member.membre.id}", headers=admin.headers, json={"nom": text})
    _french_400(updated, "nom")


async def test_tabs_and_new_lines_are_text_and_escaped_backslashes_are_not_controls(client, factory):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    created = await client.post("/api/organisations", headers=admin.headers,
                                json={"nom": "Union\\u0000 de Thiès", "typeOrganisation": "UNION",
                                      "description": "Ligne 1\nLigne 2\tfin"})
    assert created.status_code == 201, created.text
    assert created.json()["nom"] == "Union\\u0000 de Thiès"
    assert not _ESCAPED_CONTROL.search(json.dumps({"a": "\\u0000", "b": "\\\\u0001"}).encode())
    assert _ESCAPED_CONTROL.search(json.dumps({"a": "\\\u0000"}).encode())


async def test_control_characters_in_nested_values_and_keys(client, factory):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    response = await client.post("/api/organisations", headers={**admin.headers, "Content-Type": "application/json"},
                                 content=b'{"nom": "Union", "typeOrganisation": "UNION", "x\\u0000": 1}')
    _french_400(response, "x\u0000")


async def test_control_characters_in_paths_and_queries_are_400(client, factory):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    for url in ("/api/adhesions/reference/ADH%00", "/api/membres?search=ab%00", "/api/membres?search=ab%1F",
                "/api/inconnu%00"):
        _french_400(await client.get(url, headers=admin.headers))


async def test_a_body_of_another_media_type_is_415_after_authentication(client, factory):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    text = await client.post("/api/organisations", headers={**admin.headers, "Content-Type": "text/plain"},
                             content=b'{"nom": "Union", "typeOrganisation": "UNION"}')
    form = await client.post("/api/organisations", headers=admin.headers,
                             data={"nom": "Union", "typeOrganisation": "UNION"})
    for response in (text, form):
        assert response.status_code == 415, response.text
        assert response.headers["content-type"].startswith(PROBLEM)
        assert "non supporté" in response.json()["detail"]
    anonymous = await client.post("/api/organisations", headers={"Content-Type": "text/plain"}, content=b"x")
    assert anonymous.status_code == 401
    # The token endpoint reads a form: JSON there is the wrong media type.
    token = await client.post("/api/auth/token", json={"grant_type": "password"})
    assert token.status_code == 415, token.text
    # JSON with a parameter or a +json subtype is JSON.
    ok = await client.post("/api/organisations", headers={**admin.headers,
                                                          "Content-Type": "application/json; charset=utf-8"},
                           content=json.dumps({"nom": "Union JSON", "typeOrganisation": "UNION"}).encode())
    assert ok.status_code == 201, ok.text


async def test_a_json_body_over_the_limit_is_413_before_being_read_whole(client, factory, settings):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    limit = settings.max_json_body_bytes
    assert limit == 1024 * 1024
    read = 0

    async def chunks():
        nonlocal read
        yield b'{"nom": "'
        for _ in range(64):  # 4 MiB if read to the end
            read += 1
            yield b"a" * 65536
        yield b'", "typeOrganisation": "UNION"}'

    streamed = await client.post("/api/organisations", content=chunks(),
                                 headers={**admin.headers, "Content-Type": "application/json"})
    assert streamed.status_code == 413, streamed.text
    assert streamed.headers["content-type"].startswith(PROBLEM)
    assert str(limit) in streamed.json()["detail"]
    assert read <= limit // 65536 + 2

    read = 0
    declared = await client.post("/api/organisations", content=chunks(), headers={
        **admin.headers, "Content-Type": "application/json", "Content-Length": str(30 * 1024 * 1024)})
    assert declared.status_code == 413 and read == 0


async def test_uploads_keep_their_own_limit(client, factory):
    member = await factory.actor(["USER"], organisation=await factory.organisation())
    big = PDF_BYTES + b"%" * (2 * 1024 * 1024)  # over the JSON limit, under the upload limit
    response = await upload(client, member.headers, big)
    assert response.status_code == 200, response.text


@pytest.mark.parametrize("text", ["ab\u0000", "a\u0001b", "x\u007f"])
async def test_control_characters_in_multipart_text_fields_are_400(client, factory, text):
    """Uploads and imports read multipart forms, which neither the JSON check nor the middleware sees (their bodies
    are the routes' own): their text fields are refused alike, and nothing is stored."""
    org = await factory.organisation()
    member = await factory.actor(["USER"], organisation=org)
    _french_400(await upload(client, member.headers, PDF_BYTES, description=text))
    assert (await client.get("/api/documents/mes-documents", headers=member.headers)).json() == []
    secretary = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    csv = "Prénom;Nom;E-mail\r\nAwa;Diop;awa@x.example\r\n".encode()
    response = await client.post("/api/membres/import", headers=secretary.headers,
                                 data={"organisationId": str(org.id), "simulation": text},
                                 files={"fichier": ("m.csv", csv, "text/csv")})
    _french_400(response, "simulation")
    with_control = f"Prénom;Nom;E-mail\r\nAwa;Di{text}op;awa@x.example\r\n".encode()
    response = await client.post("/api/membres/import", headers=secretary.headers,
                                 data={"organisationId": str(org.id), "simulation": "false"},
                                 files={"fichier": ("m.csv", with_control, "text/csv")})
    assert "ligne 2, colonne 2" in _french_400(response)["detail"]


def test_the_fuzz_generates_nul_again():
    """The fuzz hid finding 7 with ``allow-x00 = false`` ("the API refuses NUL bytes", which nothing did): now that
    the API refuses them with its own 400, the fuzz must send them, so a 500 on NUL is found again."""
    import tomllib
    from pathlib import Path

    config = tomllib.loads((Path(__file__).parents[2] / "fuzz" / "schemathesis.toml").read_text(encoding="utf-8"))
    assert config["generation"]["allow-x00"] is True
