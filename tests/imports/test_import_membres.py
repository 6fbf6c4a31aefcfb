"""Bulk import of members: dry run and real run agree line by line, re-import is idempotent, known people are
updated and enrolled instead of duplicated, other organisations' members are not taken, and 10,000 lines go in."""

from __future__ import annotations

import asyncio
import io

from openpyxl import Workbook
from sqlalchemy import func, select, text

from unionflow.models import AuditLog, Membre, MembreOrganisation
from unionflow.registres import Planificateur

URL = "/api/membres/import"


async def _post(client, headers, org, contenu: bytes, simulation: bool, nom: str = "membres.csv"):
    return await client.post(URL, headers=headers, data={"organisationId": str(org.id),
                                                          "simulation": str(simulation).lower()},
                             files={"fichier": (nom, contenu, "text/csv")})


def _csv(lignes: list[str]) -> bytes:
    return ("\ufeffPrénom;Nom;E-mail;Téléphone;Genre;Date de naissance;Ville;Rôles\r\n" + "\r\n".join(lignes)
            ).encode("utf-8")


async def _setup(factory):
    org = await factory.organisation(pays="SN")
    secretary = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    return org, secretary


async def test_dry_run_reports_each_line_and_the_real_run_does_the_same(client, factory, db):
    org, secretary = await _setup(factory)
    known = await factory.membre(org, email="fatou.sarr@example.sn", telephone="+221770000001", ville="Dakar")
    contenu = _csv([
        "Aminata;Ndiaye;aminata.ndiaye@example.sn;77 123 45 67;F;12/04/1985;Thiès;",
        "Fatou;Sarr;FATOU.SARR@example.sn;+221770000001;F;;Rufisque;",      # known: town changes
        "Ousmane;;;;M;;;",                                                 # no key, no surname
        "Ibrahima;Fall;ibrahima.fall@example.sn;;X;31/02/1990;;",          # bad gender and date
        "Awa;Ba;aminata.ndiaye@example.sn;;F;;;",                          # duplicate e-mail in the file
        "Moussa;Diallo;moussa.diallo@example.sn;;H;;;TRESORIER",           # roles: only the administrator
        "",
    ])
    dry = await _post(client, secretary.headers, org, contenu, True)
    assert dry.status_code == 200, dry.text
    report = dry.json()
    actions = {line["ligne"]: line["action"] for line in report["lignes"]}
    assert actions == {2: "CREER", 3: "METTRE_A_JOUR", 4: "REFUSER", 5: "REFUSER", 6: "REFUSER", 7: "REFUSER"}
    reasons = {line["ligne"]: " | ".join(line["motifs"]) for line in report["lignes"]}
    assert "ville modifiée" in reasons[3]
    assert "genre" in reasons[5] and "date de naissance" in reasons[5]
    assert "doublon de la ligne 2" in reasons[6] and "rôles" in reasons[7]
    assert (report["simulation"], report["crees"], report["misAJour"], report["refuses"]) == (True, 1, 1, 4)
    assert (await db.execute(select(func.count()).select_from(Membre).where(
        Membre.email == "aminata.ndiaye@example.sn"))).scalar_one() == 0

    real = await _post(client, secretary.headers, org, contenu, False)
    assert real.status_code == 200
    assert [(line["ligne"], line["action"]) for line in real.json()["lignes"]] == [
        (line["ligne"], line["action"]) for line in report["lignes"]]
    created = (await db.execute(select(Membre).where(Membre.email == "aminata.ndiaye@example.sn"))).scalar_one()
    assert created.telephone == "+221771234567" and created.genre == "FEMININ"
    assert created.date_naissance.isoformat() == "1985-04-12" and created.numero_membre.startswith("MBR-")
    await db.refresh(known)
    assert known.ville == "Rufisque"
    assert (await db.execute(select(AuditLog).where(AuditLog.type_action == "IMPORTER",
                                                    AuditLog.entite_id == str(org.id)))).scalars().first()

    again = await _post(client, secretary.headers, org, contenu, False)
    assert {line["action"] for line in again.json()["lignes"] if line["ligne"] in (2, 3)} == {"INCHANGE"}
    assert (await db.execute(select(func.count()).select_from(Membre).where(
        Membre.email == "aminata.ndiaye@example.sn"))).scalar_one() == 1


