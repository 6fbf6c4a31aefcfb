"""The CDP's récépissé of each processing an organisation declared (Loi 2008-12 art. 18): recorded by its
administrator or its data-protection officer, shown in the register of processings (JSON, the printed register,
the console page); a processing without one is « non déclaré »."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from tests.console.connexion import sign_in
from tests.pdf import pdf_text
from unionflow.models import AuditLog

URL = "/api/conformite/traitements"
TODAY = datetime.now(UTC).date()


def _recepisse(org, numero="CDP/DEC/2026-0142", jour=None, **extra):
    return {"organisationId": str(org.id), "numeroRecepisse": numero,
            "dateRecepisse": (jour or TODAY - timedelta(days=10)).isoformat(), **extra}


async def test_the_administrator_records_a_recepisse_shown_in_the_register(client, factory, db):
    org = await factory.organisation(nom="Union des tisserands de Thiès")
    admin = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])

    avant = (await client.get(URL, headers=admin.headers)).json()
    assert avant["organisationId"] == str(org.id)
    assert {t["statutDeclaration"] for t in avant["traitements"]} == {"NON_DECLARE"}
    assert {t["declarationCdp"] for t in avant["traitements"]} == {"non déclaré"}

    declaration = (TODAY - timedelta(days=40)).isoformat()
    fait = await client.post(f"{URL}/REGISTRE_MEMBRES/recepisse", headers=admin.headers,
                             json=_recepisse(org, dateDeclaration=declaration))
    assert fait.status_code == 200, fait.text
    assert fait.json()["numeroRecepisse"] == "CDP/DEC/2026-0142" and fait.json()["dateDeclaration"] == declaration

    par_code = {t["code"]: t for t in (await client.get(URL, headers=admin.headers)).json()["traitements"]}
    membres = par_code["REGISTRE_MEMBRES"]
    assert membres["statutDeclaration"] == "DECLARE" and membres["recepisse"]["numeroRecepisse"] == "CDP/DEC/2026-0142"
    jour = TODAY - timedelta(days=10)
    assert membres["declarationCdp"] == (f"Récépissé n° CDP/DEC/2026-0142 du {jour:%d/%m/%Y}, déclaration du "
                                         f"{TODAY - timedelta(days=40):%d/%m/%Y}")
    assert par_code["PAIEMENTS"]["statutDeclaration"] == "NON_DECLARE" and par_code["PAIEMENTS"]["recepisse"] is None

    pdf = await client.get(URL, headers=admin.headers, params={"format": "pdf"})
    assert pdf.status_code == 200
    texte = "".join(pdf_text(pdf.content).split())  # narrow columns wrap anywhere
    assert "DéclarationCDP(récépissé)" in texte and "Récépissén°CDP/DEC/2026-0142" in texte
    assert texte.count("nondéclaré") >= len(par_code) - 1

    # A correction replaces it; the audit trail keeps the former number.
    corrige = await client.post(f"{URL}/REGISTRE_MEMBRES/recepisse", headers=admin.headers,
                                json=_recepisse(org, numero="CDP/DEC/2026-0143"))
    assert corrige.status_code == 200 and corrige.json()["dateDeclaration"] is None
    audits = (await db.execute(select(AuditLog).where(AuditLog.type_action == "ENREGISTRER_RECEPISSE",
                                                      AuditLog.organisation_id == org.id))).scalars().all()
    assert len(audits) == 2
    assert any("CDP/DEC/2026-0142" in str(a.details) for a in audits)


async def test_who_records_and_what_is_refused(client, factory, db):
    org = await factory.organisation()
    autre = await factory.organisation()
    dpo = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "DELEGUE_PROTECTION_DONNEES"])
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    admin_autre = await factory.actor(["USER"], organisation=autre, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    chemin = f"{URL}/PAIEMENTS/recepisse"

    assert (await client.post(chemin, headers=dpo.headers, json=_recepisse(org))).status_code == 200
    for refuse in (tresorier, president):
        assert (await client.post(chemin, headers=refuse.headers, json=_recepisse(org))).status_code == 403
    # Another organisation's register: not his to keep, nor to read.
    assert (await client.post(chemin, headers=admin_autre.headers, json=_recepisse(org))).status_code == 404
    lu = await client.get(URL, headers=admin_autre.headers, params={"organisationId": str(org.id)})
    assert lu.status_code == 404
    assert (await client.post(f"{URL}/INCONNU/recepisse", headers=dpo.headers,
                              json=_recepisse(org))).status_code == 404
    # Two days ahead of TODAY (read at import): still the future if the run crosses midnight.
    futur = await client.post(chemin, headers=dpo.headers, json=_recepisse(org, jour=TODAY + timedelta(days=2)))
    assert futur.status_code == 400 and "futur" in futur.json()["detail"]
    apres = await client.post(chemin, headers=dpo.headers,
                              json=_recepisse(org, dateDeclaration=TODAY.isoformat()))
    assert apres.status_code == 400 and "précède" in apres.json()["detail"]
    inconnu = await client.post(chemin, headers=dpo.headers, json=_recepisse(org, statut="DECLARE"))
    assert inconnu.status_code == 400
    vide = await client.post(chemin, headers=dpo.headers, json=_recepisse(org, numero="  "))
    assert vide.status_code == 400
    # The other organisation's register still says « non déclaré ».
    autre_registre = (await client.get(URL, headers=admin_autre.headers)).json()
    assert {t["statutDeclaration"] for t in autre_registre["traitements"]} == {"NON_DECLARE"}


async def test_the_console_register_shows_and_records_the_recepisse(client, factory, db):
    org = await factory.organisation(nom="Mutuelle des transporteurs de Louga")
    admin = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    client.headers.pop("Authorization", None)
    csrf = await sign_in(client, admin, db)
    page = await client.get("/console/registre-traitements")
    assert page.status_code == 200, page.text
    assert "Déclaration CDP" in page.text and "non déclaré" in page.text
    assert "Enregistrer le récépissé" in page.text
    formulaire = {"csrf": csrf, "traitement": "COTISATIONS", "numero_recepisse": "CDP-2026-77",
                  "date_recepisse": (TODAY - timedelta(days=3)).isoformat(), "date_declaration": ""}
    refus = await client.post("/console/registre-traitements/recepisse",
                              data={**formulaire, "date_recepisse": (TODAY + timedelta(days=5)).isoformat()})
    assert refus.status_code == 400 and "futur" in refus.text and "CDP-2026-77" in refus.text
    fait = await client.post("/console/registre-traitements/recepisse", data=formulaire, follow_redirects=True)
    assert fait.status_code == 200 and "Récépissé enregistré" in fait.text
    assert f"Récépissé n° CDP-2026-77 du {TODAY - timedelta(days=3):%d/%m/%Y}" in fait.text
