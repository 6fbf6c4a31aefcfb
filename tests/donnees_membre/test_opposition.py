"""Opposition (Loi 2008-12, art. 68): a member objects to an opposable processing of the register, a second person
decides (the same four-eyes requests as erasure), the approved opposition takes effect where the data is processed
(no dues reminder by SMS or e-mail, no information notice), the member withdraws it; processings the law or the
membership requires are refused; the data-protection officer decides; the export shows it."""

from __future__ import annotations

import uuid

from sqlalchemy import select

from tests.factories.cotisations import cotisation
from tests.factories.donnees_membre import dossier
from unionflow.models import AuditLog
from unionflow.models.notification import Notification

RAPPELS = "RAPPELS_COTISATION"


async def _notifications(db, membre_id: uuid.UUID, type_notification: str) -> list[tuple[str, str]]:
    rows = (await db.execute(select(Notification.canal, Notification.statut).where(
        Notification.membre_id == membre_id, Notification.type_notification == type_notification)
        .execution_options(populate_existing=True))).all()
    return sorted((r.canal, r.statut) for r in rows)


async def _actions(db, entite_ids: set[str]) -> set[str]:
    rows = (await db.execute(select(AuditLog.type_action).where(AuditLog.entite_id.in_(entite_ids)))).scalars()
    return set(rows)


async def _opposer(client, d, traitement: str = RAPPELS, motif: str = "Je paie au guichet chaque mois") -> dict:
    demande = await client.post("/api/moi/donnees/oppositions", headers=d.membre.headers,
                                json={"traitement": traitement, "motif": motif})
    assert demande.status_code == 201, demande.text
    approuve = await client.post(f"/api/donnees/oppositions/{demande.json()['id']}/approuver",
                                 headers=d.president.headers, json={"commentaire": "Raisons légitimes"})
    assert approuve.status_code == 200, approuve.text
    return approuve.json()


async def _rappeler(client, d, *membres) -> None:
    response = await client.post("/api/cotisations/rappels/groupes", headers=d.tresorier.headers,
                                 json=[str(m.id) for m in membres])
    assert response.status_code == 200, response.text


async def test_an_approved_opposition_stops_the_members_reminders_and_not_the_others(client, factory, db):
    d = await dossier(client, factory, db)
    membre = d.membre.membre
    autre = (await factory.actor(["USER"], organisation=d.org, org_roles=["MEMBRE"])).membre
    demande = await client.post("/api/moi/donnees/oppositions", headers=d.membre.headers,
                                json={"traitement": RAPPELS, "motif": "Je paie au guichet chaque mois"})
    assert demande.status_code == 201, demande.text
    body = demande.json()
    assert body["statut"] == "EN_ATTENTE" and body["enVigueur"] is False and "seconde personne" in body["reponse"]
    assert body["traitementNom"] == "Rappels de cotisation par SMS et e-mail"
    again = await client.post("/api/moi/donnees/oppositions", headers=d.membre.headers,
                              json={"traitement": RAPPELS, "motif": "Encore"})
    assert again.status_code == 409 and "déjà en attente" in again.json()["detail"]
    # In the decider's « à approuver » list, with the other four-eyes kinds.
    a_approuver = (await client.get("/api/approbations/a-approuver", headers=d.president.headers)).json()
    ligne = next(r for r in a_approuver["content"] if r["id"] == body["id"])
    assert ligne["genre"] == "OPPOSITION" and ligne["chemin"] == f"/api/donnees/oppositions/{body['id']}"
    # The member never decides his own request, nor does a treasurer.
    path = f"/api/donnees/oppositions/{body['id']}"
    assert (await client.post(f"{path}/approuver", headers=d.membre.headers, json={})).status_code == 403
    assert (await client.post(f"{path}/approuver", headers=d.tresorier.headers, json={})).status_code == 403

    approuve = await client.post(f"{path}/approuver", headers=d.president.headers, json={})
    assert approuve.status_code == 200, approuve.text
    assert approuve.json()["statut"] == "APPROUVEE" and approuve.json()["enVigueur"] is True
    assert "en vigueur" in approuve.json()["reponse"] and approuve.json()["effectiveLe"]
    assert (await client.post(f"{path}/approuver", headers=d.admin.headers, json={})).status_code == 400
    # A second opposition to the same processing while the first is in force.
    doublon = await client.post("/api/moi/donnees/oppositions", headers=d.membre.headers,
                                json={"traitement": RAPPELS, "motif": "Encore une fois"})
    assert doublon.status_code == 409 and "déjà en vigueur" in doublon.json()["detail"]

    membre.email, autre.telephone = "ndeye.fatou@example.sn", "+221770000043"
    await cotisation(db, membre, d.org, 5000)
    await cotisation(db, autre, d.org, 5000)
    await _rappeler(client, d, membre, autre)
    # The opposed member: no SMS, no e-mail, his own inbox only; the other member his e-mail as usual.
    assert await _notifications(db, membre.id, "RAPPEL_COTISATION") == [("IN_APP", "ENVOYEE")]
    assert [c for c, _ in await _notifications(db, autre.id, "RAPPEL_COTISATION")] == ["EMAIL"]

    mes = (await client.get("/api/moi/donnees/oppositions", headers=d.membre.headers)).json()
    assert [(o["id"], o["enVigueur"]) for o in mes] == [(body["id"], True)]
    assert await _actions(db, {body["id"], str(membre.id)}) >= {
        "DEMANDER_OPPOSITION", "APPROUVER_OPPOSITION", "ENREGISTRER_OPPOSITION"}