async def test_members_of_other_organisations_are_not_taken(client, factory, db):
    org, secretary = await _setup(factory)
    other = await factory.organisation()
    await factory.membre(other, email="cheikh.sy@example.sn")
    response = await _post(client, secretary.headers, org, _csv(["Cheikh;Sy;cheikh.sy@example.sn;;M;;;"]), False)
    (line,) = response.json()["lignes"]
    assert line["action"] == "REFUSER" and "demande d'adhésion" in line["motifs"][0]
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    assert (await _post(client, member.headers, org, _csv([]), True)).status_code == 403
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    assert (await _post(client, treasurer.headers, org, _csv([]), True)).status_code == 403
    missing = await client.post(URL, headers=secretary.headers, data={"organisationId": str(org.id)},
                                files={"fichier": ("x.csv", b"Nom;Ville\r\nDiop;Dakar", "text/csv")})
    assert missing.status_code == 400 and "prénom" in missing.json()["detail"]


async def test_xlsx_file_and_ten_thousand_lines(client, committed_factory, committed_db, app):
    """Over the default threshold (5000 lines) the real import is a background task; the dry run stays inline."""
    org, _secretary = await _setup(committed_factory)
    org_id = org.id
    admin = await committed_factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    workbook = Workbook()
    sheet = workbook.active
    sheet.append(["Prénom", "Nom", "Email", "Téléphone", "Rôles"])
    for i in range(10_000):
        sheet.append([f"Prénom{i}", f"Nom{i}", f"membre{i}@import.example.sn", f"+22170{i:07d}",
                      "MEMBRE,TRESORIER" if i == 0 else None])
    buffer = io.BytesIO()
    workbook.save(buffer)
    dry = await _post(client, admin.headers, org, buffer.getvalue(), True, "membres.xlsx")
    assert dry.status_code == 200 and dry.json()["crees"] == 10_000
    real = await _post(client, admin.headers, org, buffer.getvalue(), False, "membres.xlsx")
    assert real.status_code == 202, real.text
    await asyncio.gather(*await Planificateur(app.state.engine, app.state.settings, jobs=[]).tick())
    done = (await client.get(real.headers["Location"], headers=admin.headers)).json()
    assert (done["statut"], done["progression"], done["traites"]) == ("TERMINEE", 100, 10_000)
    assert (done["resultat"]["crees"], done["resultat"]["refuses"], done["resultat"]["lignes"]) == (10_000, 0, [])
    await committed_db.rollback()
    count = select(func.count()).select_from(MembreOrganisation).where(MembreOrganisation.organisation_id == org_id)
    assert (await committed_db.execute(count)).scalar_one() == 10_000 + 2
    numbers = (await committed_db.execute(select(Membre.numero_membre).where(
        Membre.email.like("%@import.example.sn")))).scalars().all()
    assert len(set(numbers)) == 10_000
    treasurer = (await committed_db.execute(select(MembreOrganisation.roles).join(Membre).where(
        Membre.email == "membre0@import.example.sn"))).scalar_one()
    assert sorted(treasurer) == ["MEMBRE", "TRESORIER"]
    if committed_db.get_bind().dialect.name == "postgresql":
        # The import refreshed the planner's statistics in its own transaction: the next import looks its keys up
        # by index, not by sequential scans planned for an empty table (imports/repository.py).
        reltuples = (await committed_db.execute(text("SELECT reltuples FROM pg_class WHERE relname = 'membre'"))
                     ).scalar_one()
        assert reltuples >= 10_000
