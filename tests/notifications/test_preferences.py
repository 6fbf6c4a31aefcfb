"""Préférences: the connected member's settings, and the sender honouring them."""

from __future__ import annotations

from sqlalchemy import select

from tests.factories.notifications import BASE, envoi, staff
from unionflow.models import Notification

URL = "/api/preferences/me"


async def test_defaults_update_and_validation(client, factory):
    org = await factory.organisation()
    member = await factory.actor(["MEMBRE"], organisation=org)
    assert (await client.get(URL)).status_code == 401
    defaults = await client.get(URL, headers=member.headers)
    assert defaults.status_code == 200
    assert defaults.json() == {"langue": "fr", "theme": "SYSTEME", "canauxParType": {}, "refusNonObligatoires": False,
                               "typesObligatoires": ["AIDE_VERSEE", "AVOIR_DOUBLE_PAIEMENT", "DECISION_AIDE",
                                                     "DECLARATION_REJETEE",
                                                     "EVENEMENT_ANNULE", "INSCRIPTION_CONFIRMEE", "PAIEMENT_ANNULE",
                                                     "PAIEMENT_REMBOURSE", "RAPPEL_COTISATION", "RECU_PAIEMENT",
                                                     "WEBHOOK_DESACTIVE"],
                               "updatedAt": None}
    updated = await client.put(URL, headers=member.headers, json={
        "langue": "wo", "theme": "SOMBRE", "canauxParType": {"INFORMATION": ["SMS", "IN_APP"]}})
    assert updated.status_code == 200, updated.text
    assert updated.json()["langue"] == "wo" and updated.json()["canauxParType"] == {"INFORMATION": ["SMS", "IN_APP"]}
    partial = await client.put(URL, headers=member.headers, json={"refusNonObligatoires": True})
    body = partial.json()
    assert body["langue"] == "wo" and body["theme"] == "SOMBRE" and body["refusNonObligatoires"] is True
    assert (await client.get(URL, headers=member.headers)).json() == body
    for bad in ({"langue": "de"}, {"theme": "ROSE"}, {"canauxParType": {"INCONNU": ["SMS"]}},
                {"canauxParType": {"INFORMATION": ["FAX"]}}, {"canauxParType": {"INFORMATION": ["SMS", "SMS"]}},
                {"membreId": str(member.membre.id)}):
        assert (await client.put(URL, headers=member.headers, json=bad)).status_code == 400, bad
    admin = await factory.actor(["ADMIN"], with_membre=False)
    assert (await client.get(URL, headers=admin.headers)).status_code == 404
    assert (await client.put(URL, headers=admin.headers, json={"langue": "en"})).status_code == 404


async def test_sender_honours_opt_out_and_channels(client, factory, db):
    org, secretaire = await staff(factory)
    refuses = await factory.actor(["MEMBRE"], organisation=org)
    sms_fan = await factory.actor(["MEMBRE"], organisation=org)
    refuses.membre.telephone = "+221770000001"
    sms_fan.membre.telephone = "+221770000002"
    await db.flush()
    assert (await client.put(URL, headers=refuses.headers, json={"refusNonObligatoires": True})).status_code == 200
    choices = {"INFORMATION": ["SMS"], "INVITATION_EVENEMENT": [], "RAPPEL_COTISATION": []}
    assert (await client.put(URL, headers=sms_fan.headers, json={"canauxParType": choices})).status_code == 200
    ids = [str(refuses.membre.id), str(sms_fan.membre.id)]

    info = await client.post(BASE, headers=secretaire.headers, json=envoi(org.id, membreIds=ids, canaux=["EMAIL"]))
    assert info.json()["refuseesParPreference"] == 1 and info.json()["parCanal"] == {"SMS": 1}
    invitation = await client.post(BASE, headers=secretaire.headers, json=envoi(
        org.id, membreIds=ids, typeNotification="INVITATION_EVENEMENT"))
    assert invitation.json()["refuseesParPreference"] == 2 and invitation.json()["creees"] == 0
    # A dues reminder is mandatory: opt-outs do not stop it; an empty channel list falls back to the default.
    reminder = await client.post(BASE, headers=secretaire.headers, json=envoi(
        org.id, membreIds=ids, typeNotification="RAPPEL_COTISATION"))
    assert reminder.json()["refuseesParPreference"] == 0 and reminder.json()["parCanal"] == {"EMAIL": 2}
    rows = (await db.execute(select(Notification.membre_id, Notification.type_notification, Notification.canal)
                             .where(Notification.organisation_id == org.id))).all()
    assert sorted((r.type_notification, r.canal) for r in rows if r.membre_id == refuses.membre.id) == [
        ("RAPPEL_COTISATION", "EMAIL")]
