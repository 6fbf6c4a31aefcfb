"""Inbound SMS keywords through the real app: answers in the outbox, one segment each, figures equal to the
member's API; the unknown phone, the refused gateway, STOP honoured by the next reminder wave."""

from __future__ import annotations

import uuid
from datetime import date, timedelta
from decimal import Decimal

from sqlalchemy import select

from tests.factories.cotisations import cotisation
from tests.sms.passerelles import ENTRANT, SECRET, africastalking, sms
from unionflow.models import MembreOrganisation, Notification, OppositionSms, Paiement, SmsEntrant
from unionflow.notifications.delivery import LivreurNotifications
from unionflow.notifications.emission import ARRET_SMS
from unionflow.notifications.gsm import septets
from unionflow.sms import textes
from unionflow.ussd.ecrans import francs, jour


async def _reponses(db, entrant_id) -> list[Notification]:
    rows = await db.execute(select(Notification).where(Notification.source_type == "SmsEntrant",
                                                       Notification.source_id == uuid.UUID(entrant_id))
                            .order_by(Notification.created_at))
    found = list(rows.scalars())
    for row in found:
        assert row.canal == "SMS" and row.statut == "EN_ATTENTE", row
        assert septets(row.corps) is not None and septets(row.corps) <= 160, row.corps
    return found


async def _membre(factory, db, org, telephone, **values):
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    member.membre.telephone, member.membre.email = telephone, None
    for key, value in values.items():
        setattr(member.membre, key, value)
    await db.flush()
    return member


async def test_solde_equals_the_member_api(client, factory, db):
    org = await factory.organisation(nom="Mutuelle des pêcheurs de Joal — Œuvre sociale")
    phone = "+221770000201"
    member = await _membre(factory, db, org, phone)
    await cotisation(db, member.membre, org, 2000, echeance=date.today() - timedelta(days=10))
    await cotisation(db, member.membre, org, 3000, echeance=date.today() + timedelta(days=20))

    answer = await sms(client, phone, "solde")
    assert answer["motCle"] == "SOLDE" and answer["reponses"] == 1 and answer["doublon"] is False
    [reply] = await _reponses(db, answer["id"])
    account = (await client.get("/api/compte-adherent/me", headers=member.headers,
                                params={"organisationId": str(org.id)})).json()
    owed = Decimal(account["cotisations"]["montantRestant"]) + Decimal(account["fraisAdhesionRestants"])
    assert owed == Decimal("5000.00")
    assert f"vous devez {francs(owed)}" in reply.corps and "1 cotisation(s) en retard" in reply.corps
    assert f"Credit: {francs(Decimal(account['credit']))}" in reply.corps
    assert f"Solde: {francs(Decimal(account['solde']))}" in reply.corps
    assert jour(date.fromisoformat(account["cotisations"]["prochaineEcheance"])) in reply.corps
    assert reply.adresse == phone and reply.membre_id == member.membre.id and reply.organisation_id == org.id
    assert "pecheurs" in reply.corps  # transliterated (ê is not GSM-7)
    stored = (await db.execute(select(SmsEntrant).where(SmsEntrant.id == uuid.UUID(answer["id"])))).scalar_one()
    assert stored.expediteur == phone and stored.membre_id == member.membre.id and stored.passerelle == "africastalking"


async def test_a_phone_of_two_members_gets_no_figures(client, factory, db):
    org = await factory.organisation()
    phone = "+221770000202"
    for prenom in ("Awa", "Moussa"):
        await _membre(factory, db, org, phone, prenom=prenom)
    answer = await sms(client, phone, "SOLDE")
    assert [r.corps for r in await _reponses(db, answer["id"])] == [textes.PLUSIEURS]


