"""Income accounts per kind of income (issue 20, item 5): periodic dues to 7061, an exceptional contribution to its
own account, an organisation's choice followed by the next payment, separate lines in the compte de résultat."""

from __future__ import annotations

import uuid
from decimal import Decimal

from sqlalchemy import select

from tests.factories.comptabilite import compte
from tests.factories.cotisations import adhesion, cotisation
from unionflow.comptabilite.produits.comptes import COMPTE_PRODUIT_DEFAUT, compte_produit
from unionflow.models import AuditLog, CompteComptable, EcritureComptable, LigneEcriture, Organisation
from unionflow.models.recette import NatureRecette


async def _org(factory):
    org = await factory.organisation()
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    membre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    return org, tresorier, membre


async def _payer(client, tresorier, org, membre, montant, cibles):
    response = await client.post("/api/paiements", headers=tresorier.headers, json={
        "membreId": str(membre.membre.id), "organisationId": str(org.id), "montant": montant, "methode": "ESPECES",
        "cibles": cibles})
    assert response.status_code == 201, response.text
    return response.json()


async def credits(db, numero_recu) -> dict[str, Decimal]:
    """Credit lines of the payment's entry: account number → amount."""
    rows = (await db.execute(
        select(CompteComptable.numero_compte, LigneEcriture.credit, LigneEcriture.libelle)
        .join(LigneEcriture, LigneEcriture.compte_id == CompteComptable.id)
        .join(EcritureComptable, EcritureComptable.id == LigneEcriture.ecriture_id)
        .where(EcritureComptable.piece_reference == numero_recu, LigneEcriture.credit > 0))).all()
    return {numero: Decimal(credit) for numero, credit, _ in rows}


def test_compte_produit_default_and_choice():
    assert compte_produit({}, NatureRecette.COTISATION_EXCEPTIONNELLE) == "7063"
    assert compte_produit({"DON": "7588"}, "DON") == "7588"
    assert set(COMPTE_PRODUIT_DEFAUT) == set(NatureRecette)


async def test_exceptional_contribution_has_its_own_account_monthly_dues_7061(client, factory, db):
    org, tresorier, membre = await _org(factory)
    mensuelle = await cotisation(db, membre.membre, org, 2500)
    exceptionnelle = await cotisation(db, membre.membre, org, 1200000, type_cotisation="EXCEPTIONNELLE",
                                      libelle="Contribution exceptionnelle travaux")
    solidarite = await cotisation(db, membre.membre, org, 1000, type_cotisation="SOLIDARITE")
    frais = await adhesion(db, membre.membre, org, 5000)
    paid = await _payer(client, tresorier, org, membre, "1208500", [
        {"cotisationId": str(mensuelle.id)}, {"cotisationId": str(exceptionnelle.id)},
        {"cotisationId": str(solidarite.id)}, {"adhesionId": str(frais.id)}])
    assert await credits(db, paid["numeroRecu"]) == {
        "7061": Decimal("2500"), "7063": Decimal("1200000"), "7064": Decimal("1000"), "7062": Decimal("5000")}

    resultat = (await client.get(f"/api/comptabilite/etats/compte-resultat?organisationId={org.id}",
                                 headers=tresorier.headers)).json()
    postes = {p["numeroCompte"]: (p["libelle"], Decimal(p["montant"]))
              for r in resultat["produits"] for p in r["postes"]}
    assert postes == {"7061": ("Cotisations", Decimal("2500")),
                      "7062": ("Droits d'adhésion", Decimal("5000")),
                      "7063": ("Cotisations exceptionnelles", Decimal("1200000")),
                      "7064": ("Cotisations de solidarité", Decimal("1000"))}
    assert Decimal(resultat["totalProduits"]) == Decimal("1208500")


