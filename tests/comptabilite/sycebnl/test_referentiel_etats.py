"""The SYCEBNL statements say which referential the organisation keeps for the year (docs/conformite.md S3, S6):
a mutual that keeps the PCMS, or a small entity on the minimal cash system, still gets them, each marked « à titre
d'information » in JSON, on every PDF (the notes and the assembly pack's cover included), never silently."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from tests.pdf import pdf_page_image, pdf_text

ANNEE = datetime.now(UTC).year
ETATS = "/api/comptabilite/etats/sycebnl"


async def _mutuelle(client, factory):
    org = await factory.organisation(nom="Mutuelle de santé des enseignants de Kaolack", type_organisation="MUTUELLE")
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    url = f"/api/configuration/organisations/{org.id}/referentiel-comptable"
    pcms = await client.post(url, headers=president.headers, json={
        "referentiel": "PCMS", "exercice": ANNEE - 1, "motif": "Mutuelle sociale agréée",
        "referenceAgrement": "AGR-MS-2019-014"})
    assert pcms.status_code == 201, pcms.text
    smt = await client.post(url, headers=president.headers, json={
        "referentiel": "SYCEBNL_SMT", "exercice": ANNEE, "motif": "Agrément retiré, petite entité"})
    assert smt.status_code == 201, smt.text
    return org, tresorier


async def test_each_statement_names_the_referential_in_force_and_warns_when_it_is_not_the_normal_system(
        client, factory, db):
    org, tresorier = await _mutuelle(client, factory)
    for nom in ("bilan", "compte-resultat", "flux-tresorerie", "notes"):
        avant = await client.get(f"{ETATS}/{nom}", headers=tresorier.headers,
                                 params={"organisationId": str(org.id), "exercice": ANNEE - 2})
        assert avant.status_code == 200, avant.text
        assert avant.json()["referentiel"] == "SYCEBNL_NORMAL" and avant.json()["alertes"] == [], nom

        pcms = (await client.get(f"{ETATS}/{nom}", headers=tresorier.headers,
                                 params={"organisationId": str(org.id), "exercice": ANNEE - 1})).json()
        assert pcms["referentiel"] == "PCMS", nom
        assert len(pcms["alertes"]) == 1 and "Plan comptable des mutuelles sociales" in pcms["alertes"][0]
        assert f"exercice {ANNEE - 1}" in pcms["alertes"][0] and "titre d'information" in pcms["alertes"][0]

        smt = (await client.get(f"{ETATS}/{nom}", headers=tresorier.headers,
                                params={"organisationId": str(org.id), "exercice": ANNEE})).json()
        assert smt["referentiel"] == "SYCEBNL_SMT" and "système minimal de trésorerie" in smt["alertes"][0], nom


async def test_the_pdfs_print_the_warning_before_anyone_signs(client, factory, db):
    org, tresorier = await _mutuelle(client, factory)
    params = {"organisationId": str(org.id), "exercice": ANNEE - 1, "format": "pdf"}
    for nom in ("bilan", "compte-resultat", "flux-tresorerie", "notes"):
        pdf = await client.get(f"{ETATS}/{nom}", headers=tresorier.headers, params=params)
        assert pdf.status_code == 200, pdf.text
        text = " ".join(pdf_text(pdf.content).split())
        assert "ATTENTION" in text or "Avertissement" in text, nom
        assert "Plan comptable des mutuelles sociales (PCMS" in text, nom
        if nom == "bilan" and os.environ.get("UNIONFLOW_KEEP_PAGES"):  # docs/etats/sycebnl-bilan-pcms.png
            pages = Path(os.environ["UNIONFLOW_KEEP_PAGES"])
            pdf_page_image(pdf.content, 0, 1.2).save(pages / "sycebnl-bilan-pcms.png")
    bilan = " ".join(pdf_text((await client.get(f"{ETATS}/bilan", headers=tresorier.headers,
                                                params={**params, "exercice": ANNEE - 2})).content).split())
    assert f"Référentiel en vigueur pour l'exercice {ANNEE - 2} : SYCEBNL_NORMAL" in bilan
    assert "ATTENTION : Pour l'exercice" not in bilan

    dossier = await client.get("/api/comptabilite/assemblee", headers=tresorier.headers, params={
        "organisationId": str(org.id), "exercice": ANNEE - 1, "dateAssemblee": f"{ANNEE}-06-30", "format": "pdf"})
    assert dossier.status_code == 200, dossier.text
    couverture = " ".join(pdf_text(dossier.content).split())
    assert f"ATTENTION : Pour l'exercice {ANNEE - 1}, l'organisation tient le Plan comptable" in couverture
