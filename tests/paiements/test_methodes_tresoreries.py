"""Issue 28 — chaque méthode dans sa trésorerie: a direct Wave transfer (WAVE_TRANSFERT) is recorded and declared as
what it is, without a checkout and without Wave configured; every method is booked to its treasury type; the
treasurer confirming a declaration may correct its method and treasury (audited, printed on the receipt)."""

from __future__ import annotations

import uuid
from decimal import Decimal

from sqlalchemy import func, select

from tests.factories.cotisations import adhesion, cotisation
from tests.factories.tresoreries import declarer, org_avec_encaissement
from tests.livres import lignes_de_piece, solde
from tests.pdf import pdf_text
from unionflow.models import AuditLog, Paiement, WaveCheckout

TRANSACTION = "T_4FJX2K7QZP1M"


async def _payer(client, db, org, treasurer, member, montant, methode, **extra):
    dues = await cotisation(db, member.membre, org, montant)
    return await client.post("/api/paiements", headers=treasurer.headers, json={
        "membreId": str(member.membre.id), "organisationId": str(org.id), "montant": montant, "methode": methode,
        "cibles": [{"cotisationId": str(dues.id)}], **extra})


async def _checkouts(db) -> int:
    return (await db.execute(select(func.count()).select_from(WaveCheckout))).scalar_one()


async def _declarer(client, db, org, member, montant, methode, reference=None):
    dues = await cotisation(db, member.membre, org, montant)
    body = {"montant": montant, "methodePaiement": methode, **({"referencePaiement": reference} if reference else {})}
    return dues, await client.put(f"/api/cotisations/{dues.id}/payer", headers=member.headers, json=body)


async def test_transfert_wave_au_guichet_dans_la_tresorerie_wave_sans_session(client, factory, db):
    # No Wave configured in this application: a checkout would answer 503.
    org, treasurer, _, member = await org_avec_encaissement(client, factory, db, montant=None)
    sans = await _payer(client, db, org, treasurer, member, "2000", "WAVE_TRANSFERT")
    assert sans.status_code == 400 and "identifiant de transaction Wave" in sans.json()["detail"]
    faux = await _payer(client, db, org, treasurer, member, "2000", "WAVE_TRANSFERT", referenceExterne="12345")
    assert faux.status_code == 400 and "12345" in faux.json()["detail"]
    paid = await _payer(client, db, org, treasurer, member, "2000", "WAVE_TRANSFERT", referenceExterne=TRANSACTION)
    assert paid.status_code == 201, paid.text
    assert paid.json()["methode"] == "WAVE_TRANSFERT" and paid.json()["referenceExterne"] == TRANSACTION
    assert (await lignes_de_piece(db, org, paid.json()["numeroRecu"]))[0] == ("5521", Decimal("2000"), Decimal("0"))
    assert await solde(db, org, "571") == 0 and await _checkouts(db) == 0

    # The dues' own route, at the counter: the same booking; a declared Wave treasury is the one debited.
    wave = (await client.post("/api/tresoreries", headers=treasurer.headers,
                              json=declarer(org, "WAVE", "Wave du bureau", "52151"))).json()
    dues = await cotisation(db, member.membre, org, 1500)
    counter = await client.put(f"/api/cotisations/{dues.id}/payer", headers=treasurer.headers, json={
        "montant": "1500", "methodePaiement": "WAVE_TRANSFERT", "referencePaiement": "TCN4Y4ZC3FM"})
    assert counter.status_code == 200, counter.text
    recu = counter.json()["recu"]
    assert recu["methode"] == "WAVE_TRANSFERT"
    assert (await lignes_de_piece(db, org, recu["numeroRecu"]))[0] == ("52151", Decimal("1500"), Decimal("0"))
    assert str((await db.get(Paiement, uuid.UUID(recu["paiementId"]))).tresorerie_id) == wave["id"]
    assert await _checkouts(db) == 0


async def test_chaque_methode_dans_le_compte_de_son_type(client, factory, db):
    org, treasurer, _, member = await org_avec_encaissement(client, factory, db, montant=None)
    attendu = {"ESPECES": "571", "AUTRE": "571", "VIREMENT": "521", "CHEQUE": "521", "WAVE_TRANSFERT": "5521",
               "ORANGE_MONEY": "5522", "FREE_MONEY": "5523"}
    for methode, compte in attendu.items():
        paid = await _payer(client, db, org, treasurer, member, "1000", methode, referenceExterne=TRANSACTION)
        assert paid.status_code == 201, (methode, paid.text)
        assert (await lignes_de_piece(db, org, paid.json()["numeroRecu"]))[0][0] == compte, methode
    # A treasury of another type is refused for the method.
    orange = (await client.post("/api/tresoreries", headers=treasurer.headers,
                                json=declarer(org, "ORANGE_MONEY", "Orange Money", "52161"))).json()
    wrong = await _payer(client, db, org, treasurer, member, "1000", "FREE_MONEY", referenceExterne="FM-1",
                         tresorerieId=orange["id"])
    assert wrong.status_code == 400 and "FREE_MONEY" in wrong.json()["detail"]