async def test_organisation_remaps_and_next_payment_follows(client, factory, db):
    org, tresorier, membre = await _org(factory)
    url = f"/api/comptabilite/comptes-produits?organisationId={org.id}"
    lu = await client.get(url, headers=tresorier.headers)
    assert lu.status_code == 200, lu.text
    assert {c["nature"]: (c["numeroCompte"], c["parDefaut"]) for c in lu.json()}["COTISATION_EXCEPTIONNELLE"] == (
        "7063", True)
    # Paid once with the default: the cache now holds the organisation's (empty) choices.
    first = await cotisation(db, membre.membre, org, 1000, type_cotisation="EXCEPTIONNELLE")
    paid = await _payer(client, tresorier, org, membre, "1000", [{"cotisationId": str(first.id)}])
    assert await credits(db, paid["numeroRecu"]) == {"7063": Decimal("1000")}

    # Refused: an account that does not exist, one of another class, an inactive one; a plain member.
    for numero, raison in (("7068", "n'existe pas"), ("6588", "")):
        refused = await client.put(url, headers=tresorier.headers, json={"comptes": [
            {"nature": "COTISATION_EXCEPTIONNELLE", "numeroCompte": numero}]})
        assert refused.status_code == 400, refused.text
        assert raison in refused.json()["detail"]
    assert (await client.put(url, headers=membre.headers, json={"comptes": [
        {"nature": "DON", "numeroCompte": None}]})).status_code == 403

    await compte(client, tresorier.headers, org.id, "7068", "Contributions aux travaux du siège")
    changed = await client.put(url, headers=tresorier.headers, json={"comptes": [
        {"nature": "COTISATION_EXCEPTIONNELLE", "numeroCompte": "7068"}]})
    assert changed.status_code == 200, changed.text
    choix = {c["nature"]: c for c in changed.json()}
    exceptionnelle = choix["COTISATION_EXCEPTIONNELLE"]
    assert (exceptionnelle["numeroCompte"], exceptionnelle["parDefaut"], exceptionnelle["libelleCompte"]) == (
        "7068", False, "Contributions aux travaux du siège")
    assert (choix["COTISATION"]["numeroCompte"], choix["COTISATION"]["parDefaut"]) == ("7061", True)
    audit = (await db.execute(select(AuditLog).where(AuditLog.entite_type == "CompteProduit"))).scalars().all()
    assert len(audit) == 1 and audit[0].organisation_id == org.id

    second = await cotisation(db, membre.membre, org, 1200000, type_cotisation="EXCEPTIONNELLE")
    mensuelle = await cotisation(db, membre.membre, org, 2500)
    paid = await _payer(client, tresorier, org, membre, "1202500", [
        {"cotisationId": str(second.id)}, {"cotisationId": str(mensuelle.id)}])
    assert await credits(db, paid["numeroRecu"]) == {"7068": Decimal("1200000"), "7061": Decimal("2500")}

    # Back to the default (null): the payment after follows again.
    reset = await client.put(url, headers=tresorier.headers, json={"comptes": [
        {"nature": "COTISATION_EXCEPTIONNELLE", "numeroCompte": None}]})
    assert {c["nature"]: c["numeroCompte"] for c in reset.json()}["COTISATION_EXCEPTIONNELLE"] == "7063"
    third = await cotisation(db, membre.membre, org, 500, type_cotisation="EXCEPTIONNELLE")
    paid = await _payer(client, tresorier, org, membre, "500", [{"cotisationId": str(third.id)}])
    assert await credits(db, paid["numeroRecu"]) == {"7063": Decimal("500")}


async def test_mapping_is_per_organisation_and_hidden_outside(client, factory, db):
    org, tresorier, _ = await _org(factory)
    other, tresorier_autre, _ = await _org(factory)
    url = f"/api/comptabilite/comptes-produits?organisationId={org.id}"
    assert (await client.get(url, headers=tresorier_autre.headers)).status_code == 404
    assert (await client.put(url, headers=tresorier_autre.headers, json={"comptes": [
        {"nature": "DON", "numeroCompte": None}]})).status_code == 404
    twice = await client.put(url, headers=tresorier.headers, json={"comptes": [
        {"nature": "DON", "numeroCompte": None}, {"nature": "DON", "numeroCompte": None}]})
    assert twice.status_code == 400
    unknown = await client.put(url, headers=tresorier.headers, json={"comptes": [{"nature": "VENTE",
                                                                               "numeroCompte": "7011"}]})
    assert unknown.status_code == 400
    assert uuid.UUID(str(other.id))


