"""Sending, the staff outbox and the member's inbox, over HTTP."""

from __future__ import annotations

import uuid
from datetime import date

from sqlalchemy import select

from tests.factories.notifications import BASE, envoi, staff
from unionflow.models import AuditLog, MembreOrganisation, Notification


async def _rows(db, **where):
    stmt = select(Notification)
    for key, value in where.items():
        stmt = stmt.where(getattr(Notification, key) == value)
    return list((await db.execute(stmt.order_by(Notification.created_at))).scalars())


async def test_send_to_members_one_row_per_channel_and_inbox(client, factory, db):
    org, secretaire = await staff(factory)
    mail = await factory.actor(["MEMBRE"], organisation=org)
    phone_only = await factory.membre(org, email=None, telephone="+221771234567", prenom="Moussa")
    nothing = await factory.membre(org, email=None, telephone=None)
    response = await client.post(BASE, headers=secretaire.headers, json=envoi(
        org.id, membreIds=[str(mail.membre.id), str(phone_only.id), str(nothing.id), str(mail.membre.id)]))
    assert response.status_code == 201, response.text
    body = response.json()
    assert body == {"destinataires": 3, "creees": 3, "refuseesParPreference": 0, "sansAdresse": 0,
                    "parCanal": {"EMAIL": 1, "SMS": 1, "IN_APP": 1}}
    by_member = {r.membre_id: r for r in await _rows(db, organisation_id=org.id)}
    assert by_member[mail.membre.id].canal == "EMAIL" and by_member[mail.membre.id].statut == "EN_ATTENTE"
    assert by_member[mail.membre.id].adresse == mail.membre.email
    assert by_member[phone_only.id].canal == "SMS" and by_member[phone_only.id].adresse == "+221771234567"
    assert by_member[phone_only.id].corps.startswith("Bonjour Moussa, l'assemblée de " + org.nom)
    # IN_APP is delivered by being stored.
    assert by_member[nothing.id].canal == "IN_APP" and by_member[nothing.id].statut == "ENVOYEE"
    assert by_member[nothing.id].date_envoi is not None
    audit = (await db.execute(select(AuditLog).where(AuditLog.module == "NOTIFICATIONS",
                                                     AuditLog.entite_id == str(org.id)))).scalar_one()
    assert audit.type_action == "ENVOYER" and audit.details["apres"]["creees"] == 3

    inbox = (await client.get(f"{BASE}/mes", headers=mail.headers)).json()
    assert inbox["totalElements"] == 1 and inbox["content"][0]["sujet"] == "Assemblée générale"
    assert inbox["content"][0]["corps"] == f"Bonjour {mail.membre.prenom}, l'assemblée de {org.nom} a lieu samedi."
    count = await client.get(f"{BASE}/mes/non-lues/count", headers=mail.headers)
    assert count.json() == {"nonLues": 1}
    notif_id = inbox["content"][0]["id"]
    # Someone else's notification is invisible, even to mark it read.
    assert (await client.put(f"{BASE}/{notif_id}/lue", headers=secretaire.headers)).status_code == 404
    read = await client.put(f"{BASE}/{notif_id}/lue", headers=mail.headers)
    assert read.status_code == 200 and read.json()["statut"] == "LUE" and read.json()["dateLecture"]
    again = await client.put(f"{BASE}/{notif_id}/lue", headers=mail.headers)
    assert again.json()["dateLecture"] == read.json()["dateLecture"]
    assert (await client.get(f"{BASE}/mes/non-lues/count", headers=mail.headers)).json() == {"nonLues": 0}
    assert (await client.get(f"{BASE}/mes?nonLues=true", headers=mail.headers)).json()["totalElements"] == 0
    assert (await client.get(f"{BASE}/{notif_id}", headers=mail.headers)).status_code == 200
    assert (await client.get(f"{BASE}/{uuid.uuid4()}", headers=mail.headers)).status_code == 404