async def test_le_mobile_money_sur_552_sauf_la_ou_5215_est_deja_ouvert(client, factory, db):
    """SYSCOHADA révisé and SYCEBNL put electronic money under 552; UnionFlow first opened it at 5215–5217, their
    « banques en devises »: an organisation whose chart holds one keeps it, for the other wallets the chart's number
    (docs/decisions.md, « Mobile money on 552 »)."""
    org, treasurer, _, member = await org_avec_encaissement(client, factory, db, montant=None)
    ouvert = await client.post("/api/comptabilite/comptes", headers=treasurer.headers, json={
        "organisationId": str(org.id), "numeroCompte": "5215", "libelle": "Wave"})
    assert ouvert.status_code == 200, ouvert.text
    wave = await _payer(client, db, org, treasurer, member, "2000", "WAVE_TRANSFERT", referenceExterne=TRANSACTION)
    orange = await _payer(client, db, org, treasurer, member, "1000", "ORANGE_MONEY", referenceExterne=TRANSACTION)
    assert wave.status_code == 201 and orange.status_code == 201, (wave.text, orange.text)
    assert (await lignes_de_piece(db, org, wave.json()["numeroRecu"]))[0][0] == "5215"
    assert (await lignes_de_piece(db, org, orange.json()["numeroRecu"]))[0][0] == "5522"
    assert await solde(db, org, "5215") == Decimal("2000") and await solde(db, org, "5521") == 0

    # A wallet may be declared under 552, not a bank.
    declaree = await client.post("/api/tresoreries", headers=treasurer.headers,
                                 json=declarer(org, "FREE_MONEY", "Free Money du bureau", "5524"))
    assert declaree.status_code == 201, declaree.text
    banque = await client.post("/api/tresoreries", headers=treasurer.headers,
                               json=declarer(org, "BANQUE", "Banque", "5525"))
    assert banque.status_code == 400 and "52…" in banque.json()["detail"], banque.text


async def test_transfert_wave_declare_par_le_membre_sans_session_wave(client, factory, db):
    org, treasurer, _, member = await org_avec_encaissement(client, factory, db, montant=None)
    _, sans = await _declarer(client, db, org, member, "2000", "WAVE_TRANSFERT")
    assert sans.status_code == 400 and "referencePaiement" in sans.json()["detail"]
    _, declared = await _declarer(client, db, org, member, "2000", "WAVE_TRANSFERT", "t_4fjx2k7qzp1m")
    assert declared.status_code == 200, declared.text
    declaration = declared.json()["declaration"]
    assert declaration["methode"] == "WAVE_TRANSFERT" and declaration["waveLaunchUrl"] is None
    assert await _checkouts(db) == 0
    confirmed = await client.post(f"/api/paiements/{declaration['paiementId']}/confirmer", headers=treasurer.headers,
                                  json={})
    assert confirmed.status_code == 200, confirmed.text
    body = confirmed.json()
    # The transaction id the member typed is kept, as typed; no correction was made.
    assert body["referenceExterne"] == "t_4fjx2k7qzp1m" and body["methodeDeclaree"] is None
    assert (await lignes_de_piece(db, org, body["numeroRecu"]))[0] == ("5521", Decimal("2000"), Decimal("0"))

    # The adhesion fee's route holds the same rule.
    fee = await adhesion(db, member.membre, org, 3000)
    refused = await client.post(f"/api/adhesions/{fee.id}/paiement", headers=member.headers,
                                params={"montantPaye": "3000", "methodePaiement": "WAVE_TRANSFERT"})
    assert refused.status_code == 400 and "transfert Wave" in refused.json()["detail"]


