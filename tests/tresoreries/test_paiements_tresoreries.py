"""A payment enters the treasury it names (or the default one of its method's type) and its entry debits that
treasury's account; undoing it takes the money back out of that treasury, never below zero for a cash box."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy import select

from tests.factories.cotisations import cotisation
from tests.factories.paiements import encaisser
from tests.factories.tresoreries import declarer, org_avec_encaissement
from tests.livres import lignes_de_piece, solde
from unionflow.models import Paiement


async def _payer(client, db, org, treasurer, member, montant, methode="ESPECES", **extra):
    dues = await cotisation(db, member.membre, org, montant)
    return await client.post("/api/paiements", headers=treasurer.headers, json={
        "membreId": str(member.membre.id), "organisationId": str(org.id), "montant": montant, "methode": methode,
        "cibles": [{"cotisationId": str(dues.id)}], **extra})


async def test_paiement_dans_la_tresorerie_nommee_ou_par_defaut(client, factory, db):
    org, treasurer, _, member = await org_avec_encaissement(client, factory, db, montant=None)
    siege = (await client.post("/api/tresoreries", headers=treasurer.headers,
                               json=declarer(org, "CAISSE", "Caisse du siège", "5711", parDefaut=True))).json()
    antenne = (await client.post("/api/tresoreries", headers=treasurer.headers,
                                 json=declarer(org, "CAISSE", "Caisse de l'antenne", "5712"))).json()
    banque = (await client.post("/api/tresoreries", headers=treasurer.headers,
                                json=declarer(org, "BANQUE", "Banque", "5211"))).json()

    by_default = await _payer(client, db, org, treasurer, member, "3000")
    assert by_default.status_code == 201, by_default.text
    named = await _payer(client, db, org, treasurer, member, "2000", tresorerieId=antenne["id"])
    assert named.status_code == 201, named.text
    assert named.json()["tresorerieId"] == antenne["id"] and by_default.json()["tresorerieId"] == siege["id"]
    wrong = await _payer(client, db, org, treasurer, member, "1000", tresorerieId=banque["id"])
    assert wrong.status_code == 400 and "CAISSE" in wrong.json()["detail"]

    assert (await lignes_de_piece(db, org, by_default.json()["numeroRecu"]))[0] == ("5711", Decimal("3000"),
                                                                                     Decimal("0"))
    assert (await lignes_de_piece(db, org, named.json()["numeroRecu"]))[0] == ("5712", Decimal("2000"), Decimal("0"))
    rows = {p.numero_recu: p.tresorerie_id for p in (await db.execute(select(Paiement).where(
        Paiement.organisation_id == org.id))).scalars()}
    assert {str(v) for v in rows.values()} == {siege["id"], antenne["id"]}
    assert await solde(db, org, "571") == 0
    listed = {t["numeroCompte"]: t["solde"] for t in (await client.get(
        "/api/tresoreries", headers=treasurer.headers, params={"organisationId": str(org.id)})).json()}
    assert listed == {"5711": "3000.00", "5712": "2000.00", "5211": "0.00"}


async def test_remboursement_jamais_sous_zero_pour_une_caisse(client, factory, db):
    org, treasurer, president, member = await org_avec_encaissement(client, factory, db, montant=None)
    caisse = (await client.post("/api/tresoreries", headers=treasurer.headers,
                                json=declarer(org, "CAISSE", "Caisse", "571"))).json()
    banque = (await client.post("/api/tresoreries", headers=treasurer.headers,
                                json=declarer(org, "BANQUE", "Banque", "521"))).json()
    paid = await encaisser(client, db, org, treasurer, member, "10000", "ESPECES")
    moved = await client.post("/api/tresoreries/virements-internes", headers=treasurer.headers, json={
        "organisationId": str(org.id), "sourceId": caisse["id"], "destinationId": banque["id"], "montant": "8000",
        "libelle": "Dépôt à la banque"})
    assert moved.status_code == 201, moved.text
    asked = await client.post(f"/api/paiements/{paid['id']}/rembourser", headers=treasurer.headers,
                              json={"motif": "Cotisation payée deux fois"})
    assert asked.status_code == 202, asked.text
    approve = f"/api/annulations/{asked.json()['id']}/approuver"
    refused = await client.post(approve, headers=president.headers, json={})
    assert refused.status_code == 400 and "solde de 2 000 FCFA" in refused.json()["detail"]
    assert await solde(db, org, "571") == Decimal("2000")
    back = await client.post("/api/tresoreries/virements-internes", headers=treasurer.headers, json={
        "organisationId": str(org.id), "sourceId": banque["id"], "destinationId": caisse["id"], "montant": "8000",
        "libelle": "Retrait pour rembourser"})
    assert back.status_code == 201
    done = await client.post(approve, headers=president.headers, json={})  # the request stayed pending
    assert done.status_code == 200, done.text
    assert await solde(db, org, "571") == 0
