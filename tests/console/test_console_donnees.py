"""Personal data in the console: the member consents and withdraws on « Mes données » and sees who read his file;
the secretary prints the consent form and records the paper consent on the member's page; the data-protection
officer reads the access log; the organisation's administrator prints the register of processings."""

from __future__ import annotations

from markupsafe import escape
from sqlalchemy import select

from tests.console.connexion import sign_in
from tests.pdf import pdf_text
from unionflow.models import Consentement


async def test_member_consents_and_withdraws_then_sees_who_read_his_file(client, factory, db):
    org = await factory.organisation()
    membre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    secretaire = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    assert (await client.get(f"/api/membres/{membre.membre.id}", headers=secretaire.headers)).status_code == 200
    csrf = await sign_in(client, membre, db)
    assert 'href="/console/moi/donnees"' in (await client.get("/console/moi")).text
    page = await client.get("/console/moi/donnees")
    assert page.status_code == 200 and "Aucun consentement enregistré" in page.text
    assert secretaire.user.email in page.text and "GET /api/membres/{id}" in page.text
    assert "loi n° 2008-12" in page.text  # the notice text shown before consenting
    # art. 58: the notice names the organisation as controller (escaped by the template, as the name may be)
    assert f"Responsable du traitement: {escape(org.nom)}" in page.text

    refused = await client.post("/console/moi/donnees/consentements",
                                data={"csrf": csrf, "finalite": "INCONNUE", "organisation": str(org.id)})
    assert refused.status_code == 400 and "choisissez une finalité" in refused.text
    done = await client.post("/console/moi/donnees/consentements",
                             data={"csrf": csrf, "finalite": "SANTE_AIDE", "organisation": str(org.id)})
    assert done.status_code == 303, done.text
    row = (await db.execute(select(Consentement).where(Consentement.membre_id == membre.membre.id))).scalar_one()
    assert row.canal == "CONSOLE" and row.retire_le is None
    twice = await client.post("/console/moi/donnees/consentements",
                              data={"csrf": csrf, "finalite": "SANTE_AIDE", "organisation": str(org.id)})
    assert twice.status_code == 409 and "déjà en vigueur" in twice.text
    withdrawn = await client.post(f"/console/moi/donnees/consentements/{row.id}/retrait", data={"csrf": csrf})
    assert withdrawn.status_code == 303
    after = await client.get("/console/moi/donnees?fait=retire")
    assert "Retiré le" in after.text and "Données de santé (aide maladie)" in after.text


async def test_secretary_records_a_paper_consent_on_the_members_page(client, factory, db):
    org = await factory.organisation()
    membre = await factory.membre(org)
    secretaire = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    csrf = await sign_in(client, tresorier, db)
    page = await client.get(f"/console/membres/{membre.id}")
    assert page.status_code == 200 and "Consentement signé sur le formulaire papier" not in page.text

    refused = await client.get(f"/console/membres/{membre.id}/consentements/formulaire",
                               params={"finalite": "ADHESION_SYNDICALE", "organisation": str(org.id)})
    assert refused.status_code == 403  # the treasurer sees the member but does not collect consents

    csrf = await sign_in(client, secretaire, db)
    page = await client.get(f"/console/membres/{membre.id}")
    assert "Consentement signé sur le formulaire papier" in page.text
    assert f'action="/console/membres/{membre.id}/consentements/formulaire"' in page.text
    # The sheet the member reads and signs first: the API's form, his name on it.
    sheet = await client.get(f"/console/membres/{membre.id}/consentements/formulaire",
                             params={"finalite": "ADHESION_SYNDICALE", "organisation": str(org.id)})
    assert sheet.status_code == 200 and sheet.headers["content-type"] == "application/pdf"
    assert f"{membre.nom} {membre.prenom}" in " ".join(pdf_text(sheet.content).split())
    done = await client.post(f"/console/membres/{membre.id}/consentements",
                             data={"csrf": csrf, "finalite": "ADHESION_SYNDICALE", "organisation": str(org.id)})
    assert done.status_code == 303, done.text
    shown = await client.get(f"/console/membres/{membre.id}?fait=consentement")
    assert "Appartenance syndicale" in shown.text and "Formulaire papier" in shown.text
    row = (await db.execute(select(Consentement).where(Consentement.membre_id == membre.id))).scalar_one()
    assert row.canal == "PAPIER" and row.recueilli_par_nom == secretaire.user.email


async def test_officer_reads_the_access_log_and_the_register(client, factory, db):
    org = await factory.organisation()
    membre = await factory.membre(org)
    secretaire = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    dpo = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "DELEGUE_PROTECTION_DONNEES"])
    assert (await client.get(f"/api/membres/{membre.id}", headers=secretaire.headers)).status_code == 200
    await sign_in(client, dpo, db)
    accueil = await client.get("/console/")
    assert 'href="/console/acces-fiches"' in accueil.text and 'href="/console/registre-traitements"' in accueil.text
    log = await client.get("/console/acces-fiches")
    assert log.status_code == 200 and secretaire.user.email in log.text and membre.prenom in log.text
    register = await client.get("/console/registre-traitements")
    assert register.status_code == 200 and "Demandes d&#39;aide solidaire" in register.text
    pdf = await client.get("/console/registre-traitements/pdf")
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")

    await sign_in(client, secretaire, db)
    assert (await client.get("/console/acces-fiches")).status_code == 403
    assert (await client.get("/console/registre-traitements")).status_code == 403