async def test_the_member_withdraws_and_is_reminded_again(client, factory, db):
    d = await dossier(client, factory, db)
    membre = d.membre.membre
    membre.email = "ndeye.fatou@example.sn"
    opposition = await _opposer(client, d)
    retrait = await client.post(f"/api/donnees/oppositions/{opposition['id']}/retirer", headers=d.membre.headers,
                                json={"motif": "Je préfère être rappelée"})
    assert retrait.status_code == 200, retrait.text
    body = retrait.json()
    assert body["enVigueur"] is False and body["retireeLe"] and "retiré votre opposition" in body["reponse"]
    again = await client.post(f"/api/donnees/oppositions/{opposition['id']}/retirer", headers=d.membre.headers,
                              json={})
    assert again.status_code == 400
    await cotisation(db, membre, d.org, 5000)
    await _rappeler(client, d, membre)
    assert [c for c, _ in await _notifications(db, membre.id, "RAPPEL_COTISATION")] == ["EMAIL"]
    assert "RETIRER_OPPOSITION" in await _actions(db, {opposition["id"]})
    # He may object again: a new request, the history kept.
    nouvelle = await client.post("/api/moi/donnees/oppositions", headers=d.membre.headers,
                                 json={"traitement": RAPPELS, "motif": "Finalement non"})
    assert nouvelle.status_code == 201, nouvelle.text
    retiree = await client.post(f"/api/donnees/oppositions/{nouvelle.json()['id']}/retirer",
                                headers=d.membre.headers, json={})
    assert retiree.status_code == 200 and retiree.json()["statut"] == "RETIREE"
    # Nobody else withdraws his opposition: another member gets 404 (he does not see it).
    autre = await factory.actor(["USER"], organisation=d.org, org_roles=["MEMBRE"])
    assert (await client.post(f"/api/donnees/oppositions/{opposition['id']}/retirer", headers=autre.headers,
                              json={})).status_code == 404


async def test_the_requester_and_the_member_concerned_never_decide(client, factory, db):
    d = await dossier(client, factory, db)
    demande = await client.post(f"/api/membres/{d.membre.membre.id}/donnees/oppositions", headers=d.admin.headers,
                                json={"traitement": RAPPELS, "motif": "Lettre du membre reçue au bureau"})
    assert demande.status_code == 201, demande.text
    path = f"/api/donnees/oppositions/{demande.json()['id']}"
    soi = await client.post(f"{path}/approuver", headers=d.admin.headers, json={})
    assert soi.status_code == 403 and soi.json()["detail"] == (
        "Principe des quatre yeux: on ne décide pas de sa propre demande")
    # The member concerned follows the request filed for him.
    assert (await client.get(path, headers=d.membre.headers)).status_code == 200
    # A president who objects through the secretariat does not approve his own opposition.
    pour_le_president = await client.post(
        f"/api/membres/{d.president.membre.id}/donnees/oppositions", headers=d.admin.headers,
        json={"traitement": RAPPELS, "motif": "Demande écrite du président"})
    assert pour_le_president.status_code == 201, pour_le_president.text
    lui = await client.post(f"/api/donnees/oppositions/{pour_le_president.json()['id']}/approuver",
                            headers=d.president.headers, json={})
    assert lui.status_code == 403 and "membre concerné" in lui.json()["detail"]
    rejet = await client.post(f"{path}/rejeter", headers=d.president.headers,
                              json={"commentaire": "Aucune raison légitime avancée"})
    assert rejet.status_code == 200 and rejet.json()["statut"] == "REJETEE"
    assert rejet.json()["reponse"].endswith("a été refusée: Aucune raison légitime avancée")
    assert "REJETER_OPPOSITION" in await _actions(db, {demande.json()["id"]})


