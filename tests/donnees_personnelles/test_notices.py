"""The information notice (Loi 2008-12 art. 58, docs/conformite.md D5): every purpose's notice carries each item the
article lists, names the organisation the consent is given to as controller, and the consent keeps the text as read."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import select

from unionflow.donnees_membre.effacement import CONSERVATION_LIVRES_ANS
from unionflow.donnees_personnelles import notices
from unionflow.models import Consentement, NoticeInformation, Organisation
from unionflow.models.donnees_personnelles import FinaliteConsentement

URL = "/api/donnees-personnelles"
# One marker phrase per item of art. 58, in its order; the controller's identity is checked with the organisation.
ART_58 = {
    "identité du responsable du traitement": "Responsable du traitement: ",
    "finalités": "Finalité: ",
    "catégories de données": "Données traitées: ",
    "destinataires": "Destinataires: ",
    "caractère obligatoire ou facultatif des réponses": "Réponse obligatoire ou facultative: répondre est facultatif",
    "« ne plus figurer sur le fichier »": "demander à ne plus figurer sur le fichier",
    "droit d'accès": "droit d'accès",
    "droit de rectification": "rectification",
    "durée de conservation": "Durée de conservation: ",
    "transferts envisagés hors du Sénégal": "Transferts hors du Sénégal: ",
}
# The consequence of not answering, as enforced (donnees_personnelles/service.py, demandes_aide/service.py).
CONSEQUENCE = {
    FinaliteConsentement.ADHESION_SYNDICALE: "Si vous refusez ou le retirez, UnionFlow ne bloque aucune opération",
    FinaliteConsentement.SANTE_AIDE: "Sans ce consentement en vigueur, une demande d'aide de type maladie est refusée",
}


def _manquants(texte: str, finalite: FinaliteConsentement, organisation: Organisation) -> list[str]:
    manquants = [item for item, marqueur in ART_58.items() if marqueur not in texte]
    if f"Responsable du traitement: {organisation.nom}" not in texte:
        manquants.append("nom de l'organisation (responsable du traitement)")
    if CONSEQUENCE[finalite] not in texte:
        manquants.append("conséquence d'un refus")
    return manquants


def test_every_notice_carries_each_art_58_item():
    """Each purpose, new ones included (the loop is over the enum): a missing item fails with its name."""
    organisation = Organisation(id=uuid.uuid4(), nom="Syndicat des enseignants de Thiès", adresse="12 rue Carnot",
                                ville="Thiès", email="bureau@set.sn", telephone="+221338001122")
    for finalite in FinaliteConsentement:
        texte = notices.rendre(finalite, organisation, 5)
        assert _manquants(texte, finalite, organisation) == [], (finalite, texte)
        assert "12 rue Carnot, Thiès" in texte and "contact: bureau@set.sn, +221338001122" in texte
    bare = Organisation(id=uuid.uuid4(), nom="Mutuelle sans adresse")
    assert "Responsable du traitement: Mutuelle sans adresse; contact: son secrétariat." in notices.rendre(
        FinaliteConsentement.SANTE_AIDE, bare, 5)


def test_the_books_retention_told_is_the_erasures():
    assert notices.CONSERVATION_LIVRES_ANS == CONSERVATION_LIVRES_ANS


async def test_the_served_notices_name_the_organisation(client, factory):
    org = await factory.organisation(nom="Union des tailleurs de Kaolack", adresse="Avenue Valdiodio Ndiaye",
                                     ville="Kaolack", telephone="+221339410000")
    other = await factory.organisation()
    membre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    served = await client.get(f"{URL}/notices", headers=membre.headers)
    assert served.status_code == 200
    assert sorted(n["finalite"] for n in served.json()) == ["ADHESION_SYNDICALE", "SANTE_AIDE"]
    for n in served.json():
        assert n["version"] == notices.VERSION == 2 and n["organisationId"] == str(org.id)
        assert _manquants(n["texte"], FinaliteConsentement(n["finalite"]), org) == [], n["texte"]

    chosen = await client.get(f"{URL}/notices", headers=membre.headers, params={"organisationId": str(other.id)})
    assert chosen.status_code == 200
    assert all(f"Responsable du traitement: {other.nom}" in n["texte"] for n in chosen.json())
    unknown = await client.get(f"{URL}/notices", headers=membre.headers, params={"organisationId": str(uuid.uuid4())})
    assert unknown.status_code == 404


@pytest.mark.parametrize("finalite", ["ADHESION_SYNDICALE", "SANTE_AIDE"])
async def test_the_consent_stores_version_2_and_the_organisation_as_read(client, factory, db, finalite):
    org = await factory.organisation(nom="Amicale des cheminots de Dakar")
    premier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    body = {"organisationId": str(org.id), "finalite": finalite, "noticeVersion": 2, "canal": "CONSOLE"}
    given = await client.post(f"{URL}/consentements", headers=premier.headers, json=body)
    assert given.status_code == 201, given.text
    assert given.json()["noticeVersion"] == 2
    row = await db.get(Consentement, uuid.UUID(given.json()["id"]))
    assert row is not None
    lu = await db.get(NoticeInformation, row.notice_id)
    assert lu is not None and lu.version == 2 and row.notice_version == 2
    assert "Responsable du traitement: Amicale des cheminots de Dakar" in lu.texte

    # Renamed, the organisation's notice reads its new name; the first member's consent keeps what he read.
    org.nom = "Amicale des cheminots du Sénégal"
    await db.flush()
    second = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    again = await client.post(f"{URL}/consentements", headers=second.headers, json=body)
    assert again.status_code == 201, again.text
    textes = (await db.execute(select(NoticeInformation.texte).where(NoticeInformation.finalite == finalite,
                                                                     NoticeInformation.version == 2))).scalars()
    noms = sorted(t.splitlines()[0] for t in textes)
    assert noms == ["Responsable du traitement: Amicale des cheminots de Dakar; contact: son secrétariat.",
                    "Responsable du traitement: Amicale des cheminots du Sénégal; contact: son secrétariat."]
    await db.refresh(lu)
    assert "cheminots de Dakar" in lu.texte