async def test_a_chosen_account_cannot_be_deactivated(client, factory, db):
    org, tresorier, _ = await _org(factory)
    cree = await compte(client, tresorier.headers, org.id, "7588", "Dons affectés")
    url = f"/api/comptabilite/comptes-produits?organisationId={org.id}"
    assert (await client.put(url, headers=tresorier.headers, json={"comptes": [
        {"nature": "DON", "numeroCompte": "7588"}]})).status_code == 200
    refused = await client.put(f"/api/comptabilite/comptes/{cree['id']}", headers=tresorier.headers,
                               json={"actif": False})
    assert refused.status_code == 400 and "DON" in refused.json()["detail"], refused.text


async def test_a_chosen_income_account_is_presented_under_its_kind_in_the_sycebnl_statements(client, factory, db):
    """An organisation keeping the SYCEBNL numbering (dues 701) or any number of its own: the account it chose for a
    kind goes under that kind's heading (RA for dues), not under the heading its prefix would give (70: ventes)."""
    org, tresorier, membre = await _org(factory)
    await compte(client, tresorier.headers, org.id, "701", "Cotisations des adhérents")
    await compte(client, tresorier.headers, org.id, "7068", "Contributions aux travaux du siège")
    choisi = await client.put(f"/api/comptabilite/comptes-produits?organisationId={org.id}", headers=tresorier.headers,
                              json={"comptes": [{"nature": "COTISATION", "numeroCompte": "701"},
                                                {"nature": "COTISATION_EXCEPTIONNELLE", "numeroCompte": "7068"}]})
    assert choisi.status_code == 200, choisi.text
    mensuelle = await cotisation(db, membre.membre, org, 2500)
    travaux = await cotisation(db, membre.membre, org, 40000, type_cotisation="EXCEPTIONNELLE")
    paid = await _payer(client, tresorier, org, membre, "42500", [
        {"cotisationId": str(mensuelle.id)}, {"cotisationId": str(travaux.id)}])
    assert await credits(db, paid["numeroRecu"]) == {"701": Decimal("2500"), "7068": Decimal("40000")}

    cr = (await client.get("/api/comptabilite/etats/sycebnl/compte-resultat", headers=tresorier.headers,
                           params={"organisationId": str(org.id), "exercice": mensuelle.annee})).json()
    rubriques = {r["code"]: (r["reference"], {p["numeroCompte"]: Decimal(p["montantN"]) for p in r["postes"]})
                 for r in cr["produits"]}
    assert rubriques == {"COTISATIONS": ("RA", {"701": Decimal("2500"), "7068": Decimal("40000")})}
    flux = (await client.get("/api/comptabilite/etats/sycebnl/flux-tresorerie", headers=tresorier.headers,
                             params={"organisationId": str(org.id), "exercice": mensuelle.annee})).json()
    membres = {p["reference"]: Decimal(p["montantN"]) for s in flux["sections"] for p in s["postes"]}
    assert membres["FA"] == Decimal("42500")


SYCEBNL = {"COTISATION": "7011", "ADHESION": "7012", "COTISATION_EXCEPTIONNELLE": "7013", "SOLIDARITE": "7014",
           "EVENEMENT": "7060", "DON": "7041"}