async def test_all_active_members_only(client, factory, db):
    org, secretaire = await staff(factory)
    active = await factory.membre(org)
    left = await factory.membre(org)
    await db.execute(MembreOrganisation.__table__.update().where(MembreOrganisation.membre_id == left.id)
                     .values(statut="INACTIF", date_fin=date.today()))
    suspended = await factory.membre(org, statut="SUSPENDU")
    elsewhere = await factory.membre(await factory.organisation())
    response = await client.post(BASE, headers=secretaire.headers, json=envoi(org.id, tousMembresActifs=True))
    assert response.status_code == 201, response.text
    targets = {r.membre_id for r in await _rows(db, organisation_id=org.id)}
    assert active.id in targets and secretaire.membre.id in targets
    assert not targets & {left.id, suspended.id, elsewhere.id}
    assert response.json()["destinataires"] == len(targets) == 2
    # Listing an inactive member explicitly is refused rather than silently skipped.
    refused = await client.post(BASE, headers=secretaire.headers, json=envoi(org.id, membreIds=[str(left.id)]))
    assert refused.status_code == 404 and str(left.id) in refused.json()["detail"]


async def test_send_authorisation_and_input(client, factory):
    org, secretaire = await staff(factory)
    membre = await factory.actor(["MEMBRE"], organisation=org)
    other_org, other_staff = await staff(factory)
    stranger = await factory.membre(other_org)
    body = envoi(org.id, membreIds=[str(membre.membre.id)])
    assert (await client.post(BASE, json=body)).status_code == 401
    assert (await client.post(BASE, headers=membre.headers, json=body)).status_code == 403
    assert (await client.post(BASE, headers=other_staff.headers, json=body)).status_code == 403
    assert (await client.post(BASE, headers=secretaire.headers,
                              json=envoi(uuid.uuid4(), tousMembresActifs=True))).status_code == 404
    # Input is judged before existence: a bad placeholder is 400 even for an unknown organisation.
    assert (await client.post(BASE, headers=secretaire.headers, json=envoi(
        uuid.uuid4(), tousMembresActifs=True, corps="{inconnue}"))).status_code == 400
    assert (await client.post(BASE, headers=secretaire.headers,
                              json=envoi(org.id, membreIds=[str(stranger.id)]))).status_code == 404
    bad = [
        envoi(org.id),  # neither recipients nor everyone
        envoi(org.id, membreIds=[str(membre.membre.id)], tousMembresActifs=True),
        envoi(org.id, membreIds=[str(membre.membre.id)], statut="ENVOYEE"),  # server-managed field
        {"organisationId": str(org.id), "tousMembresActifs": True, "sujet": "Sans corps"},
        envoi(org.id, tousMembresActifs=True, codeModele="AG", corps="x"),
        envoi(org.id, tousMembresActifs=True, canaux=["EMAIL", "EMAIL"]),
        envoi(org.id, tousMembresActifs=True, canaux=["FAX"]),
        envoi(org.id, tousMembresActifs=True, corps="{prenom.__class__.__mro__}"),
        envoi(org.id, tousMembresActifs=True, corps="{0}"),
        envoi(org.id, tousMembresActifs=True, corps="{prenom!r}"),
        envoi(org.id, tousMembresActifs=True, corps="Montant {montant}"),  # no value given
        envoi(org.id, tousMembresActifs=True, corps="unbalanced {"),
        envoi(org.id, tousMembresActifs=True, variables={"prenom": "X"}),  # server-filled name
    ]
    for payload in bad:
        response = await client.post(BASE, headers=secretaire.headers, json=payload)
        assert response.status_code == 400, (payload, response.text)
    ok = await client.post(BASE, headers=secretaire.headers, json=envoi(
        org.id, membreIds=[str(membre.membre.id)], corps="Montant {montant} XOF, {{accolades}}",
        variables={"montant": "5000"}, canaux=["IN_APP"]))
    assert ok.status_code == 201, ok.text
    inbox = (await client.get(f"{BASE}/mes", headers=membre.headers)).json()["content"]
    assert inbox[0]["corps"] == "Montant 5000 XOF, {accolades}"


