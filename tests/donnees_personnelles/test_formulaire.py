"""The consent form the secretariat prints (Loi 2008-12 art. 41 2° and 58; docs/conformite.md D2, D5): the notice as
rendered for the organisation, the member's identity, the two boxes and the signatures, and the text's fingerprint,
the same as the one stored with the PAPIER consent recorded from it."""

from __future__ import annotations

import uuid

from sqlalchemy import select

from tests.pdf import pdf_text
from unionflow.models import Consentement, NoticeInformation

URL = "/api/donnees-personnelles/notices/formulaire"


def _params(org, finalite="ADHESION_SYNDICALE", **extra) -> dict:
    return {"organisationId": str(org.id), "finalite": finalite, **extra}


def _flat(texte: str) -> str:
    """The extracted text without its line breaks (multi_cell wraps long lines)."""
    return " ".join(texte.split())


async def test_the_secretary_prints_the_members_form_and_records_it_with_the_same_text(client, factory, db):
    org = await factory.organisation()
    membre = await factory.membre(org)
    secretaire = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    printed = await client.get(URL, headers=secretaire.headers, params=_params(org, membreId=str(membre.id)))
    assert printed.status_code == 200, printed.text
    assert printed.headers["content-type"] == "application/pdf"
    assert 'filename="consentement-adhesion_syndicale.pdf"' in printed.headers["content-disposition"]
    texte = _flat(pdf_text(printed.content))
    for attendu in (f"Responsable du traitement: {org.nom}", "Formulaire de consentement",
                    f"Nom et prénoms : {membre.nom} {membre.prenom}", f"Numéro de membre : {membre.numero_membre}",
                    "je consens, par écrit, au traitement décrit ci-dessus", "Je ne consens pas",
                    "Signature du membre, précédée de « lu et approuvé »",
                    "Pour le secrétariat: nom, date et signature",
                    "demander à ne plus figurer sur le fichier", "notice version 2"):
        assert attendu in texte, attendu

    recorded = await client.post("/api/donnees-personnelles/consentements", headers=secretaire.headers, json={
        "membreId": str(membre.id), "organisationId": str(org.id), "finalite": "ADHESION_SYNDICALE",
        "canal": "PAPIER", "noticeVersion": 2})
    assert recorded.status_code == 201, recorded.text
    notice = (await db.execute(select(NoticeInformation).join(Consentement, Consentement.notice_id ==
                                                                NoticeInformation.id)
                               .where(Consentement.id == uuid.UUID(recorded.json()["id"])))).scalar_one()
    # The signed sheet and the stored text are one text: its fingerprint is printed on the sheet.
    assert f"empreinte {notice.empreinte[:16]}" in texte
    for ligne in notice.texte.splitlines():
        assert _flat(ligne) in texte


async def test_a_blank_form_leaves_the_identity_to_fill_in(client, factory):
    org = await factory.organisation()
    secretaire = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    printed = await client.get(URL, headers=secretaire.headers, params=_params(org, "SANTE_AIDE"))
    assert printed.status_code == 200, printed.text
    texte = _flat(pdf_text(printed.content))
    assert "Nom et prénoms : ....." in texte and "données de santé d'une demande d'aide maladie" in texte
    assert "une demande d'aide de type maladie est refusée" in texte


async def test_who_may_print_a_named_members_form(client, factory):
    org = await factory.organisation()
    membre = await factory.actor(["MEMBRE"], organisation=org)
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    autre_membre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    params = _params(org, membreId=str(membre.membre.id))
    assert (await client.get(URL, headers=membre.headers, params=params)).status_code == 200  # his own
    refused = await client.get(URL, headers=tresorier.headers, params=params)  # sees him, does not record consents
    assert refused.status_code == 403 and "secrétariat" in refused.json()["detail"]
    assert (await client.get(URL, headers=autre_membre.headers, params=params)).status_code == 404
    unknown = await client.get(URL, headers=membre.headers, params=_params(org, "INCONNUE"))
    assert unknown.status_code == 400
