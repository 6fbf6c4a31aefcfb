from __future__ import annotations

from alembic.script import ScriptDirectory

from unionflow.migrations.alembic import alembic_config


async def test_system_information_reports_schema_and_hides_secrets(client, factory, settings):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    response = await client.get("/api/systeme/informations", headers=admin.headers)
    assert response.status_code == 200, response.text
    body = response.json()
    head = ScriptDirectory.from_config(alembic_config()).get_heads()
    assert body["version"] == "1.0.0" and body["revisionsSchema"] == head
    composants = {c["nom"]: c for c in body["composants"]}
    assert composants["wave"]["etat"] == "ACTIF"
    assert settings.wave_webhook_secret not in response.text and settings.wave_api_key not in response.text
    member = await factory.actor(["MEMBRE"], with_membre=False)
    assert (await client.get("/api/systeme/informations", headers=member.headers)).status_code == 403