async def test_one_member_of_two_organisations_gets_one_sms_each(client, factory, db):
    first, second = await factory.organisation(nom="Tontine Alpha"), await factory.organisation(nom="Dahira Beta")
    phone = "+221770000203"
    member = await _membre(factory, db, first, phone)
    db.add(MembreOrganisation(membre_id=member.membre.id, organisation_id=second.id, roles=["MEMBRE"],
                              date_debut=date.today()))
    await cotisation(db, member.membre, second, 7000, echeance=date.today() + timedelta(days=3))
    await db.flush()
    answer = await sms(client, phone, "Solde")
    replies = sorted((r.organisation_id, r.corps) for r in await _reponses(db, answer["id"]))
    assert answer["reponses"] == 2 and {o for o, _ in replies} == {first.id, second.id}
    by_org = dict(replies)
    assert by_org[first.id].startswith("Tontine Alpha: vous devez 0 F")
    assert by_org[second.id].startswith(f"Dahira Beta: vous devez {francs(Decimal(7000))}")


async def test_recu_agrees_with_the_public_verification(client, factory, db):
    org = await factory.organisation(nom="Mutuelle de Joal")
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    phone, other_phone = "+221770000204", "+221770000205"
    member = await _membre(factory, db, org, phone)
    await _membre(factory, db, org, other_phone)
    dues = await cotisation(db, member.membre, org, 2000)
    paid = await client.post("/api/paiements", headers=treasurer.headers, json={
        "membreId": str(member.membre.id), "organisationId": str(org.id), "montant": "2000", "methode": "ESPECES",
        "cibles": [{"cotisationId": str(dues.id)}]})
    assert paid.status_code == 201, paid.text
    numero = paid.json()["numeroRecu"]
    cle = (await db.execute(select(Paiement.cle_verification).where(Paiement.numero_recu == numero))).scalar_one()
    api = (await client.get(f"/api/recus/verifier/{numero}", params={"cle": cle})).json()
    attendu = textes.verification(api["numeroRecu"], api["valide"], api["statut"], Decimal(api["montant"]),
                                  date.fromisoformat(api["datePaiement"][:10]), api["organisation"])
    assert "authentique: VALIDE" in attendu and francs(Decimal(api["montant"])) in attendu

    own = await sms(client, phone, f"RECU {numero.lower()}")  # his own receipt: no key needed
    assert [r.corps for r in await _reponses(db, own["id"])] == [attendu]
    foreign = await sms(client, other_phone, f"recu {numero}")  # someone else's, without the key: unknown
    assert [r.corps for r in await _reponses(db, foreign["id"])] == [textes.RECU_INTROUVABLE]
    keyed = await sms(client, "+221779999999", f"RECU {numero} {cle}")  # with the key: anyone, as the route
    assert [r.corps for r in await _reponses(db, keyed["id"])] == [attendu]
    wrong = await sms(client, phone, f"RECU {numero} mauvaisecle")
    assert [r.corps for r in await _reponses(db, wrong["id"])] == [textes.RECU_INTROUVABLE]
    bare = await sms(client, phone, "RECU")
    assert [r.corps for r in await _reponses(db, bare["id"])] == [textes.RECU_SANS_NUMERO]


async def test_aide_unknown_keyword_and_unknown_phone(client, factory, db):
    org = await factory.organisation()
    phone = "+221770000206"
    await _membre(factory, db, org, phone)
    aide = await sms(client, phone, "Aide")
    assert aide["motCle"] == "AIDE" and [r.corps for r in await _reponses(db, aide["id"])] == [textes.AIDE]
    what = await sms(client, phone, "bonjour, combien je dois?")
    assert what["motCle"] == "INCONNU" and [r.corps for r in await _reponses(db, what["id"])] == [textes.MOT_INCONNU]
    for text in ("SOLDE", "RECU REC-X-2026-000001"):
        unknown = await sms(client, "+221770009999", text)
        replies = await _reponses(db, unknown["id"])
        assert [r.corps for r in replies] == [textes.INCONNU] and replies[0].membre_id is None


async def test_a_retried_callback_answers_once(client, factory, db):
    org = await factory.organisation()
    phone = "+221770000207"
    await _membre(factory, db, org, phone)
    first = await sms(client, phone, "AIDE", ident="ATInbound_same")
    again = await sms(client, phone, "AIDE", ident="ATInbound_same")
    assert again["id"] == first["id"] and again["doublon"] is True and again["reponses"] == 0
    assert len(await _reponses(db, first["id"])) == 1


