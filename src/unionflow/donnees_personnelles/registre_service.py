"""The register of processings (registre des traitements, Loi 2008-12: what the CDP declaration lists),
generated from the areas' own declarations (their ``traitements.py``), and the check that ties it to the schema:
every table with columns of personal data is named by some declaration (``tables_non_couvertes``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy import Table
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core.auth import AuthContext
from unionflow.core.traitements import DeclarationTraitement
from unionflow.donnees_personnelles import pdf
from unionflow.donnees_personnelles.ports import TRAITEMENTS
from unionflow.donnees_personnelles.schemas import RegistreTraitementsResponse, TraitementResponse
from unionflow.organisations.repository import OrganisationRepository

LOI = "Loi n° 2008-12 du 25 janvier 2008 portant sur la protection des données à caractère personnel (Sénégal)"
RESPONSABLE = ("Chaque organisation utilisatrice pour ses membres (responsable du traitement); l'exploitant d'une "
               "instance hébergée d'UnionFlow est son sous-traitant")
# Column names that hold data about a natural person. ``nom`` alone is a person's name only beside ``prenom``
# (an organisation, a treasury or a job also have a ``nom``).
COLONNES_PERSONNELLES = frozenset({"prenom", "email", "telephone", "adresse", "date_naissance", "lieu_naissance",
                                   "profession", "ip_address", "user_agent", "username", "numero_telephone"})
SUFFIXES_PERSONNELS = ("_nom", "_telephone", "_email")
PREFIXES_PERSONNELS = ("telephone_", "email_")
# Tables whose matching columns are not about a natural person (the reason is the register's answer to an auditor).
HORS_REGISTRE = {
    "organisation": "coordonnées d'une personne morale (l'organisation), pas d'une personne physique",
    "evenement": "adresse du lieu d'un événement",
}


def colonnes_personnelles(table: Table) -> list[str]:
    noms = {c.name for c in table.columns}
    found = [n for n in sorted(noms) if n in COLONNES_PERSONNELLES or n.endswith(SUFFIXES_PERSONNELS)
             or n.startswith(PREFIXES_PERSONNELS)]
    if "nom" in noms and "prenom" in noms:
        found.append("nom")
    return found


def tables_non_couvertes(tables: Iterable[Table], traitements: Sequence[DeclarationTraitement]) -> dict[str, list[str]]:
    """Tables with personal columns that no declaration names (and that ``HORS_REGISTRE`` does not explain)."""
    couvertes = {t for d in traitements for t in d.tables}
    return {t.name: cols for t in tables if (cols := colonnes_personnelles(t))
            and t.name not in couvertes and t.name not in HORS_REGISTRE}


def registre() -> RegistreTraitementsResponse:
    return RegistreTraitementsResponse(responsable=RESPONSABLE, loi=LOI, traitements=[
        TraitementResponse(code=d.code, nom=d.nom, zone=d.zone, finalite=d.finalite, base_legale=d.base_legale,
                           categories_donnees=list(d.categories_donnees),
                           personnes_concernees=list(d.personnes_concernees), destinataires=list(d.destinataires),
                           duree_conservation=d.duree_conservation, transferts_hors_senegal=d.transferts_hors_senegal,
                           donnees_sensibles=list(d.donnees_sensibles), tables=list(d.tables),
                           opposable=d.opposable, effet_opposition=d.effet_opposition)
        for d in TRAITEMENTS()])


async def registre_pdf(session: AsyncSession, auth: AuthContext) -> bytes:
    """The register printed for the organisation the caller acts for (its name heads every page)."""
    nom = "UnionFlow"
    if auth.active_organisation_id is not None:
        organisation = await OrganisationRepository(session, auth).get(auth.active_organisation_id)
        nom = organisation.nom if organisation is not None else nom
    return pdf.registre(registre(), nom, auth.actor_name)
