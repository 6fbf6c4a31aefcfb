"""Exports: decide the scoped statement and the columns, count the rows and audit the download, all in the
request's transaction, before a single byte leaves (a broken download is still on record). The file itself
is written while it is sent (formats.py)."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import asdict
from datetime import date
from typing import Any

from pydantic import TypeAdapter
from sqlalchemy import Select
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import NotFound, RegleMetier
from unionflow.core.libelles import (
    GENRE,
    METHODE_PAIEMENT,
    STATUT_ADHESION,
    STATUT_APPARTENANCE,
    STATUT_COTISATION,
    STATUT_MEMBRE,
    STATUT_PAIEMENT,
    TYPE_COTISATION,
)
from unionflow.cotisations.repository import statut_effectif
from unionflow.cotisations.service import today_utc
from unionflow.export.formats import XLSX_MAX_ROWS, Column, ExportPlan, FormatExport, Kind, VentilationExport
from unionflow.export.repository import (
    AdhesionExportFilters,
    AuditExportFilters,
    CotisationExportFilters,
    EcritureExportFilters,
    ExportRepository,
    MembreExportFilters,
    PaiementExportFilters,
    Periode,
)
from unionflow.models.cotisation import StatutCotisation
from unionflow.models.planificateur import TypeTache
from unionflow.tasks.schemas import TacheResponse
from unionflow.tasks.service import TacheService

# Export name (as in the file name and the audit entry) → its filters and the ExportService method.
EXPORTS: dict[str, tuple[type[Any], str]] = {
    "membres": (MembreExportFilters, "membres"),
    "cotisations": (CotisationExportFilters, "cotisations"),
    "paiements": (PaiementExportFilters, "paiements"),
    "adhesions": (AdhesionExportFilters, "adhesions"),
    "grand-livre": (EcritureExportFilters, "ecritures"),
    "journal-audit": (AuditExportFilters, "audit"),
}


def parametres_tache(auth: AuthContext, name: str, fmt: FormatExport, filters: Any, today: date) -> dict[str, Any]:
    return {
        "export": name, "format": fmt.value, "date": today.isoformat(),
        "filtres": TypeAdapter(type(filters)).dump_python(filters, mode="json"),
        "appelant": {
            "sub": auth.sub, "issuer": auth.issuer, "email": auth.email, "username": auth.username,
            "realmRoles": sorted(auth.realm_roles), "roles": sorted(auth.roles),
            "membreId": str(auth.membre_id) if auth.membre_id else None,
            "memberships": {str(org): sorted(roles) for org, roles in auth.memberships.items()},
            "activeOrganisationId": str(auth.active_organisation_id) if auth.active_organisation_id else None,
            "activeRole": auth.active_role,
        },
    }


MODULE = "EXPORT"
N, D, DT, DTM = Kind.INT, Kind.DECIMAL, Kind.DATE, Kind.DATETIME

MEMBRE_COLUMNS = [
    Column("Numéro membre"), Column("Nom"), Column("Prénom"), Column("Genre", labels=GENRE),
    Column("Date de naissance", DT),
    Column("Email"), Column("Téléphone"), Column("Profession"), Column("Adresse"), Column("Ville"), Column("Pays"),
    Column("Statut membre", labels=STATUT_MEMBRE), Column("Organisation"),
    Column("Statut appartenance", labels=STATUT_APPARTENANCE), Column("Rôles"),
    Column("Date d'entrée", DT), Column("Date de sortie", DT), Column("Créé le (UTC)", DTM),
]
COTISATION_COLUMNS = [
    Column("Référence"), Column("Organisation"), Column("Numéro membre"), Column("Nom"), Column("Prénom"),
    Column("Type", labels=TYPE_COTISATION), Column("Libellé"), Column("Année", N), Column("Mois", N),
    Column("Échéance", DT),
    Column("Montant dû", D), Column("Montant payé", D), Column("Reste à payer", D), Column("Devise"),
    Column("Statut", labels=STATUT_COTISATION), Column("Payée le (UTC)", DTM),
    Column("Méthode de paiement", labels=METHODE_PAIEMENT), Column("Référence paiement"),
]
PAIEMENT_COLUMNS = [
    Column("Numéro de reçu"), Column("Date (UTC)", DTM), Column("Organisation"), Column("Numéro membre"),
    Column("Nom"), Column("Prénom"), Column("Méthode", labels=METHODE_PAIEMENT),
    Column("Statut", labels=STATUT_PAIEMENT), Column("Montant", D),
    Column("Montant non affecté", D), Column("Devise"), Column("Référence externe"), Column("Enregistré par"),
    Column("Commentaire"),
]
# the workbook's "Total" is the money collected (validated payments); cancelled and refunded receipts
# are totalled apart, and what was never received (pending, failed, expired) is not collected money.
VENTILATION_PAIEMENTS = VentilationExport(colonne=7, groupes=(
    ("Total", frozenset({"VALIDE"}), "Encaissé (validés)"),
    ("Annulés", frozenset({"ANNULE"}), "Annulés, hors total"),
    ("Remboursés", frozenset({"REMBOURSE"}), "Remboursés, hors total"),
    ("Non encaissés", frozenset({"EN_ATTENTE", "ECHOUE", "EXPIRE"}), "En attente, échoués ou expirés, hors total"),
))
ADHESION_COLUMNS = [
    Column("Référence"), Column("Organisation"), Column("Numéro membre"), Column("Nom"), Column("Prénom"),
    Column("Date de demande", DT), Column("Statut", labels=STATUT_ADHESION), Column("Frais d'adhésion", D),
    Column("Montant payé", D),
    Column("Devise"), Column("Approuvée le (UTC)", DTM), Column("Approuvée par"), Column("Rejetée le (UTC)", DTM),
    Column("Motif de rejet"), Column("Payée le (UTC)", DTM), Column("Méthode de paiement", labels=METHODE_PAIEMENT),
]
ECRITURE_COLUMNS = [
    Column("Date", DT), Column("Journal"), Column("Numéro de pièce"), Column("Référence pièce"),
    Column("Libellé écriture"), Column("Compte"), Column("Intitulé du compte"), Column("Libellé ligne"),
    Column("Débit", D), Column("Crédit", D), Column("Organisation"),
]
AUDIT_COLUMNS = [
    Column("Date (UTC)", DTM), Column("Utilisateur"), Column("Rôle actif"), Column("Organisation (id)"),
    Column("Module"), Column("Action"), Column("Sévérité"), Column("Entité"), Column("Entité (id)"),
    Column("Description"), Column("Adresse IP"), Column("Détails"),
]


def _same(row: Sequence[Any]) -> Sequence[Any]:
    return tuple(row)


def _filters(data: Any) -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in asdict(data).items():
        if isinstance(value, dict):
            flat.update({f"{key}_{k}": v for k, v in value.items() if v is not None})
        elif value is not None:
            flat[key] = value
    return flat


def check_periode(periode: Periode) -> None:
    if periode.debut and periode.fin and periode.debut > periode.fin:
        raise RegleMetier("dateDebut doit précéder ou égaler dateFin")


class ExportService:
    def __init__(self, session: AsyncSession, auth: AuthContext, today: date | None = None, *,
                 seuil_tache: int | None = None, auditer: bool = True) -> None:
        """``seuil_tache``: above this many rows the export becomes a background task (request side);
        ``auditer=False`` is that task rebuilding the plan the request already audited."""
        self.session = session
        self.auth = auth
        self.today = today or today_utc()
        self.repo = ExportRepository(session, auth, self.today)
        self.seuil_tache = seuil_tache
        self.auditer = auditer

    def _audit_organisation(self, organisation_id: uuid.UUID | None) -> uuid.UUID | None:
        """The organisation the entry is filed under, so that organisation's administrators read it."""
        if organisation_id is not None:
            return organisation_id
        staff = self.auth.staff_organisations
        return next(iter(staff)) if len(staff) == 1 else None

    async def _plan(self, name: str, fmt: FormatExport, columns: list[Column], statement: Select[Any],
                    filters: Any, *, entite: str, transform: Callable[[Sequence[Any]], Sequence[Any]] = _same,
                    personal: bool = False, organisation_id: uuid.UUID | None = None,
                    ventilation: VentilationExport | None = None) -> ExportPlan | TacheResponse:
        rows = await self.repo.count(statement)
        if fmt is FormatExport.XLSX and rows > XLSX_MAX_ROWS:
            raise RegleMetier(f"{rows} lignes dépassent la limite d'une feuille Excel ({XLSX_MAX_ROWS}); "
                               "exportez en CSV ou restreignez les filtres")
        plan = ExportPlan(name=name, fmt=fmt, columns=columns, statement=statement, transform=transform, rows=rows,
                          ventilation=ventilation)
        if not self.auditer:
            return plan
        after: dict[str, Any] = {"export": name, "format": fmt.value, "fichier": plan.filename, "lignes": rows,
                                 "filtres": _filters(filters)}
        tache: TacheResponse | None = None
        if self.seuil_tache is not None and rows > self.seuil_tache:
            tache = await TacheService(self.session, self.auth).creer(
                TypeTache.EXPORT, parametres_tache(self.auth, name, fmt, filters, self.today),
                self._audit_organisation(organisation_id), rows)
            after["tache"] = tache.id
        await audit.record(
            self.session, self.auth, action="EXPORTER", module=MODULE, entite_type=entite,
            description=f"Export {name} ({fmt.value.upper()}): {rows} ligne(s)"
                        + (f", confié à la tâche {tache.id}" if tache else ""),
            after=after,
            # Personal data leaving the system is what a data-protection review looks for first.
            severite="WARNING" if personal else "INFO",
            organisation_id=self._audit_organisation(organisation_id))
        return tache or plan

    async def membres(self, f: MembreExportFilters, fmt: FormatExport) -> ExportPlan | TacheResponse:
        return await self._plan("membres", fmt, MEMBRE_COLUMNS, self.repo.membres(f), f, entite="Membre",
                                personal=True, organisation_id=f.organisation_id)

    async def cotisations(self, f: CotisationExportFilters, fmt: FormatExport) -> ExportPlan | TacheResponse:
        today = self.today

        def transform(r: Sequence[Any]) -> Sequence[Any]:
            statut = statut_effectif(r[13], r[9], today)
            reste = 0 if statut == StatutCotisation.ANNULEE else max(r[10] - r[11], 0)
            return (*r[:12], reste, r[12], statut, *r[14:])

        return await self._plan("cotisations", fmt, COTISATION_COLUMNS, self.repo.cotisations(f), f,
                                entite="Cotisation", transform=transform, organisation_id=f.organisation_id)

    async def paiements(self, f: PaiementExportFilters, fmt: FormatExport) -> ExportPlan | TacheResponse:
        check_periode(f.periode)
        return await self._plan("paiements", fmt, PAIEMENT_COLUMNS, self.repo.paiements(f), f, entite="Paiement",
                                organisation_id=f.organisation_id, ventilation=VENTILATION_PAIEMENTS)

    async def adhesions(self, f: AdhesionExportFilters, fmt: FormatExport) -> ExportPlan | TacheResponse:
        check_periode(f.periode)
        return await self._plan("adhesions", fmt, ADHESION_COLUMNS, self.repo.adhesions(f), f, entite="Adhesion",
                                organisation_id=f.organisation_id)

    async def ecritures(self, f: EcritureExportFilters, fmt: FormatExport) -> ExportPlan | TacheResponse:
        check_periode(f.periode)
        if f.journal_id is not None and not await self.repo.journal_visible(f.journal_id):
            raise NotFound("Journal introuvable")
        return await self._plan("grand-livre", fmt, ECRITURE_COLUMNS, self.repo.ecritures(f), f,
                                entite="EcritureComptable", organisation_id=f.organisation_id)

    async def audit(self, f: AuditExportFilters, fmt: FormatExport) -> ExportPlan | TacheResponse:
        check_periode(f.periode)
        # The trail names users and IP addresses: personal data.
        return await self._plan("journal-audit", fmt, AUDIT_COLUMNS, self.repo.audit(f), f, entite="AuditLog",
                                personal=True)
