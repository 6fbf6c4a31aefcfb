"""The register of processings (registre des traitements, Loi 2008-12: what the CDP declaration lists),
generated from the areas' own declarations (their ``traitements.py``), with, for one organisation, the CDP's
récépissé of each processing it declared (art. 18; « non déclaré » without one), and the check that ties it to the
schema: every table with columns of personal data is named by some declaration (``tables_non_couvertes``)."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime

from sqlalchemy import Table
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.config import Settings
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import NotFound, RegleMetier
from unionflow.core.permissions import Permission
from unionflow.core.roles import Role
from unionflow.core.traitements import DeclarationTraitement
from unionflow.core.visibility import organisations_as
from unionflow.donnees_personnelles import pdf
from unionflow.donnees_personnelles.ports import TRAITEMENTS
from unionflow.donnees_personnelles.repository import RecepisseTraitementRepository
from unionflow.donnees_personnelles.schemas import (
    CreateRecepisseTraitementRequest,
    RecepisseTraitementResponse,
    RegistreTraitementsResponse,
    StatutDeclaration,
    TraitementResponse,
)
from unionflow.donnees_personnelles.service import MODULE
from unionflow.models import RecepisseTraitement
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


# Who keeps an organisation's register (and reads its récépissés): RS-REGISTRE-TRAITEMENTS within the organisation.
TENEURS = frozenset({Role.ADMIN_ORGANISATION, Role.DELEGUE_PROTECTION_DONNEES})
NON_DECLARE = "non déclaré"


def _recepisse(r: RecepisseTraitement) -> RecepisseTraitementResponse:
    return RecepisseTraitementResponse(organisation_id=r.organisation_id, traitement=r.traitement,
                                       numero_recepisse=r.numero_recepisse, date_recepisse=r.date_recepisse,
                                       date_declaration=r.date_declaration, enregistre_par=r.enregistre_par,
                                       enregistre_le=r.updated_at)


def _mention(r: RecepisseTraitement | None) -> str:
    """The register's « Déclaration CDP » cell: the récépissé, or « non déclaré »."""
    if r is None:
        return NON_DECLARE
    depose = f", déclaration du {r.date_declaration:%d/%m/%Y}" if r.date_declaration else ""
    return f"Récépissé n° {r.numero_recepisse} du {r.date_recepisse:%d/%m/%Y}{depose}"


def periodes(settings: Settings) -> dict[str, int]:
    """The retention settings a declaration's ``duree_conservation`` names as ``{placeholders}``: the register
    states the periods the retention job applies on this installation, not their defaults."""
    return {"radies_ans": settings.donnees_radies_conservation_ans,
            "messages_jours": settings.donnees_messages_conservation_jours,
            "echanges_jours": settings.donnees_echanges_conservation_jours,
            "acces_jours": settings.donnees_acces_conservation_jours}


def registre(settings: Settings, recepisses: dict[str, RecepisseTraitement] | None = None,
             organisation_id: uuid.UUID | None = None) -> RegistreTraitementsResponse:
    recus, valeurs = recepisses or {}, periodes(settings)
    return RegistreTraitementsResponse(responsable=RESPONSABLE, loi=LOI, organisation_id=organisation_id, traitements=[
        TraitementResponse(code=d.code, nom=d.nom, zone=d.zone, finalite=d.finalite, base_legale=d.base_legale,
                           categories_donnees=list(d.categories_donnees),
                           personnes_concernees=list(d.personnes_concernees), destinataires=list(d.destinataires),
                           duree_conservation=d.duree_conservation.format_map(valeurs),
                           transferts_hors_senegal=d.transferts_hors_senegal,
                           donnees_sensibles=list(d.donnees_sensibles), tables=list(d.tables),
                           opposable=d.opposable, effet_opposition=d.effet_opposition,
                           statut_declaration=StatutDeclaration.DECLARE if d.code in recus
                           else StatutDeclaration.NON_DECLARE,
                           recepisse=_recepisse(recus[d.code]) if d.code in recus else None,
                           declaration_cdp=_mention(recus.get(d.code)))
        for d in TRAITEMENTS()])


