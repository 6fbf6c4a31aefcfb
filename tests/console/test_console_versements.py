"""Payouts and aid in the console: prepared by one treasurer, confirmed by another (never by the one who prepared
it), large ones approved first by the president; aid requests decided by the president (never by the requester),
then paid out. A member is refused every staff screen and forced post. Rules: versements, finance/approbations and
demandes_aide services (their own tests); here, that the console offers, refuses and shows who asked."""

from __future__ import annotations

import re
import uuid

from sqlalchemy import select

from tests.console.connexion import KEY, sign_in
from unionflow.models import DemandeAide, DemandeApprobation, Versement


async def _as(client, actor, db) -> str:
    client.cookies.clear()
    return await sign_in(client, actor, db)


async def _prepare(client, csrf, montant: str, beneficiaire: str) -> None:
    form = await client.get("/console/versements")
    response = await client.post("/console/versements", data={
        "csrf": csrf, "idempotency_key": KEY.search(form.text).group(1), "objet_type": "AUTRE", "montant": montant,
        "motif": "Location de la salle", "beneficiaire_nom": beneficiaire, "mode": "MANUEL"})
    assert response.status_code == 303, response.text


def _refused(response) -> None:
    assert response.status_code == 403 and "Accès refusé" in response.text, response.text


async def test_a_payout_is_confirmed_by_a_second_treasurer_never_by_its_preparer(client, factory, db):
    org = await factory.organisation()
    awa = await factory.actor(organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    ibou = await factory.actor(organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    csrf = await _as(client, awa, db)
    await _prepare(client, csrf, "75000", "Hôtel de ville de Thiès")
    versement = (await db.execute(select(Versement))).scalar_one()
    page = await client.get("/console/versements")
    assert f'id="versement-{versement.id}"' in page.text and "Préparé par <strong>" in page.text
    assert f"/versements/{versement.id}/confirmer" not in page.text and "une autre personne" in page.text
    forced = await client.post(f"/console/versements/{versement.id}/confirmer", data={
        "csrf": csrf, "idempotency_key": "forced-v1", "reference": "VIR-1"})
    _refused(forced)
    await db.refresh(versement)
    assert versement.statut == "EN_COURS"

    csrf = await _as(client, ibou, db)
    page = await client.get("/console/versements")
    assert f"/versements/{versement.id}/confirmer" in page.text
    done = await client.post(f"/console/versements/{versement.id}/confirmer", data={
        "csrf": csrf, "idempotency_key": f"{KEY.search(page.text).group(1)}-{versement.id}", "reference": "VIR-1"})
    assert done.status_code == 303, done.text
    await db.refresh(versement)
    assert versement.statut == "REUSSI" and versement.confirme_par and versement.confirme_par != versement.cree_par
    history = await client.get("/console/versements?fait=confirme")
    assert "Versement confirmé" in history.text and "Hôtel de ville de Thiès" in history.text


async def test_a_large_payout_waits_for_the_president_s_approval(client, factory, db):
    org = await factory.organisation()
    awa = await factory.actor(organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    ibou = await factory.actor(organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    president = await factory.actor(organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    csrf = await _as(client, awa, db)
    await _prepare(client, csrf, "600000", "Quincaillerie Sandaga")
    versement = (await db.execute(select(Versement))).scalar_one()
    approbation = (await db.execute(select(DemandeApprobation))).scalar_one()
    assert "/approbations/" not in (await client.get("/console/versements")).text  # a treasurer does not decide
    _refused(await client.post(f"/console/approbations/{approbation.id}/approuver", data={"csrf": csrf}))

    csrf = await _as(client, ibou, db)
    page = await client.get("/console/versements")
    assert approbation.numero in page.text and "demandée par" in page.text
    refused = await client.post(f"/console/versements/{versement.id}/confirmer", data={
        "csrf": csrf, "idempotency_key": "v-avant-approbation", "reference": "VIR-2"})
    assert refused.status_code == 400 and "approbation" in refused.text

    csrf = await _as(client, president, db)
    page = await client.get("/console/versements")
    assert page.status_code == 200 and f"/approbations/{approbation.id}/approuver" in page.text
    # An officer holding versement.confirmer, the president included, is offered to pay out what another person
    # prepared (a bureau of one treasurer and a president must be able to pay out: docs/decisions.md).
    assert f"/versements/{versement.id}/confirmer" in page.text
    approved = await client.post(f"/console/approbations/{approbation.id}/approuver",
                                 data={"csrf": csrf, "commentaire": "Devis vérifié"})
    assert approved.status_code == 303, approved.text
    await db.refresh(approbation)
    assert approbation.statut == "APPROUVEE"

    # The president pays it out from the console too (the API's role set for confirming, not the treasury's).
    done = await client.post(f"/console/versements/{versement.id}/confirmer", data={
        "csrf": csrf, "idempotency_key": "v-apres-approbation", "reference": "VIR-2"})
    assert done.status_code == 303, done.text
    await db.refresh(versement)
    assert versement.statut == "REUSSI"
    # Once paid, « Derniers versements » still says who approved it, and who paid it.
    history = await client.get("/console/versements")
    row = re.search(rf'<tr id="versement-{versement.id}">(.*?)</tr>', history.text, re.S).group(1)
    assert "approuvée par " in row and f"payé par {versement.confirme_par}" in row, row


async def test_aid_decided_by_the_president_then_paid_out_by_the_treasury(client, factory, db):
    org = await factory.organisation()
    demandeur = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    president = await factory.actor(organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    tresorier = await factory.actor(organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    created = await client.post("/api/demandes-aide", headers=demandeur.headers, json={
        "organisationId": str(org.id), "type": "DECES", "titre": "Décès de mon père",
        "description": "Frais d'obsèques à Kaolack", "montantDemande": "150000"})
    assert created.status_code == 200, created.text
    demande_id = created.json()["id"]

    csrf = await _as(client, demandeur, db)
    mine = await client.get("/console/aides")
    assert mine.status_code == 200 and "Décès de mon père" in mine.text and "/approuver" not in mine.text
    assert 'href="/console/aides"' not in mine.text  # not in a member's menu
    _refused(await client.post(f"/console/aides/{demande_id}/approuver", data={"csrf": csrf, "montant": "150000"}))
    _refused(await client.get("/console/versements"))
    _refused(await client.post("/console/versements", data={
        "csrf": csrf, "idempotency_key": "forced-aide", "objet_type": "AIDE", "objet_id": demande_id,
        "montant": "150000", "motif": "Aide forcée", "beneficiaire_nom": "Moi", "mode": "MANUEL"}))

    csrf = await _as(client, president, db)
    page = await client.get("/console/aides")
    assert f"/aides/{demande_id}/approuver" in page.text and demandeur.membre.prenom in page.text
    decided = await client.post(f"/console/aides/{demande_id}/approuver",
                                data={"csrf": csrf, "montant": "100000", "motif": "Barème du bureau"})
    assert decided.status_code == 303, decided.text
    demande = await db.get(DemandeAide, uuid.UUID(demande_id))
    await db.refresh(demande)
    assert demande.statut == "APPROUVEE" and demande.montant_accorde == 100000

    csrf = await _as(client, tresorier, db)
    page = await client.get("/console/aides")
    assert "Accordées, à verser" in page.text and 'name="objet_id"' in page.text
    too_much = await client.post("/console/versements", data={
        "csrf": csrf, "idempotency_key": "aide-trop", "objet_type": "AIDE", "objet_id": demande_id,
        "montant": "150000", "motif": f"Aide {demande.numero_reference}", "beneficiaire_nom": "Awa Diop",
        "mode": "MANUEL"})
    assert too_much.status_code == 400 and "dépasse l'aide accordée" in too_much.text.replace("&#39;", "'")
    paid = await client.post("/console/versements", data={
        "csrf": csrf, "idempotency_key": "aide-ok", "objet_type": "AIDE", "objet_id": demande_id,
        "montant": "100000", "motif": f"Aide {demande.numero_reference}", "beneficiaire_nom": "Awa Diop",
        "mode": "MANUEL"})
    assert paid.status_code == 303, paid.text
    versement = (await db.execute(select(Versement))).scalar_one()
    assert versement.objet_type == "AIDE" and str(versement.objet_id) == demande_id and versement.statut == "EN_COURS"
    after = await client.get("/console/aides")
    assert "Aucune aide accordée en attente de versement" in after.text  # the whole grant is now carried


async def test_approval_of_another_organisation_is_the_404_page_and_a_tokenless_post_is_refused(client, factory, db):
    org, other = await factory.organisation(), await factory.organisation()
    tresorier = await factory.actor(organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    csrf = await sign_in(client, tresorier, db)
    await _prepare(client, csrf, "600000", "Quincaillerie Sandaga")
    approbation = (await db.execute(select(DemandeApprobation))).scalar_one()
    versement = (await db.execute(select(Versement))).scalar_one()
    no_token = await client.post(f"/console/versements/{versement.id}/annuler", data={"motif": "sans jeton"})
    assert no_token.status_code == 403 and "CSRF" in no_token.text
    president = await factory.actor(organisation=other, org_roles=["MEMBRE", "PRESIDENT"])
    csrf = await _as(client, president, db)
    assert approbation.numero not in (await client.get("/console/versements")).text
    forced = await client.post(f"/console/approbations/{approbation.id}/approuver", data={"csrf": csrf})
    assert forced.status_code == 404 and "Page introuvable" in forced.text
    await db.refresh(approbation)
    await db.refresh(versement)
    assert approbation.statut == "EN_ATTENTE" and versement.statut == "EN_COURS"


async def test_president_decides_another_approval_request_showing_who_asked(client, factory, db):
    org = await factory.organisation()
    tresorier = await factory.actor(organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    president = await factory.actor(organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    asked = await client.post("/api/finance/approbations", headers=tresorier.headers, json={
        "organisationId": str(org.id), "typeObjet": "AUTRE", "montant": "250000",
        "motif": "Achat d'un ordinateur pour le secrétariat"})
    assert asked.status_code == 201, asked.text
    approbation_id = asked.json()["id"]
    csrf = await _as(client, tresorier, db)
    page = await client.get("/console/versements")
    assert "Achat d&#39;un ordinateur" in page.text and f"/approbations/{approbation_id}/rejeter" not in page.text
    csrf = await _as(client, president, db)
    page = await client.get("/console/versements")
    assert f"/approbations/{approbation_id}/rejeter" in page.text and "Demandée par <strong>" in page.text
    without = await client.post(f"/console/approbations/{approbation_id}/rejeter", data={"csrf": csrf})
    assert without.status_code == 400 and "motif du rejet" in without.text
    rejected = await client.post(f"/console/approbations/{approbation_id}/rejeter",
                                 data={"csrf": csrf, "commentaire": "Pas prévu au budget"})
    assert rejected.status_code == 303, rejected.text
    approbation = await db.get(DemandeApprobation, uuid.UUID(approbation_id))
    await db.refresh(approbation)
    assert approbation.statut == "REJETEE"
    assert "Achat d&#39;un ordinateur" not in (await client.get("/console/versements")).text