async def test_processings_required_by_law_or_the_membership_cannot_be_opposed(client, factory, db):
    d = await dossier(client, factory, db)
    for code in ("COTISATIONS", "PAIEMENTS", "REGISTRE_MEMBRES", "JOURNAL_AUDIT"):
        refus = await client.post("/api/moi/donnees/oppositions", headers=d.membre.headers,
                                  json={"traitement": code, "motif": "Je ne veux pas"})
        assert refus.status_code == 409, (code, refus.text)
        assert "requis par la loi, le contrat ou l'adhésion" in refus.json()["detail"]
    inconnu = await client.post("/api/moi/donnees/oppositions", headers=d.membre.headers,
                                json={"traitement": "INCONNU", "motif": "Je ne veux pas"})
    assert inconnu.status_code == 400 and "registre des traitements" in inconnu.json()["detail"]
    # The register says which processings are open to opposition.
    registre = (await client.get("/api/conformite/traitements", headers=d.admin.headers)).json()
    opposables = {t["code"] for t in registre["traitements"] if t["opposable"]}
    assert opposables == {RAPPELS, "COMMUNICATIONS"}


async def test_an_opposition_to_communications_stops_information_notices(client, factory, db):
    d = await dossier(client, factory, db)
    autre = (await factory.actor(["USER"], organisation=d.org, org_roles=["MEMBRE"])).membre
    await _opposer(client, d, "COMMUNICATIONS", "prospection")
    envoi = await client.post("/api/notifications", headers=d.president.headers, json={
        "organisationId": str(d.org.id), "membreIds": [str(d.membre.membre.id), str(autre.id)],
        "sujet": "Offre partenaire", "corps": "Une assurance à tarif préférentiel"})
    assert envoi.status_code == 201, envoi.text
    assert envoi.json()["refuseesParPreference"] == 1
    sujets = (await db.execute(select(Notification.membre_id).where(Notification.sujet == "Offre partenaire")))
    assert set(sujets.scalars()) == {autre.id}


async def test_the_data_protection_officer_decides_oppositions_and_erasures(client, factory, db):
    d = await dossier(client, factory, db)
    dpo = await factory.actor(["USER"], organisation=d.org, org_roles=["MEMBRE", "DELEGUE_PROTECTION_DONNEES"])
    demande = await client.post("/api/moi/donnees/oppositions", headers=d.membre.headers,
                                json={"traitement": RAPPELS, "motif": "Je paie au guichet"})
    a_approuver = await client.get("/api/approbations/a-approuver", headers=dpo.headers)
    assert a_approuver.status_code == 200, a_approuver.text
    assert demande.json()["id"] in [r["id"] for r in a_approuver.json()["content"]]
    approuve = await client.post(f"/api/donnees/oppositions/{demande.json()['id']}/approuver", headers=dpo.headers,
                                 json={})
    assert approuve.status_code == 200 and approuve.json()["enVigueur"] is True, approuve.text
    # His own opposition is decided by someone else.
    sienne = await client.post("/api/moi/donnees/oppositions", headers=dpo.headers,
                               json={"traitement": "COMMUNICATIONS", "motif": "prospection"})
    assert sienne.status_code == 201, sienne.text
    soi = await client.post(f"/api/donnees/oppositions/{sienne.json()['id']}/approuver", headers=dpo.headers,
                            json={})
    assert soi.status_code == 403 and "quatre yeux" in soi.json()["detail"]
    effacement = await client.post("/api/moi/donnees/effacement", headers=d.membre.headers,
                                   json={"motif": "Je quitte l'association"})
    efface = await client.post(f"/api/donnees/effacements/{effacement.json()['id']}/approuver",
                               headers=dpo.headers, json={})
    assert efface.status_code == 200 and efface.json()["statut"] == "APPROUVEE", efface.text


async def test_the_export_shows_the_oppositions(client, factory, db):
    d = await dossier(client, factory, db)
    opposition = await _opposer(client, d)
    donnees = (await client.get("/api/moi/donnees", headers=d.membre.headers)).json()
    section = next(s for s in donnees["sections"] if s["cle"] == "oppositions")
    assert section["table"] == "opposition_traitement"
    assert [(r["traitement"], r["demande_id"], r["retiree_le"]) for r in section["lignes"]] == [
        (RAPPELS, opposition["id"], None)]