class RegistreService:
    """The register for one organisation: its récépissés read by its keepers, recorded by the permission's holders."""

    def __init__(self, session: AsyncSession, auth: AuthContext, settings: Settings) -> None:
        self.session = session
        self.auth = auth
        self.settings = settings
        self.recepisses = RecepisseTraitementRepository(session)

    def organisation_par_defaut(self) -> uuid.UUID | None:
        """The organisation the caller acts for: the active one, else the only one whose register he keeps."""
        if self.auth.active_organisation_id is not None:
            return self.auth.active_organisation_id
        teneur = organisations_as(self.auth, TENEURS)
        return next(iter(teneur)) if len(teneur) == 1 else None

    async def _organisation(self, organisation_id: uuid.UUID) -> str:
        """The organisation's name, if the caller keeps its register (union-wide administrators: any); else 404."""
        organisation = await OrganisationRepository(self.session, self.auth).get(organisation_id)
        if organisation is None or not (self.auth.is_global or organisation_id in organisations_as(self.auth,
                                                                                                    TENEURS)):
            raise NotFound("Organisation introuvable")
        return organisation.nom

    async def registre(self, organisation_id: uuid.UUID | None) -> RegistreTraitementsResponse:
        organisation_id = organisation_id or self.organisation_par_defaut()
        if organisation_id is None:
            return registre(self.settings)
        await self._organisation(organisation_id)
        recus = await self.recepisses.de_l_organisation(organisation_id)
        return registre(self.settings, recus, organisation_id)

    async def pdf(self, organisation_id: uuid.UUID | None) -> bytes:
        """The register printed for the organisation (its name heads every page, its récépissés in a column)."""
        organisation_id = organisation_id or self.organisation_par_defaut()
        nom = "UnionFlow" if organisation_id is None else await self._organisation(organisation_id)
        return pdf.registre(await self.registre(organisation_id), nom, self.auth.actor_name)

    async def enregistrer_recepisse(self, code: str, data: CreateRecepisseTraitementRequest,
                                    ) -> RecepisseTraitementResponse:
        """Record (or correct) the CDP's récépissé of the organisation's declaration of processing ``code``."""
        if code not in {d.code for d in TRAITEMENTS()}:
            raise NotFound(f"Traitement inconnu du registre: {code}")
        await self._organisation(data.organisation_id)
        self.auth.require(Permission.DONNEES_RECEPISSE_ENREGISTRER, data.organisation_id,
                          "Seuls l'administrateur de l'organisation et son délégué à la protection des données "
                          "enregistrent le récépissé de la CDP")
        if data.date_recepisse > datetime.now(UTC).date():
            raise RegleMetier("dateRecepisse: un récépissé ne peut être daté dans le futur")
        if data.date_declaration is not None and data.date_declaration > data.date_recepisse:
            raise RegleMetier("dateDeclaration: la déclaration précède son récépissé")
        row = await self.recepisses.du_traitement(data.organisation_id, code)
        before = audit.snapshot(row) if row is not None else None
        if row is None:
            row = RecepisseTraitement(organisation_id=data.organisation_id, traitement=code,
                                      numero_recepisse=data.numero_recepisse, date_recepisse=data.date_recepisse,
                                      date_declaration=data.date_declaration, enregistre_par=self.auth.actor_name)
            self.recepisses.add(row)
        else:
            row.numero_recepisse, row.date_recepisse = data.numero_recepisse, data.date_recepisse
            row.date_declaration, row.enregistre_par = data.date_declaration, self.auth.actor_name
        await self.session.flush()
        await audit.record(self.session, self.auth, action="ENREGISTRER_RECEPISSE", module=MODULE,
                           entite_type="RecepisseTraitement", entite_id=row.id, organisation_id=row.organisation_id,
                           before=before, after=audit.snapshot(row),
                           description=f"Récépissé CDP n° {row.numero_recepisse} du "
                                       f"{row.date_recepisse:%d/%m/%Y} pour le traitement {code}")
        return _recepisse(row)