async def test_a_new_organisation_keeps_its_income_in_the_sycebnl_numbering(client, factory, db):
    """Created through the API, an organisation's chart opens 701x/7041/7060 and each kind is credited there: its
    statements need no heading table of its own (docs/decisions.md, « The SYCEBNL numbering for new
    organisations »)."""
    admin = await factory.actor(["ADMIN"], with_membre=False)
    cree = await client.post("/api/organisations", headers=admin.headers, json={
        "nom": "Association des tisserands de Thiès", "typeOrganisation": "ASSOCIATION"})
    assert cree.status_code == 201, cree.text
    org = await db.get(Organisation, uuid.UUID(cree.json()["id"]))
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    membre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])

    lu = (await client.get(f"/api/comptabilite/comptes-produits?organisationId={org.id}",
                           headers=tresorier.headers)).json()
    assert {c["nature"]: (c["numeroCompte"], c["parDefaut"]) for c in lu} == {
        nature: (numero, False) for nature, numero in SYCEBNL.items()}
    assert {c["nature"]: c["libelleCompte"] for c in lu}["DON"] == "Revenus liés à la générosité : dons"

    mensuelle = await cotisation(db, membre.membre, org, 2500)
    frais = await adhesion(db, membre.membre, org, 5000)
    paid = await _payer(client, tresorier, org, membre, "7500", [
        {"cotisationId": str(mensuelle.id)}, {"adhesionId": str(frais.id)}])
    assert await credits(db, paid["numeroRecu"]) == {"7011": Decimal("2500"), "7012": Decimal("5000")}
    don = await client.post("/api/paiements/recettes", headers=tresorier.headers, json={
        "nature": "DON", "membreId": str(membre.membre.id), "organisationId": str(org.id), "montant": "15000",
        "methode": "ESPECES"})
    assert don.status_code == 201, don.text
    assert await credits(db, don.json()["numeroRecu"]) == {"7041": Decimal("15000")}

    cr = (await client.get("/api/comptabilite/etats/sycebnl/compte-resultat", headers=tresorier.headers,
                           params={"organisationId": str(org.id), "exercice": mensuelle.annee})).json()
    assert {r["code"]: (r["reference"], sorted(p["numeroCompte"] for p in r["postes"])) for r in cr["produits"]} == {
        "COTISATIONS": ("RA", ["7011", "7012"]), "DONS": ("RC", ["7041"])}


async def test_an_existing_organisation_adopts_the_sycebnl_numbering_once_with_a_trace(client, factory, db):
    org, tresorier, membre = await _org(factory)
    secretaire = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    avant = await cotisation(db, membre.membre, org, 2500)
    ancien = await _payer(client, tresorier, org, membre, "2500", [{"cotisationId": str(avant.id)}])
    assert await credits(db, ancien["numeroRecu"]) == {"7061": Decimal("2500")}

    url = f"/api/comptabilite/comptes-produits/numerotation-sycebnl?organisationId={org.id}"
    assert (await client.post(url, headers=secretaire.headers)).status_code == 403
    # The treasurer of another organisation: these books are not his to see (404).
    autre = await factory.organisation()
    voisin = await factory.actor(["USER"], organisation=autre, org_roles=["MEMBRE", "TRESORIER"])
    assert (await client.post(url, headers=voisin.headers)).status_code == 404
    for _ in range(2):  # a second call finds everything in place and changes nothing
        adopte = await client.post(url, headers=tresorier.headers)
        assert adopte.status_code == 200, adopte.text
        assert {c["nature"]: c["numeroCompte"] for c in adopte.json()} == SYCEBNL
    traces = (await db.execute(select(AuditLog).where(
        AuditLog.organisation_id == org.id, AuditLog.entite_type == "CompteProduit"))).scalars().all()
    assert [t.type_action for t in traces] == ["ADOPTER"] and traces[0].details["apres"]["comptes"]["DON"] == "7041"

    apres = await cotisation(db, membre.membre, org, 3000, mois=avant.mois % 12 + 1)
    nouveau = await _payer(client, tresorier, org, membre, "3000", [{"cotisationId": str(apres.id)}])
    assert await credits(db, nouveau["numeroRecu"]) == {"7011": Decimal("3000")}
    assert await credits(db, ancien["numeroRecu"]) == {"7061": Decimal("2500")}, "posted entries do not move"
