"""The register of processings is generated from the areas' declarations (their traitements.py): every table with
personal columns is covered, and it is served as JSON and as the PDF printed for the CDP declaration."""

from __future__ import annotations

import unionflow.models  # noqa: F401  (every table in the metadata)
from tests.pdf import pdf_text
from unionflow.donnees_personnelles.registre_service import (
    HORS_REGISTRE,
    colonnes_personnelles,
    registre,
    tables_non_couvertes,
)
from unionflow.models.base import Base
from unionflow.registres import TRAITEMENTS

URL = "/api/conformite/traitements"


def test_every_table_with_personal_columns_is_declared():
    missing = tables_non_couvertes(Base.metadata.tables.values(), TRAITEMENTS)
    assert missing == {}, f"tables de données personnelles sans déclaration (traitements.py de leur domaine): {missing}"
    declared = {t for d in TRAITEMENTS for t in d.tables}
    assert declared <= set(Base.metadata.tables), declared - set(Base.metadata.tables)
    assert set(HORS_REGISTRE) <= set(Base.metadata.tables)
    assert len({d.code for d in TRAITEMENTS}) == len(TRAITEMENTS)


def test_the_check_sees_a_new_table():
    from sqlalchemy import Column, MetaData, String, Table

    table = Table("carnet_test", MetaData(), Column("prenom", String), Column("nom", String),
                  Column("telephone_mobile", String))
    assert colonnes_personnelles(table) == ["prenom", "telephone_mobile", "nom"]
    assert tables_non_couvertes([table], TRAITEMENTS) == {"carnet_test": ["prenom", "telephone_mobile", "nom"]}
    tresorerie = Table("caisse_test", MetaData(), Column("nom", String))  # a name alone is not a person's
    assert colonnes_personnelles(tresorerie) == []


async def test_register_as_json_and_pdf(client, factory):
    org = await factory.organisation(nom="Mutuelle des enseignants de Thiès")
    admin = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    dpo = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "DELEGUE_PROTECTION_DONNEES"])
    membre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])

    data = (await client.get(URL, headers=dpo.headers)).json()
    by_code = {t["code"]: t for t in data["traitements"]}
    assert by_code["DEMANDES_AIDE"]["donneesSensibles"] == ["santé (demandes MALADIE)"]
    assert "membre" in by_code["REGISTRE_MEMBRES"]["tables"]
    assert by_code["JOURNAL_ACCES"]["zone"] == "donnees_personnelles"
    assert "2008-12" in data["loi"]
    pdf = await client.get(URL, headers=admin.headers, params={"format": "pdf"})
    assert pdf.status_code == 200 and pdf.headers["content-type"] == "application/pdf"
    text = pdf_text(pdf.content)
    assert "Registre des traitements" in text and "Mutuelle des enseignants de Thiès" in text
    flat = " ".join(text.split())
    assert "solidaire" in flat and "Registre des membres" in flat and "Le délégué à la protection" in flat
    for refused in (membre, tresorier):
        assert (await client.get(URL, headers=refused.headers)).status_code == 403


def test_every_processing_states_the_period_the_retention_job_applies(settings):
    """No « à fixer » left (docs/conformite.md « Durées de conservation »), and the periods printed are this
    installation's settings, not their defaults."""
    reglee = settings.model_copy(update={"donnees_messages_conservation_jours": 200,
                                         "donnees_echanges_conservation_jours": 500,
                                         "donnees_radies_conservation_ans": 7, "donnees_acces_conservation_jours": 90})
    durees = {t.code: t.duree_conservation for t in registre(reglee).traitements}
    assert not [code for code, d in durees.items() if "fixer" in d or "{" in d], durees
    assert "200 jours" in durees["MESSAGERIE"] and "200 jours" in durees["SMS_ENTRANTS"]
    assert "500 jours" in durees["TICKETS"] and "500 jours" in durees["AVIS"] and "500 jours" in durees["SUGGESTIONS"]
    assert "7 ans" in durees["REGISTRE_MEMBRES"] and durees["JOURNAL_ACCES"].startswith("90 jours")