async def test_the_gateway_must_authenticate(app, client, db, monkeypatch):  # db: its counts roll back
    form = {"from": "+221770000208", "to": "21234", "text": "SOLDE", "date": "2026-12-03", "id": "ATInbound_x"}
    assert (await client.post(ENTRANT, data=form)).status_code == 401
    wrong = await client.post(ENTRANT, data=form, headers={"X-SMS-Secret": "not-it"})
    assert wrong.status_code == 401 and wrong.headers["content-type"].startswith("application/problem+json")
    assert (await client.post(f"{ENTRANT}?secret={SECRET}", data=form)).status_code == 200
    assert (await client.post("/api/sms/accuses", data={"id": "x", "status": "Success"})).status_code == 401
    monkeypatch.setattr(app.state.settings, "sms_allowed_networks", ["196.201.214.0/24"])
    outside = await client.post(ENTRANT, data=form, headers={"X-SMS-Secret": SECRET})
    assert outside.status_code == 403
    monkeypatch.setattr(app.state.settings, "sms_allowed_networks", [])
    monkeypatch.setattr(app.state.settings, "sms_callback_secret", None)
    assert (await client.post(ENTRANT, data=form, headers={"X-SMS-Secret": SECRET})).status_code == 401
    monkeypatch.setattr(app.state.settings, "sms_callback_secret", SECRET)
    bad = await client.post(ENTRANT, data={**form, "from": "770000208"}, headers={"X-SMS-Secret": SECRET})
    assert bad.status_code == 400


async def test_rate_limit_per_phone(app, client, db, monkeypatch):  # db: its counts roll back
    monkeypatch.setattr(app.state.settings, "sms_max_requests", 2)
    phone = f"+22177{uuid.uuid4().int % 10**7:07d}"
    await sms(client, phone, "AIDE")
    await sms(client, phone, "AIDE")
    over = await client.post(ENTRANT, headers={"X-SMS-Secret": SECRET}, data={
        "from": phone, "to": "21234", "text": "AIDE", "date": "2026-12-03", "id": "ATInbound_over"})
    assert over.status_code == 429 and "Retry-After" in over.headers


async def test_stop_is_honoured_by_the_next_reminder_wave(app, client, factory, db, settings):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    phone = "+221770000209"
    member = await _membre(factory, db, org, phone)
    await cotisation(db, member.membre, org, 2500, echeance=date.today() - timedelta(days=3))
    stop = await sms(client, phone, "STOP")
    assert [r.corps for r in await _reponses(db, stop["id"])] == [textes.STOP]
    assert (await db.execute(select(OppositionSms).where(OppositionSms.telephone == phone))).scalar_one()

    wave = await client.post("/api/cotisations/rappels/groupes", headers=treasurer.headers,
                             json=[str(member.membre.id)])
    assert wave.status_code == 200, wave.text
    rappel_id = uuid.UUID(wave.json()["rappels"][0]["id"])
    reminder = (await db.execute(select(Notification).where(Notification.source_id == rappel_id))).scalar_one()
    assert reminder.canal == "SMS" and reminder.statut == "ECHOUEE" and reminder.derniere_erreur == ARRET_SMS
    tuned = settings.model_copy(update={"sms_passerelle": "africastalking", "sms_africastalking_username": "sandbox",
                                        "sms_africastalking_api_key": "at-key", "notification_backoff_seconds": 0})
    with africastalking() as (gateway, url):
        await LivreurNotifications(app.state.sessionmaker,
                                   tuned.model_copy(update={"sms_africastalking_url": url})).run()
    to_member = [m["message"] for m in gateway.recus if m["to"] == phone]
    assert to_member == [textes.STOP]  # the confirmation only, no reminder

    start = await sms(client, phone, "START")
    assert [r.corps for r in await _reponses(db, start["id"])] == [textes.START]
    await cotisation(db, member.membre, org, 1000, echeance=date.today() - timedelta(days=1))
    again = await client.post("/api/cotisations/rappels/groupes", headers=treasurer.headers,
                              json=[str(member.membre.id)])
    rappel_id = uuid.UUID(again.json()["rappels"][0]["id"])
    reminder = (await db.execute(select(Notification).where(Notification.source_id == rappel_id))).scalar_one()
    assert reminder.statut == "EN_ATTENTE" and reminder.canal == "SMS"
