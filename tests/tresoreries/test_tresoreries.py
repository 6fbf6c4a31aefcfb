"""Treasuries (issue 20, item 3): declared with their class-5 account, payouts leave from the one they name, a
cash box never goes below zero (a bank only within its overdraft), internal transfers go through 585, payouts
choose their counterpart account (class 2 or 6)."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy import select

from tests.factories.finance import seuils
from tests.factories.paiements import encaisser
from tests.factories.tresoreries import declarer, org_avec_encaissement, versement
from tests.livres import lignes_de_piece, solde
from unionflow.models import AuditLog, CompteComptable, Versement


async def test_declarer_lister_modifier(client, factory, db):
    org, treasurer, president, member = await org_avec_encaissement(client, factory, db, montant=None)
    created = await client.post("/api/tresoreries", headers=treasurer.headers,
                                json=declarer(org, "CAISSE", "Caisse du siège", "5711", parDefaut=True))
    assert created.status_code == 201, created.text
    body = created.json()
    assert body["solde"] == "0.00" and body["parDefaut"] and body["decouvertAutorise"] is None
    compte = (await db.execute(select(CompteComptable).where(
        CompteComptable.organisation_id == org.id, CompteComptable.numero_compte == "5711"))).scalar_one()
    assert compte.classe == 5 and compte.actif

    bad = await client.post("/api/tresoreries", headers=treasurer.headers,
                            json=declarer(org, "BANQUE", "Banque", "5711"))
    assert bad.status_code == 400 and "ne convient pas" in bad.json()["detail"]
    mobile = await client.post("/api/tresoreries", headers=treasurer.headers,
                               json=declarer(org, "BANQUE", "Banque", "5215"))
    assert mobile.status_code == 400
    twice = await client.post("/api/tresoreries", headers=treasurer.headers,
                              json=declarer(org, "CAISSE", "Autre caisse", "5711"))
    assert twice.status_code == 409
    overdraft = await client.post("/api/tresoreries", headers=treasurer.headers,
                                  json=declarer(org, "CAISSE", "Caisse 2", "5712", decouvertAutorise="1000"))
    assert overdraft.status_code == 400 and "banque" in overdraft.json()["detail"]
    forbidden = await client.post("/api/tresoreries", headers=member.headers,
                                  json=declarer(org, "CAISSE", "Caisse 2", "5712"))
    assert forbidden.status_code == 403
    other = await factory.organisation()
    foreign = await factory.actor(["USER"], organisation=other, org_roles=["MEMBRE", "TRESORIER"])
    hidden = await client.post("/api/tresoreries", headers=foreign.headers,
                               json=declarer(org, "CAISSE", "Caisse 2", "5712"))
    assert hidden.status_code == 404
    assert (await client.get(f"/api/tresoreries/{body['id']}", headers=foreign.headers)).status_code == 404

    bank = await client.post("/api/tresoreries", headers=treasurer.headers,
                             json=declarer(org, "BANQUE", "CBAO", "5211", decouvertAutorise="50000"))
    assert bank.status_code == 201 and bank.json()["decouvertAutorise"] == "50000.00"
    listed = await client.get("/api/tresoreries", headers=president.headers, params={"organisationId": str(org.id)})
    assert [t["numeroCompte"] for t in listed.json()] == ["5211", "5711"]

    second = await client.post("/api/tresoreries", headers=treasurer.headers,
                               json=declarer(org, "CAISSE", "Petite caisse", "5712", parDefaut=True))
    assert second.status_code == 201
    first = await client.get(f"/api/tresoreries/{body['id']}", headers=treasurer.headers)
    assert first.json()["parDefaut"] is False  # one default per type
    renamed = await client.put(f"/api/tresoreries/{body['id']}", headers=treasurer.headers,
                               json={"nom": "Caisse centrale", "actif": False})
    assert renamed.status_code == 200 and renamed.json()["nom"] == "Caisse centrale" and not renamed.json()["actif"]
    actions = set((await db.execute(select(AuditLog.type_action).where(
        AuditLog.entite_id == body["id"]))).scalars())
    assert {"CREER", "MODIFIER"} <= actions


async def test_versement_depuis_la_caisse_jamais_sous_zero(client, factory, db):
    org, treasurer, president, _ = await org_avec_encaissement(client, factory, db, "20000")
    caisse = (await client.post("/api/tresoreries", headers=treasurer.headers,
                                json=declarer(org, "CAISSE", "Caisse", "571"))).json()
    assert caisse["solde"] == "20000.00"  # the cash collected before the declaration
    first = await client.post("/api/versements", headers=treasurer.headers,
                              json=versement(org, "15000", tresorerieId=caisse["id"]))
    assert first.status_code == 201 and first.json()["tresorerieId"] == caisse["id"]
    done = await client.post(f"/api/versements/{first.json()['id']}/confirmer", headers=president.headers,
                             json={"referenceExterne": "BON-1"})
    assert done.status_code == 200, done.text
    assert await lignes_de_piece(db, org, first.json()["numero"]) == [
        ("6588", Decimal("15000"), Decimal("0")), ("571", Decimal("0"), Decimal("15000"))]

    second = await client.post("/api/versements", headers=treasurer.headers,
                               json=versement(org, "8000", tresorerieId=caisse["id"]))
    refused = await client.post(f"/api/versements/{second.json()['id']}/confirmer", headers=president.headers,
                                json={"referenceExterne": "BON-2"})
    assert refused.status_code == 400
    assert "solde de 5 000 FCFA" in refused.json()["detail"] and "8 000 FCFA" in refused.json()["detail"]
    row = (await db.execute(select(Versement).where(Versement.numero == second.json()["numero"])
                            .execution_options(populate_existing=True))).scalar_one()
    assert row.statut == "EN_COURS" and await solde(db, org, "571") == Decimal("5000")


async def test_banque_dans_la_limite_du_decouvert_et_wave_depuis_wave(client, factory, db):
    org, treasurer, president, _ = await org_avec_encaissement(client, factory, db, "20000")
    bank = (await client.post("/api/tresoreries", headers=treasurer.headers,
                              json=declarer(org, "BANQUE", "CBAO", "5211", decouvertAutorise="10000"))).json()
    ok = await client.post("/api/versements", headers=treasurer.headers,
                           json=versement(org, "9000", tresorerieId=bank["id"]))
    assert (await client.post(f"/api/versements/{ok.json()['id']}/confirmer", headers=president.headers,
                              json={"referenceExterne": "CHQ-1"})).status_code == 200
    over = await client.post("/api/versements", headers=treasurer.headers,
                             json=versement(org, "2000", tresorerieId=bank["id"]))
    refused = await client.post(f"/api/versements/{over.json()['id']}/confirmer", headers=president.headers,
                                json={"referenceExterne": "CHQ-2"})
    assert refused.status_code == 400 and "découvert autorisé 10 000 FCFA" in refused.json()["detail"]
    wave_from_bank = await client.post("/api/versements", headers=treasurer.headers, json=versement(
        org, "1000", mode="WAVE", beneficiaireTelephone="+221770000001", tresorerieId=bank["id"]))
    assert wave_from_bank.status_code == 400 and "trésorerie Wave" in wave_from_bank.json()["detail"]


async def test_versement_sans_tresorerie_cree_la_banque_par_defaut(client, factory, db):
    org, treasurer, _president, _ = await org_avec_encaissement(client, factory, db, "20000", methode="VIREMENT")
    created = await client.post("/api/versements", headers=treasurer.headers, json=versement(org, "5000"))
    assert created.status_code == 201, created.text
    listed = (await client.get("/api/tresoreries", headers=treasurer.headers,
                               params={"organisationId": str(org.id)})).json()
    assert [(t["type"], t["numeroCompte"], t["parDefaut"]) for t in listed] == [("BANQUE", "521", True)]
    assert created.json()["tresorerieId"] == listed[0]["id"] and listed[0]["solde"] == "20000.00"


async def test_compte_de_contrepartie_classe_2_ou_6(client, factory, db):
    org, treasurer, president, _ = await org_avec_encaissement(client, factory, db, "200000", methode="VIREMENT")
    await seuils(client, factory, versement="100000")
    chef = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    made = await client.post("/api/comptabilite/comptes", headers=treasurer.headers, json={
        "organisationId": str(org.id), "numeroCompte": "2313", "libelle": "Bâtiments, travaux"})
    assert made.status_code in (200, 201), made.text
    created = await client.post("/api/versements", headers=treasurer.headers,
                                json=versement(org, "120000", compteCharge="2313", motif="Travaux du local"))
    assert created.status_code == 201 and created.json()["compteCharge"] == "2313"
    # The approver sees where the money is booked.
    [approbation] = (await client.get("/api/finance/approbations", headers=chef.headers, params={
        "typeObjet": "VERSEMENT", "objetId": created.json()["id"]})).json()["content"]
    assert "imputation au compte 2313" in approbation["motif"]
    decided = await client.post(f"/api/finance/approbations/{approbation['id']}/approuver", headers=chef.headers)
    assert decided.status_code == 200, decided.text
    assert (await client.post(f"/api/versements/{created.json()['id']}/confirmer", headers=president.headers,
                              json={"referenceExterne": "VIR-OUT-1"})).status_code == 200
    assert await lignes_de_piece(db, org, created.json()["numero"]) == [
        ("2313", Decimal("120000"), Decimal("0")), ("521", Decimal("0"), Decimal("120000"))]
    for numero, reason in (("6058", "n'existe pas"), ("7061", None), ("4191", None)):
        refused = await client.post("/api/versements", headers=treasurer.headers,
                                    json=versement(org, "1000", compteCharge=numero))
        assert refused.status_code == 400, numero
        if reason:
            assert reason in refused.json()["detail"]


async def test_virement_interne_par_585(client, factory, db):
    org, treasurer, _president, member = await org_avec_encaissement(client, factory, db, "20000")
    caisse = (await client.post("/api/tresoreries", headers=treasurer.headers,
                                json=declarer(org, "CAISSE", "Caisse", "571"))).json()
    banque = (await client.post("/api/tresoreries", headers=treasurer.headers,
                                json=declarer(org, "BANQUE", "Banque", "521"))).json()
    body = {"organisationId": str(org.id), "sourceId": caisse["id"], "destinationId": banque["id"],
            "montant": "15000", "libelle": "Dépôt de la caisse à la banque"}
    headers = {**treasurer.headers, "Idempotency-Key": "depot-1"}
    done = await client.post("/api/tresoreries/virements-internes", headers=headers, json=body)
    assert done.status_code == 201, done.text
    out = done.json()
    assert out["soldeSource"] == "5000.00" and out["soldeDestination"] == "15000.00"
    again = await client.post("/api/tresoreries/virements-internes", headers=headers, json=body)
    assert again.status_code == 201 and again.json()["numero"] == out["numero"]
    assert await lignes_de_piece(db, org, out["numero"]) == [
        ("585", Decimal("15000"), Decimal("0")), ("571", Decimal("0"), Decimal("15000")),
        ("521", Decimal("15000"), Decimal("0")), ("585", Decimal("0"), Decimal("15000"))]
    assert await solde(db, org, "585") == 0 and await solde(db, org, "571") == Decimal("5000")

    too_much = await client.post("/api/tresoreries/virements-internes", headers=treasurer.headers,
                                 json={**body, "montant": "6000"})
    assert too_much.status_code == 400 and "solde de 5 000 FCFA" in too_much.json()["detail"]
    same = await client.post("/api/tresoreries/virements-internes", headers=treasurer.headers,
                             json={**body, "destinationId": caisse["id"]})
    assert same.status_code == 400
    future = await client.post("/api/tresoreries/virements-internes", headers=treasurer.headers,
                               json={**body, "montant": "100", "dateOperation": "2999-01-01"})
    assert future.status_code == 400 and "futur" in future.json()["detail"]
    forbidden = await client.post("/api/tresoreries/virements-internes", headers=member.headers, json=body)
    assert forbidden.status_code == 403
    audit = (await db.execute(select(AuditLog).where(AuditLog.type_action == "VIRER",
                                                     AuditLog.organisation_id == org.id))).scalars().all()
    assert len(audit) == 1 and out["numero"] in (audit[0].description or "")
    # Cash received after the transfer is available again.
    await encaisser(client, db, org, treasurer, member, "3000", "ESPECES")
    assert (await client.get(f"/api/tresoreries/{caisse['id']}", headers=treasurer.headers)).json()["solde"] == \
        "8000.00"


async def test_a_union_administrator_gets_404_for_an_organisation_that_does_not_exist(client, factory):
    """Found by the fuzz: a union-wide role sees every organisation, and a treasury or opening balances for one that
    does not exist failed its insert (500); it is a 404."""
    import uuid

    admin = await factory.actor(["ADMIN"], with_membre=False)
    missing = str(uuid.uuid4())
    treasury = await client.post("/api/tresoreries", headers=admin.headers, json={
        "organisationId": missing, "type": "WAVE", "nom": "Wave", "numeroCompte": "5215"})
    assert treasury.status_code == 404, treasury.text
    opening = await client.post("/api/tresoreries/a-nouveaux", headers=admin.headers, json={
        "organisationId": missing, "dateDebut": "2026-01-01", "comptes": [{"numeroCompte": "5211", "montant": "1"}]})
    assert opening.status_code == 404, opening.text
