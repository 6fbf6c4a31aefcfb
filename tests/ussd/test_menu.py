"""Every path of the USSD menu through the real app: figures equal to the member's API, screens ≤ 182 GSM-7."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

from sqlalchemy import select

from tests.factories.cotisations import adhesion, cotisation
from tests.factories.evenements import create_event
from tests.ussd.passerelle import ussd
from unionflow.models import Paiement
from unionflow.ussd import ecrans
from unionflow.ussd.ecrans import francs, jour

PIN = "2580"


async def _membre(client, factory, db, org, telephone, **values):
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    member.membre.telephone = telephone
    for key, value in values.items():
        setattr(member.membre, key, value)
    await db.flush()
    response = await client.put("/api/ussd/pin/me", headers=member.headers, json={"pin": PIN})
    assert response.status_code == 200, response.text
    assert response.json()["defini"] is True and "pin" not in response.json()
    return member


async def test_every_path_agrees_with_the_api(client, factory, db):
    org = await factory.organisation(nom="Mutuelle des pêcheurs de Joal-Fadiouth — Œuvre sociale")
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    bureau = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    phone = "+221770000101"
    member = await _membre(client, factory, db, org, phone, prenom="Fançoise", nom="Ndiaye")
    late = await cotisation(db, member.membre, org, 2000, echeance=date.today() - timedelta(days=10))
    await cotisation(db, member.membre, org, 3000, echeance=date.today() + timedelta(days=20))
    await adhesion(db, member.membre, org, 1500)
    paid = await client.post("/api/paiements", headers=treasurer.headers, json={
        "membreId": str(member.membre.id), "organisationId": str(org.id), "montant": "2000", "methode": "ESPECES",
        "cibles": [{"cotisationId": str(late.id)}]})
    assert paid.status_code == 201, paid.text
    numero = paid.json()["numeroRecu"]
    cle = (await db.execute(select(Paiement.cle_verification).where(Paiement.numero_recu == numero))).scalar_one()
    aid = await client.post("/api/demandes-aide", headers=member.headers, json={
        "organisationId": str(org.id), "type": "DECES", "titre": "Décès de mon père à Kaolack",
        "description": "Frais d'obsèques", "montantDemande": "150000"})
    assert aid.status_code == 200, aid.text
    event = await create_event(client, bureau.headers, org.id, titre="Assemblée générale: bilan ç ê â î ô û",
                               visibilite="MEMBRES", days=5)

    assert await ussd(client, phone, "") == ecrans.DEMANDE_PIN
    assert await ussd(client, phone, PIN) == ecrans.MENU

    account = (await client.get("/api/compte-adherent/me", headers=member.headers,
                                params={"organisationId": str(org.id)})).json()
    owed = Decimal(account["cotisations"]["montantRestant"]) + Decimal(account["fraisAdhesionRestants"])
    assert owed == Decimal("4500.00")  # 3000 upcoming dues + 1500 fee; the late dues is paid
    balance = await ussd(client, phone, f"{PIN}*1")
    assert balance.startswith("END ")
    assert f"Vous devez: {francs(owed)}" in balance
    assert f"Credit: {francs(Decimal(account['credit']))}" in balance
    assert f"Solde: {francs(Decimal(account['solde']))}" in balance
    assert f"Prochaine echeance: {jour(date.fromisoformat(account['cotisations']['prochaineEcheance']))}" in balance
    assert "Mutuelle des pecheurs de Joal-Fadiouth" not in balance or "Oeuvre" in balance  # transliterated

    assert f"A payer: {francs(owed)}" in await ussd(client, phone, f"{PIN}*2")

    receipts = await ussd(client, phone, f"{PIN}*3")
    assert [p["numeroRecu"] for p in account["derniersPaiements"]] == [numero] and numero in receipts
    assert francs(Decimal(account["derniersPaiements"][0]["montant"])) in receipts

    assert await ussd(client, phone, f"{PIN}*4") == ecrans.NUMERO_RECU
    assert await ussd(client, phone, f"{PIN}*4*{numero}") == ecrans.CLE_RECU
    verified = await ussd(client, phone, f"{PIN}*4*{numero}*{cle}")
    api = (await client.get(f"/api/recus/verifier/{numero}", params={"cle": cle})).json()
    assert api["valide"] is True and "authentique: VALIDE" in verified
    assert francs(Decimal(api["montant"])) in verified and numero in verified
    assert await ussd(client, phone, f"{PIN}*4*{numero}*mauvaise-cle") == ecrans.RECU_INTROUVABLE
    assert (await client.get(f"/api/recus/verifier/{numero}", params={"cle": "mauvaise-cle"})).status_code == 404

    status = await ussd(client, phone, f"{PIN}*5")
    assert aid.json()["numeroReference"] in status and "en cours d'examen" in status
    assert francs(Decimal("150000")) in status

    next_event = await ussd(client, phone, f"{PIN}*6")
    assert "Assemblée générale: bilan c e a i o u" in next_event, next_event  # é is GSM-7, ç ê â î ô û not
    assert jour(date.fromisoformat(event["dateDebut"][:10])) in next_event

    assert await ussd(client, phone, f"{PIN}*9") == ecrans.CHOIX_INVALIDE


async def test_empty_screens(client, factory, db):
    org = await factory.organisation()
    phone = "+221770000102"
    await _membre(client, factory, db, org, phone)
    assert "Vous devez: 0 F" in await ussd(client, phone, f"{PIN}*1")
    assert "Aucune echeance a venir" in await ussd(client, phone, f"{PIN}*1")
    assert await ussd(client, phone, f"{PIN}*2") == ecrans.end("Vous etes a jour: rien a payer.")
    assert await ussd(client, phone, f"{PIN}*3") == ecrans.SANS_RECU
    assert await ussd(client, phone, f"{PIN}*5") == ecrans.SANS_DEMANDE
    assert await ussd(client, phone, f"{PIN}*6") == ecrans.SANS_EVENEMENT


async def test_several_members_or_memberships_choose_first(client, factory, db):
    org_a = await factory.organisation(nom="Tontine Alpha")
    org_b = await factory.organisation(nom="Dahira Beta")
    phone = "+221770000103"
    parent = await _membre(client, factory, db, org_a, phone, prenom="Mamadou", nom="Sow")
    db.add_all([])  # second membership of the same person
    from unionflow.models import MembreOrganisation
    db.add(MembreOrganisation(membre_id=parent.membre.id, organisation_id=org_b.id, roles=["MEMBRE"],
                              date_debut=date.today()))
    child = await _membre(client, factory, db, org_a, phone, prenom="Aminata", nom="Sow")
    await cotisation(db, parent.membre, org_b, 7000, echeance=date.today() + timedelta(days=3))
    await db.flush()

    first = await ussd(client, phone, "")
    # Sorted by first name, then organisation: Aminata/Alpha, Mamadou/Beta, Mamadou/Alpha.
    assert first == ecrans.con("Pour qui?\n1 Aminata Sow - Tontine Alpha\n2 Mamadou Sow - Dahira Beta\n"
                               "3 Mamadou Sow - Tontine Alpha")
    assert await ussd(client, phone, "2") == ecrans.DEMANDE_PIN
    assert "Vous devez: 7 000 F" in await ussd(client, phone, f"2*{PIN}*1")
    assert "Vous devez: 0 F" in await ussd(client, phone, f"3*{PIN}*1")
    assert "Vous devez: 0 F" in await ussd(client, phone, f"1*{PIN}*1")
    for wrong in ("0", "4", "x"):
        assert await ussd(client, phone, wrong) == ecrans.CHOIX_INVALIDE
    assert child.membre.id != parent.membre.id
