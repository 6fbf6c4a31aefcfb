"""Statements, the accounting lock with its reopening (asked by the treasurer, decided by the president), and the
monthly closing (checklist on failure, closing pack PDF) in the console, through the comptabilite and clotures
services; a member is refused each screen and each forced post."""

from __future__ import annotations

from datetime import date, timedelta

from sqlalchemy import select

from tests.console.connexion import sign_in
from unionflow.models import ClotureMensuelle, DemandeApprobation, VerrouComptable


async def _as(client, actor, db) -> str:
    client.cookies.clear()
    return await sign_in(client, actor, db)


def _refused(response) -> None:
    assert response.status_code == 403 and "Accès refusé" in response.text, response.text


async def test_treasurer_downloads_statements_as_pdf_and_xlsx(client, factory, db):
    org = await factory.organisation()
    tresorier = await factory.actor(organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    await sign_in(client, tresorier, db)
    page = await client.get("/console/comptabilite")
    assert page.status_code == 200
    for nom in ("balance", "journal", "grand-livre", "bilan", "compte-resultat"):
        assert f'value="{nom}"' in page.text
    pdf = await client.get("/console/comptabilite/etat?etat=balance&format=pdf&debut=2026-01-01&fin=2026-06-30")
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")
    assert 'filename="balance-generale-2026-06-30.pdf"' in pdf.headers["content-disposition"]
    xlsx = await client.get("/console/comptabilite/etat?etat=journal&format=xlsx")
    assert xlsx.status_code == 200 and xlsx.content.startswith(b"PK")
    assert "spreadsheetml" in xlsx.headers["content-type"]
    bilan = await client.get("/console/comptabilite/etat?etat=bilan&format=pdf")
    assert bilan.status_code == 200 and bilan.content.startswith(b"%PDF")
    assert (await client.get("/console/comptabilite/etat?etat=secret&format=pdf")).status_code == 404
    backwards = await client.get("/console/comptabilite/etat?etat=balance&format=pdf&debut=2026-06-30&fin=2026-01-01")
    assert backwards.status_code == 400


async def test_lock_then_reopening_asked_by_the_treasurer_and_approved_by_the_president(client, factory, db):
    org = await factory.organisation()
    tresorier = await factory.actor(organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    president = await factory.actor(organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    csrf = await _as(client, tresorier, db)
    locked = await client.post("/console/comptabilite/verrou", data={"csrf": csrf, "date": "2026-06-30"})
    assert locked.status_code == 303, locked.text
    page = await client.get("/console/comptabilite?fait=verrou")
    assert "30/06/2026" in page.text and "Période verrouillée" in page.text
    back = await client.post("/console/comptabilite/verrou", data={"csrf": csrf, "date": "2026-03-31"})
    assert back.status_code == 400 and "réouverture" in back.text  # moving back is a reopening, not a lock
    asked = await client.post("/console/comptabilite/deverrouillages", data={
        "csrf": csrf, "date": "2026-03-31", "motif": "Facture de mai oubliée"})
    assert asked.status_code == 303, asked.text
    demande = (await db.execute(select(DemandeApprobation))).scalar_one()
    page = await client.get("/console/comptabilite")
    assert "Facture de mai oubliée" in page.text and f"/deverrouillages/{demande.id}/approuver" not in page.text
    _refused(await client.post(f"/console/comptabilite/deverrouillages/{demande.id}/approuver", data={"csrf": csrf}))

    csrf = await _as(client, president, db)
    page = await client.get("/console/comptabilite")
    assert f"/deverrouillages/{demande.id}/approuver" in page.text and "Demandée par <strong>" in page.text
    assert 'action="/console/comptabilite/verrou"' not in page.text  # the president does not lock
    _refused(await client.post("/console/comptabilite/verrou", data={"csrf": csrf, "date": "2026-07-31"}))
    approved = await client.post(f"/console/comptabilite/deverrouillages/{demande.id}/approuver",
                                 data={"csrf": csrf, "commentaire": "Vu la facture"})
    assert approved.status_code == 303, approved.text
    verrou = (await db.execute(select(VerrouComptable).where(VerrouComptable.organisation_id == org.id))).scalar_one()
    await db.refresh(verrou)
    assert verrou.date_verrouillage == date(2026, 3, 31)


async def test_monthly_closing_shows_the_checklist_then_closes_and_gives_the_pack(client, factory, db):
    org = await factory.organisation()
    tresorier = await factory.actor(organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    csrf = await sign_in(client, tresorier, db)
    page = await client.get("/console/clotures")
    assert page.status_code == 200 and "caisse (571)" in page.text and "Aucun mois clôturé" in page.text
    last = date.today().replace(day=1) - timedelta(days=1)
    form = {"csrf": csrf, "annee": str(last.year), "mois": str(last.month), "caisse": "0", "wave": "0"}
    failed = await client.post("/console/clotures", data={**form, "banque": "125000"})
    assert failed.status_code == 400 and 'id="controles"' in failed.text
    checklist = failed.text.split('id="controles"', 1)[1].split("</ul>", 1)[0]
    assert "En échec</span> — Relevé bancaire" in checklist and "Conforme</span> — Caisse" in checklist
    assert 'value="125000"' in failed.text  # what was typed stays in the form
    assert (await db.execute(select(ClotureMensuelle))).first() is None
    closed = await client.post("/console/clotures", data={**form, "banque": "0"})
    assert closed.status_code == 303, closed.text
    cloture = (await db.execute(select(ClotureMensuelle))).scalar_one()
    listed = await client.get("/console/clotures?fait=1")
    assert f"/clotures/{cloture.id}/dossier" in listed.text and "Mois clôturé" in listed.text
    pack = await client.get(f"/console/clotures/{cloture.id}/dossier")
    assert pack.status_code == 200 and pack.content.startswith(b"%PDF")
    again = await client.post("/console/clotures", data={**form, "banque": "0"})
    assert again.status_code == 409


async def test_member_is_refused_the_accounting_screens_and_posts(client, factory, db):
    org = await factory.organisation()
    membre = await factory.actor(organisation=org, org_roles=["MEMBRE"])
    csrf = await sign_in(client, membre, db)
    moi = await client.get("/console/moi")
    assert "/console/comptabilite" not in moi.text and "/console/clotures" not in moi.text
    for path in ("/console/comptabilite", "/console/comptabilite/etat?etat=balance&format=pdf", "/console/clotures"):
        _refused(await client.get(path))
    _refused(await client.post("/console/comptabilite/verrou", data={"csrf": csrf, "date": "2026-06-30"}))
    _refused(await client.post("/console/clotures", data={"csrf": csrf, "annee": "2026", "mois": "1", "caisse": "0",
                                                          "banque": "0", "wave": "0"}))
    assert (await db.execute(select(VerrouComptable))).first() is None


async def test_auditor_downloads_the_inventory_and_the_assembly_pack_of_a_year(client, factory, db):
    org = await factory.organisation()
    commissaire = await factory.actor(organisation=org, org_roles=["MEMBRE", "COMMISSAIRE_AUX_COMPTES"])
    membre = await factory.actor(organisation=org, org_roles=["MEMBRE"])
    await _as(client, commissaire, db)
    annee = date.today().year - 1
    page = await client.get("/console/comptabilite")
    assert page.status_code == 200 and 'action="/console/comptabilite/fin-exercice"' in page.text
    assert 'value="inventaire"' in page.text and 'value="assemblee"' in page.text and f'value="{annee}"' in page.text
    inventaire = await client.get(f"/console/comptabilite/fin-exercice?document=inventaire&exercice={annee}")
    assert inventaire.status_code == 200 and inventaire.content.startswith(b"%PDF")
    assert f'filename="livre-inventaire-{annee}.pdf"' in inventaire.headers["content-disposition"]
    quand = (date.today() + timedelta(days=60)).isoformat()
    dossier = await client.get(f"/console/comptabilite/fin-exercice?document=assemblee&exercice={annee}"
                               f"&dateAssemblee={quand}")
    assert dossier.status_code == 200 and dossier.content.startswith(b"%PDF")
    sans_date = await client.get(f"/console/comptabilite/fin-exercice?document=assemblee&exercice={annee}")
    assert sans_date.status_code == 400 and "Date de l&#39;assemblée" in sans_date.text
    assert (await client.get("/console/comptabilite/fin-exercice?document=secret&exercice=2025")).status_code == 404
    await _as(client, membre, db)
    _refused(await client.get(f"/console/comptabilite/fin-exercice?document=inventaire&exercice={annee}"))


async def test_the_years_sycebnl_and_smt_statements_download_from_the_console_as_from_the_api(client, factory, db):
    import io

    from openpyxl import load_workbook

    from tests.pdf import pdf_text

    org = await factory.organisation(nom="Mutuelle des pêcheurs de Kayar", type_organisation="MUTUELLE")
    president = await factory.actor(organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    commissaire = await factory.actor(organisation=org, org_roles=["MEMBRE", "COMMISSAIRE_AUX_COMPTES"])
    membre = await factory.actor(organisation=org, org_roles=["MEMBRE"])
    annee = date.today().year - 1
    choix = await client.post(f"/api/configuration/organisations/{org.id}/referentiel-comptable",
                              headers=president.headers,
                              json={"referentiel": "SYCEBNL_SMT", "exercice": annee, "motif": "Petite mutuelle"})
    assert choix.status_code == 201, choix.text

    await _as(client, commissaire, db)
    page = await client.get("/console/comptabilite")
    assert 'action="/console/comptabilite/etat-annuel"' in page.text
    for cle in ("sycebnl-bilan", "sycebnl-notes", "smt-recettes-depenses", "smt-journal-tresorerie"):
        assert f'value="{cle}"' in page.text
    bilan = await client.get(f"/console/comptabilite/etat-annuel?etat=sycebnl-bilan&exercice={annee}&format=pdf")
    assert bilan.status_code == 200 and bilan.content.startswith(b"%PDF")
    assert f'filename="sycebnl-bilan-{annee}.pdf"' in bilan.headers["content-disposition"]
    texte = " ".join(pdf_text(bilan.content).split())
    # The warning the API prints: the organisation chose the minimal cash system for that year.
    assert "Bilan (SYCEBNL)" in texte and "système minimal de trésorerie" in texte and "Le Commissaire" in texte
    notes = await client.get(f"/console/comptabilite/etat-annuel?etat=sycebnl-notes&exercice={annee}&format=pdf")
    assert notes.status_code == 200 and "Avertissement" in pdf_text(notes.content)
    for cle, api in (("smt-recettes-depenses", "smt/recettes-depenses"), ("sycebnl-compte-de-resultat",
                                                                          "sycebnl/compte-resultat")):
        console = await client.get(f"/console/comptabilite/etat-annuel?etat={cle}&exercice={annee}&format=xlsx")
        assert console.status_code == 200 and console.content.startswith(b"PK"), console.text
        direct = await client.get(f"/api/comptabilite/etats/{api}", headers=commissaire.headers, params={
            "organisationId": str(org.id), "exercice": annee, "format": "xlsx"})
        feuilles = [load_workbook(io.BytesIO(r.content)).active for r in (console, direct)]
        assert feuilles[0]["A1"].value == feuilles[1]["A1"].value and feuilles[0].max_row == feuilles[1].max_row
    assert (await client.get(f"/console/comptabilite/etat-annuel?etat=secret&exercice={annee}")).status_code == 404
    sans = await client.get("/console/comptabilite/etat-annuel?etat=sycebnl-bilan&exercice=abc")
    assert sans.status_code == 400 and "Exercice" in sans.text

    await _as(client, membre, db)
    _refused(await client.get(f"/console/comptabilite/etat-annuel?etat=sycebnl-bilan&exercice={annee}"))