async def test_grouped_sending_is_all_or_nothing(client, factory, db):
    org, secretaire = await staff(factory)
    a = await factory.membre(org)
    b = await factory.membre(org)
    url = f"{BASE}/groupees"
    ok = await client.post(url, headers=secretaire.headers, json={"envois": [
        envoi(org.id, membreIds=[str(a.id)], sujet="Un"),
        envoi(org.id, membreIds=[str(b.id)], sujet="Deux", typeNotification="INVITATION_EVENEMENT")]})
    assert ok.status_code == 201, ok.text
    assert [r["creees"] for r in ok.json()] == [1, 1]
    assert {r.sujet for r in await _rows(db, organisation_id=org.id)} == {"Un", "Deux"}
    failed = await client.post(url, headers=secretaire.headers, json={"envois": [
        envoi(org.id, membreIds=[str(a.id)], sujet="Trois"),
        envoi(org.id, membreIds=[str(uuid.uuid4())], sujet="Quatre")]})
    assert failed.status_code == 404
    assert "Trois" not in {r.sujet for r in await _rows(db, organisation_id=org.id)}
    assert (await client.post(url, headers=secretaire.headers, json={"envois": []})).status_code == 400
    member = await factory.actor(["MEMBRE"], organisation=org)
    assert (await client.post(url, headers=member.headers, json={"envois": [
        envoi(org.id, membreIds=[str(a.id)])]})).status_code == 403


async def test_staff_outbox_scope_filters_and_resend(client, factory, db):
    org, tresorier = await staff(factory, ("MEMBRE", "TRESORIER"))
    no_address = await factory.membre(org, email=None, telephone=None)
    other_org, other_staff = await staff(factory)
    await factory.membre(other_org)
    sent = await client.post(BASE, headers=tresorier.headers,
                             json=envoi(org.id, membreIds=[str(no_address.id)], canaux=["EMAIL", "IN_APP"]))
    assert sent.json()["sansAdresse"] == 1 and sent.json()["creees"] == 2
    await client.post(BASE, headers=other_staff.headers, json=envoi(other_org.id, tousMembresActifs=True))
    outbox = await client.get(BASE, headers=tresorier.headers, params={"statut": "ECHOUEE"})
    assert outbox.status_code == 200
    rows = outbox.json()["content"]
    assert len(rows) == 1 and rows[0]["derniereErreur"] == "Membre sans adresse e-mail"
    assert {r["organisationId"] for r in (await client.get(BASE, headers=tresorier.headers)).json()["content"]} == {
        str(org.id)}
    admin = await factory.actor(["ADMIN"], with_membre=False)
    everything = (await client.get(BASE, headers=admin.headers, params={"size": 200})).json()["content"]
    assert {str(org.id), str(other_org.id)} <= {r["organisationId"] for r in everything}
    assert (await client.get(BASE, headers=tresorier.headers, params={"canal": "FAX"})).status_code == 400
    assert (await client.get(BASE, headers=tresorier.headers, params={"size": 201})).status_code == 400
    failed_id = rows[0]["id"]
    assert (await client.get(f"{BASE}/{failed_id}", headers=other_staff.headers)).status_code == 404
    assert (await client.post(f"{BASE}/{failed_id}/renvoyer", headers=other_staff.headers)).status_code == 404
    # Still no address: resending cannot help.
    assert (await client.post(f"{BASE}/{failed_id}/renvoyer", headers=tresorier.headers)).status_code == 400
    no_address.email = "corrige@example.sn"
    await db.flush()
    resent = await client.post(f"{BASE}/{failed_id}/renvoyer", headers=tresorier.headers)
    assert resent.status_code == 200, resent.text
    assert resent.json()["statut"] == "EN_ATTENTE" and resent.json()["adresse"] == "corrige@example.sn"
    assert resent.json()["tentatives"] == 0
    assert (await client.post(f"{BASE}/{failed_id}/renvoyer", headers=tresorier.headers)).status_code == 400


async def test_mark_all_read_and_caller_without_member(client, factory):
    org, secretaire = await staff(factory)
    member = await factory.actor(["MEMBRE"], organisation=org)
    for sujet in ("Un", "Deux"):
        await client.post(BASE, headers=secretaire.headers,
                          json=envoi(org.id, membreIds=[str(member.membre.id)], sujet=sujet))
    assert (await client.get(f"{BASE}/mes/non-lues/count", headers=member.headers)).json() == {"nonLues": 2}
    marked = await client.put(f"{BASE}/mes/lues", headers=member.headers)
    assert marked.json() == {"marquees": 2}
    assert (await client.get(f"{BASE}/mes/non-lues/count", headers=member.headers)).json() == {"nonLues": 0}
    admin = await factory.actor(["ADMIN"], with_membre=False)
    empty = (await client.get(f"{BASE}/mes", headers=admin.headers)).json()
    assert empty["content"] == [] and empty["totalElements"] == 0
    assert (await client.get(f"{BASE}/mes", headers=member.headers, params={"page": -1})).status_code == 400
