"""What the external auditor reads in the console and what the bureau acts on there: the LCB-FT alerts (open and
treated; the organisation's administrator treats them, the auditor only reads) and the credit ledger beside
account 4191 of the books."""

from __future__ import annotations

from sqlalchemy import select

from tests.console.connexion import sign_in
from tests.factories.paiements import paiement_valide
from unionflow.lcbft.service import evaluer_paiement
from unionflow.models import AlerteLcbFt


async def _alertes(db, factory):
    org = await factory.organisation()
    membre = await factory.membre(org)
    alertes = await evaluer_paiement(db, await paiement_valide(db, membre, org, "6000000", "WAVE"))
    await db.flush()
    return org, alertes


async def test_the_administrator_treats_an_alert_in_the_console(client, factory, db):
    org, alertes = await _alertes(db, factory)
    admin = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    csrf = await sign_in(client, admin, db)
    page = await client.get("/console/alertes")
    assert page.status_code == 200 and f"/alertes/{alertes[0].id}/traiter" in page.text
    assert len(page.content) < 30_000
    empty = await client.post(f"/console/alertes/{alertes[0].id}/traiter",
                              data={"csrf": csrf, "decision": "SANS_SUITE", "commentaire": ""})
    assert empty.status_code == 400 and "commentaire" in empty.text
    forged = await client.post(f"/console/alertes/{alertes[0].id}/traiter",
                               data={"csrf": csrf, "decision": "OUBLIER", "commentaire": "x"})
    assert forged.status_code == 400 and "Décision inconnue" in forged.text
    done = await client.post(f"/console/alertes/{alertes[0].id}/traiter", data={
        "csrf": csrf, "decision": "DECLARATION_SOUPCON", "commentaire": "DS CENTIF n° 2026-114"})
    assert done.status_code == 303, done.text
    await db.refresh(alertes[0])
    assert alertes[0].traitee and alertes[0].decision == "DECLARATION_SOUPCON"
    assert alertes[0].commentaire == "DS CENTIF n° 2026-114"
    again = await client.post(f"/console/alertes/{alertes[0].id}/traiter",
                              data={"csrf": csrf, "decision": "SANS_SUITE", "commentaire": "autre"})
    assert again.status_code == 409  # the first decision stands, as in the API
    after = await client.get("/console/alertes")
    assert "Traitées récemment" in after.text and "DS CENTIF n° 2026-114" in after.text
    assert "Déclaration de soupçon à la CENTIF" in after.text


async def test_the_auditor_reads_alerts_and_treats_none(client, factory, db):
    org, alertes = await _alertes(db, factory)
    auditeur = await factory.actor(["USER"], organisation=org, org_roles=["COMMISSAIRE_AUX_COMPTES"])
    csrf = await sign_in(client, auditeur, db)
    page = await client.get("/console/alertes")
    assert page.status_code == 200 and "6\u202f000\u202f000" in page.text
    assert "/traiter" not in page.text
    assert 'href="/console/alertes"' in (await client.get("/console/avoirs")).text  # offered in his menu
    forced = await client.post(f"/console/alertes/{alertes[0].id}/traiter",
                               data={"csrf": csrf, "decision": "SANS_SUITE", "commentaire": "vu"})
    assert forced.status_code == 403
    row = (await db.execute(select(AlerteLcbFt).where(AlerteLcbFt.id == alertes[0].id))).scalar_one()
    assert not row.traitee


async def test_a_treasurer_alone_does_not_see_alerts(client, factory, db):
    org, _ = await _alertes(db, factory)
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    await sign_in(client, treasurer, db)
    assert (await client.get("/console/alertes")).status_code == 403


def _avance(org, member, montant):
    return {"membreId": str(member.membre.id), "organisationId": str(org.id), "montant": montant,
            "methode": "ESPECES", "cibles": [], "avance": True}


async def test_the_credit_ledger_ties_to_account_4191(client, factory, db):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    auditeur = await factory.actor(["USER"], organisation=org, org_roles=["COMMISSAIRE_AUX_COMPTES"])
    awa = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    bara = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    for actor, prenom, nom in ((awa, "Awa", "Diop"), (bara, "Bara", "Ndiaye")):
        actor.membre.prenom, actor.membre.nom = prenom, nom
    await db.flush()
    for member, montant in ((awa, "5000"), (bara, "2500"), (awa, "1000")):
        paid = await client.post("/api/paiements", headers=treasurer.headers, json=_avance(org, member, montant))
        assert paid.status_code == 201, paid.text
    registre = await client.get("/api/avoirs/registre", headers=auditeur.headers,
                                params={"organisationId": str(org.id)})
    assert registre.status_code == 200, registre.text
    body = registre.json()
    assert [(ligne["nom"], ligne["solde"]) for ligne in body["lignes"]] == [("Awa Diop", "6000.00"),
                                                                            ("Bara Ndiaye", "2500.00")]
    assert body["total"] == body["soldeCompteAvoirs"] == "8500.00" and body["ecart"] == "0.00"
    other = await factory.organisation()
    assert (await client.get("/api/avoirs/registre", headers=auditeur.headers,
                             params={"organisationId": str(other.id)})).status_code == 404
    member_view = await client.get("/api/avoirs/registre", headers=awa.headers,
                                   params={"organisationId": str(org.id)})
    assert member_view.status_code == 403
    await sign_in(client, auditeur, db)
    page = await client.get("/console/avoirs")
    assert page.status_code == 200, page.text
    assert "Awa Diop" in page.text and "6\u202f000" in page.text and "8\u202f500" in page.text
    assert "concordent" in page.text and "/imputer" not in page.text