async def test_la_tresorerie_corrige_methode_et_tresorerie_a_la_confirmation(client, factory, db):
    # The story: a member's Wave transfer declared « Autre » would have been booked to the cash box.
    org, treasurer, _, member = await org_avec_encaissement(client, factory, db, montant=None)
    await client.post("/api/tresoreries", headers=treasurer.headers,
                      json=declarer(org, "CAISSE", "Caisse", "5711", parDefaut=True))
    wave = (await client.post("/api/tresoreries", headers=treasurer.headers,
                              json=declarer(org, "WAVE", "Wave du bureau", "52151"))).json()
    _, declared = await _declarer(client, db, org, member, "2000", "AUTRE")
    paiement_id = declared.json()["declaration"]["paiementId"]
    url = f"/api/paiements/{paiement_id}/confirmer"
    sans = await client.post(url, headers=treasurer.headers, json={"methode": "WAVE_TRANSFERT"})
    assert sans.status_code == 400 and "transfert Wave" in sans.json()["detail"]

    confirmed = await client.post(url, headers=treasurer.headers, json={
        "methode": "WAVE_TRANSFERT", "tresorerieId": wave["id"], "referenceExterne": TRANSACTION})
    assert confirmed.status_code == 200, confirmed.text
    body = confirmed.json()
    assert (body["methode"], body["methodeDeclaree"], body["tresorerieId"]) == ("WAVE_TRANSFERT", "AUTRE", wave["id"])
    assert (await lignes_de_piece(db, org, body["numeroRecu"]))[0] == ("52151", Decimal("2000"), Decimal("0"))
    assert await solde(db, org, "5711") == 0 and await solde(db, org, "571") == 0

    corrections = (await db.execute(select(AuditLog).where(AuditLog.entite_id == paiement_id,
                                                           AuditLog.type_action == "CORRIGER"))).scalars().all()
    assert len(corrections) == 1
    assert corrections[0].details["avant"]["methode"] == "AUTRE"
    assert corrections[0].details["apres"] == {"methode": "WAVE_TRANSFERT", "tresorerieId": wave["id"]}
    texte = pdf_text((await client.get(f"/api/paiements/{paiement_id}/recu", headers=member.headers)).content)
    assert "Mode de paiement : Transfert Wave" in texte and TRANSACTION in texte
    assert "déclaré : Autre moyen de paiement" in texte and "Wave du bureau (52151)" in texte


async def test_correction_vers_une_tresorerie_etrangere_ou_d_un_autre_type_refusee(client, factory, db):
    org, treasurer, _, member = await org_avec_encaissement(client, factory, db, montant=None)
    caisse = (await client.post("/api/tresoreries", headers=treasurer.headers,
                                json=declarer(org, "CAISSE", "Caisse", "5711"))).json()
    other, other_treasurer, _, _ = await org_avec_encaissement(client, factory, db, montant=None)
    ailleurs = (await client.post("/api/tresoreries", headers=other_treasurer.headers,
                                  json=declarer(other, "WAVE", "Wave d'ailleurs", "52151"))).json()
    _, declared = await _declarer(client, db, org, member, "2000", "AUTRE")
    paiement_id = declared.json()["declaration"]["paiementId"]
    url = f"/api/paiements/{paiement_id}/confirmer"
    correction = {"methode": "WAVE_TRANSFERT", "referenceExterne": TRANSACTION}
    wrong_type = await client.post(url, headers=treasurer.headers, json={**correction, "tresorerieId": caisse["id"]})
    assert wrong_type.status_code == 400 and "WAVE" in wrong_type.json()["detail"]
    foreign = await client.post(url, headers=treasurer.headers, json={**correction, "tresorerieId": ailleurs["id"]})
    assert foreign.status_code == 404
    checkout = await client.post(url, headers=treasurer.headers, json={"methode": "WAVE"})
    assert checkout.status_code == 400 and "WAVE_TRANSFERT" in checkout.json()["detail"]
    paiement = await db.get(Paiement, uuid.UUID(paiement_id))
    await db.refresh(paiement)
    assert (paiement.statut, paiement.methode, paiement.methode_declaree) == ("EN_ATTENTE", "AUTRE", None)
    # The treasury alone may be corrected (same method): said on the payment all the same.
    caisse2 = (await client.post("/api/tresoreries", headers=treasurer.headers,
                                 json=declarer(org, "CAISSE", "Caisse de l'antenne", "5712"))).json()
    done = await client.post(url, headers=treasurer.headers, json={"tresorerieId": caisse2["id"]})
    assert done.status_code == 200, done.text
    assert (done.json()["methode"], done.json()["methodeDeclaree"]) == ("AUTRE", "AUTRE")
    assert await solde(db, org, "5712") == Decimal("2000") and await solde(db, org, "5711") == 0
