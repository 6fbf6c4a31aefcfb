"""Bulk import of members into an organisation, idempotent on numéro membre, e-mail and phone.

The file is read and every line decided before anything is written: the dry run (``simulation``) and the real
run give the same report. A known person is updated and enrolled rather than duplicated; a person who belongs
only to organisations the caller does not manage is refused (they join through an adhesion of their own).
New members are numbered from one reserved block of the member counter and inserted in batches.
A real import of more lines than ``tache_seuil_import_lignes`` becomes a background task: the file is kept under
``data_dir/imports`` and the task imports it in chunks, committing each chunk with its progress.
"""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Conflict, InvalidInput, InvalidState, NotFound
from unionflow.core.numbering import reserve_values
from unionflow.core.permissions import Permission
from unionflow.imports.normalisation import LigneMembre, motifs, preparer
from unionflow.imports.parsing import lire
from unionflow.imports.repository import ImportRepository
from unionflow.imports.schemas import ActionImport, ImportMembresResponse, LigneImportResponse
from unionflow.membres.appartenance_service import normalise_roles
from unionflow.models import Membre, MembreOrganisation, Organisation
from unionflow.models.membre import StatutAppartenance
from unionflow.models.organisation import StatutOrganisation
from unionflow.models.planificateur import TypeTache
from unionflow.models.texte import cle_de, cle_recherche
from unionflow.tasks.schemas import TacheResponse
from unionflow.tasks.service import TacheService

MODULE = "MEMBRES"
CHAMPS = ("prenom", "nom", "email", "telephone", "date_naissance", "genre", "profession", "adresse", "ville",
          "pays")
# Keys a line is matched on with a known member, in this order (a phone only with the same name).
CLES = ("numero_membre", "email", "telephone")
DOUBLONS = {"numero_membre": "numéro membre", "email": "e-mail", "telephone": "téléphone et nom"}
# "<field> modifié(e)" in the report, agreed with the field's gender.
MODIFIES = {"prenom": "prénom modifié", "nom": "nom modifié", "email": "e-mail modifié",
            "telephone": "téléphone modifié", "date_naissance": "date de naissance modifiée",
            "genre": "genre modifié", "profession": "profession modifiée", "adresse": "adresse modifiée",
            "ville": "ville modifiée", "pays": "pays modifié"}
# Lines imported (and committed) per chunk by the background task.
LOT = 500
GROS_IMPORT = 1000
# (session, lines done, lines in all): called after each chunk; the task's runner commits there.
Avancement = Callable[[AsyncSession, int, int], Awaitable[None]]


def _nom(prenom: str | None, nom: str | None) -> str | None:
    """A person's name compared without accents nor case ("Élodie DIOP" is "elodie diop"), None if incomplete."""
    return cle_recherche(prenom, nom) if prenom and nom else None


def _enumerer(elements: list[str]) -> str:
    return elements[0] if len(elements) == 1 else ", ".join(elements[:-1]) + " et " + elements[-1]


def dossier_imports(data_dir: Path) -> Path:
    return data_dir / "imports"


@dataclass(frozen=True)
class Droits:
    """What the caller may do in the organisation, decided at request time and kept with a background task."""

    attribuer_roles: bool
    toutes_organisations: bool


@dataclass
class DecisionImport:
    ligne: int
    action: ActionImport
    valeurs: dict[str, Any] = field(default_factory=dict)
    roles: list[str] | None = None
    membre: Membre | None = None
    motifs: list[str] = field(default_factory=list)
    adhere: bool = False
    avertissements: list[str] = field(default_factory=list)


class ImportMembresService:
    def __init__(self, session: AsyncSession, auth: AuthContext | None, droits: Droits | None = None) -> None:
        self.session = session
        self.auth = auth
        self.droits = droits
        self.repo = ImportRepository(session)
        self._depuis_analyse = 0
        # First line of each key (numéro, e-mail, phone with name) across all chunks: a duplicate is refused in
        # any chunk.
        self._vus: dict[tuple[str, str], int] = {}
        # Lines of each phone across all chunks: a shared phone is flagged on every line after the first chunk's.
        self._telephones: dict[str, list[int]] = {}

    async def _organisation(self, organisation_id: uuid.UUID) -> Organisation:
        organisation = await self.repo.organisation(organisation_id)
        if organisation is None:
            raise NotFound("Organisation introuvable")
        if self.auth is not None:
            self.auth.require(Permission.MEMBRE_GERER, organisation.id,
                              "Seuls le secrétariat et l'administration de l'organisation importent ses membres")
        if organisation.statut != StatutOrganisation.ACTIVE:
            raise InvalidState("Organisation suspendue: aucune inscription possible")
        return organisation

    async def importer(self, organisation_id: uuid.UUID, contenu: bytes, simulation: bool, seuil: int | None = None,
                       dossier: Path | None = None) -> ImportMembresResponse | TacheResponse:
        """Inline, or for a real import of more than ``seuil`` lines a task that imports the file kept in
        ``dossier``."""
        assert self.auth is not None
        organisation = await self._organisation(organisation_id)
        self.droits = Droits(self.auth.can(Permission.ROLE_ATTRIBUER, organisation.id), self.auth.is_global)
        lignes = lire(contenu)
        if not simulation and seuil is not None and dossier is not None and len(lignes) > seuil:
            return await self._confier(organisation, contenu, len(lignes), dossier)
        decisions = await self._decider(organisation.id, organisation.pays or "SN", lignes)
        if not simulation:
            await self._appliquer(organisation.id, decisions)
            await self._auditer(organisation, contenu, decisions, f"Import de membres ({len(decisions)} lignes)")
        return self._rapport(decisions, simulation)

    async def _auditer(self, organisation: Organisation, contenu: bytes, decisions: list[DecisionImport] | None,
                       description: str, **extra: Any) -> None:
        comptes = ({a.value: sum(d.action is a for d in decisions) for a in ActionImport}
                   if decisions is not None else {})
        await audit.record(self.session, self.auth, action="IMPORTER", module=MODULE, entite_type="Organisation",
                           entite_id=organisation.id, organisation_id=organisation.id, description=description,
                           after={"fichierSha256": hashlib.sha256(contenu).hexdigest(), **extra, **comptes})

    async def _confier(self, organisation: Organisation, contenu: bytes, nombre: int,
                       dossier: Path) -> TacheResponse:
        assert self.droits is not None and self.auth is not None
        nom = f"{uuid.uuid4()}.import"
        await asyncio.to_thread(dossier.mkdir, parents=True, exist_ok=True)
        await asyncio.to_thread((dossier / nom).write_bytes, contenu)
        tache = await TacheService(self.session, self.auth).creer(
            TypeTache.IMPORT_MEMBRES, {"organisationId": str(organisation.id), "fichier": nom,
                                       "attribuerRoles": self.droits.attribuer_roles,
                                       "toutesOrganisations": self.droits.toutes_organisations},
            organisation.id, nombre)
        await self._auditer(organisation, contenu, None, f"Import de membres ({nombre} lignes) confié à la tâche "
                                                       f"{tache.id}", tache=str(tache.id))
        return tache

    async def importer_par_lots(self, organisation_id: uuid.UUID, contenu: bytes, avancement: Avancement,
                                tache_id: uuid.UUID) -> ImportMembresResponse:
        """The background task's import, ``LOT`` lines at a time; the report keeps the refused and flagged lines
        only."""
        organisation = await self._organisation(organisation_id)
        lignes = lire(contenu)
        toutes: list[DecisionImport] = []
        refusees: list[LigneImportResponse] = []
        for debut in range(0, len(lignes), LOT):
            decisions = await self._decider(organisation.id, organisation.pays or "SN", lignes[debut:debut + LOT],
                                            premiere=debut + 2)
            await self._appliquer(organisation.id, decisions)
            refusees += [lg for lg in self._rapport(decisions, False).lignes
                         if lg.action is ActionImport.REFUSER or lg.avertissements]
            # Only what the counts need is kept: the chunk's members may be released.
            toutes += [DecisionImport(d.ligne, d.action) for d in decisions]
            await avancement(self.session, min(debut + LOT, len(lignes)), len(lignes))
        await self._auditer(organisation, contenu, toutes, f"Import de membres ({len(toutes)} lignes, tâche "
                                                           f"{tache_id})", tache=str(tache_id))
        rapport = self._rapport(toutes, False)
        return rapport.model_copy(update={"lignes": refusees})

    async def _decider(self, organisation_id: uuid.UUID, pays: str, lignes: list[dict[str, str]],
                       premiere: int = 2) -> list[DecisionImport]:
        assert self.droits is not None
        peut_attribuer = self.droits.attribuer_roles
        decisions: list[DecisionImport] = []
        for numero, brute in enumerate(lignes, start=premiere):
            if not brute:
                continue
            decision = DecisionImport(numero, ActionImport.CREER)
            try:
                decision.valeurs = LigneMembre.model_validate(preparer(brute, pays)).model_dump(exclude_none=True)
            except ValidationError as exc:
                decision.action, decision.motifs = ActionImport.REFUSER, motifs(exc)
                # The refused line keeps the name typed, so the secretary knows whom to correct.
                decision.valeurs = {c: brute[c].strip() for c in ("prenom", "nom") if (brute.get(c) or "").strip()}
            if brute.get("numero_membre"):
                decision.valeurs["numero_membre"] = brute["numero_membre"].upper()
            if "roles" in brute:
                try:
                    decision.roles = normalise_roles(r.strip().upper() for r in brute["roles"].split(",") if r.strip())
                except InvalidInput as exc:
                    decision.action = ActionImport.REFUSER
                    decision.motifs.append(exc.detail)
                if decision.roles and set(decision.roles) != {"MEMBRE"} and not peut_attribuer:
                    decision.action = ActionImport.REFUSER
                    decision.motifs.append("Seul l'administrateur de l'organisation attribue des rôles")
            decisions.append(decision)
        await self._rapprocher(organisation_id, decisions)
        return decisions

    async def _rapprocher(self, organisation_id: uuid.UUID, decisions: list[DecisionImport]) -> None:
        """Match each line with a known member (numéro, then e-mail, then phone with the same name) and refuse
        duplicates in the file. A phone alone identifies no one: families share one, so lines and members
        sharing a phone are allowed and flagged (``avertissements``), not refused."""
        valides = [d for d in decisions if d.action is not ActionImport.REFUSER]
        cles = {c: {str(d.valeurs[c]) for d in valides if c in d.valeurs} for c in CLES}
        connus = {c: await self.repo.membres_par(getattr(Membre, c), cles[c]) for c in cles}
        for d in valides:
            if "telephone" in d.valeurs:
                self._telephones.setdefault(str(d.valeurs["telephone"]), []).append(d.ligne)
        for d in valides:
            refus = self._doublons(d)
            candidats = {c: connus[c].get(str(d.valeurs[c]), []) for c in cles if c in d.valeurs}
            if "numero_membre" in d.valeurs and not candidats["numero_membre"]:
                refus.append(f"numéro membre inconnu: {d.valeurs['numero_membre']}")
            nom = _nom(d.valeurs.get("prenom"), d.valeurs.get("nom"))
            meme_nom = [m for m in candidats.get("telephone", []) if nom is None or _nom(m.prenom, m.nom) == nom]
            if len(meme_nom) > 1 and not (candidats.get("numero_membre") or candidats.get("email")):
                refus.append("plusieurs membres de ce nom ont ce téléphone: précisez le numéro membre ou l'e-mail")
            trouves = {m.id: m for m in [*candidats.get("numero_membre", [])[:1], *candidats.get("email", [])[:1],
                                         *meme_nom[:1]]}
            if len(trouves) > 1:
                refus.append("le numéro membre, l'e-mail et le téléphone désignent des membres différents")
            if refus:
                d.action, d.motifs = ActionImport.REFUSER, refus
                continue
            d.membre = next(iter(trouves.values()), None)
            if d.membre is None and not ("prenom" in d.valeurs and "nom" in d.valeurs):
                d.action, d.motifs = ActionImport.REFUSER, ["prénom et nom obligatoires pour un nouveau membre"]
                continue
            d.avertissements = self._partages(d, candidats.get("telephone", []))
        await self._comparer(organisation_id, [d for d in valides if d.membre is not None
                                               and d.action is not ActionImport.REFUSER])

    def _doublons(self, d: DecisionImport) -> list[str]:
        """The same numéro or e-mail, or the same phone with the same name, on an earlier line (any chunk)."""
        refus = []
        for c in CLES:
            if c in d.valeurs:
                valeur = str(d.valeurs[c])
                if c == "telephone":
                    valeur += "|" + (_nom(d.valeurs.get("prenom"), d.valeurs.get("nom")) or "")
                premiere = self._vus.setdefault((c, valeur), d.ligne)
                if premiere != d.ligne:
                    refus.append(f"doublon de la ligne {premiere} ({DOUBLONS[c]})")
        return refus

    def _partages(self, d: DecisionImport, membres: list[Membre]) -> list[str]:
        """Who else has the line's phone: other lines of the file, members already registered."""
        if "telephone" not in d.valeurs:
            return []
        avis = []
        lignes = [str(n) for n in self._telephones.get(str(d.valeurs["telephone"]), []) if n != d.ligne]
        if lignes:
            avis.append("téléphone partagé avec " + ("la ligne " if len(lignes) == 1 else "les lignes ")
                        + _enumerer(lignes))
        autres = [f"{m.prenom} {m.nom} ({m.numero_membre})" for m in membres if m is not d.membre]
        if autres:
            reste = len(autres) - 3
            avis.append("téléphone partagé avec " + _enumerer(autres[:3] + ([f"{reste} autre" + "s" * (reste > 1)]
                                                                            if reste > 0 else [])))
        return avis

    async def _comparer(self, organisation_id: uuid.UUID, existants: list[DecisionImport]) -> None:
        appartenances = await self.repo.appartenances(organisation_id, {d.membre.id for d in existants if d.membre})
        for d in existants:
            assert d.membre is not None
            appartenance = appartenances.get(d.membre.id)
            if appartenance is None and not (self.droits and self.droits.toutes_organisations):
                d.action, d.avertissements = ActionImport.REFUSER, []
                d.motifs = ["ce membre appartient à une autre organisation: il rejoint la vôtre par une demande "
                            "d'adhésion"]
                continue
            changes = [c for c in CHAMPS if c in d.valeurs and d.valeurs[c] != getattr(d.membre, c)]
            d.motifs = [MODIFIES[c] for c in changes]
            d.adhere = appartenance is None or appartenance.statut != StatutAppartenance.ACTIF
            if d.adhere:
                d.motifs.append("adhésion à l'organisation")
            elif appartenance is not None and d.roles is not None and sorted(appartenance.roles or []) != d.roles:
                d.motifs.append("rôles modifiés")
            d.action = ActionImport.METTRE_A_JOUR if d.motifs else ActionImport.INCHANGE

    async def _appliquer(self, organisation_id: uuid.UUID, decisions: list[DecisionImport]) -> None:
        now, today = datetime.now(UTC), date.today()
        nouveaux = [d for d in decisions if d.action is ActionImport.CREER]
        membres, adhesions = [], []
        if nouveaux:
            premier = await reserve_values(self.session, f"MBR-{today.year}", len(nouveaux))
            for i, d in enumerate(nouveaux):
                membre_id = uuid.uuid4()
                d.valeurs["numero_membre"] = f"MBR-{today.year}-{premier + i:06d}"
                valeurs = {c: d.valeurs.get(c) for c in CHAMPS}
                membres.append({**valeurs, "id": membre_id, "statut": "ACTIF", "recherche": cle_de(Membre, valeurs),
                                "numero_membre": d.valeurs["numero_membre"], "created_at": now, "updated_at": now})
                adhesions.append(self._appartenance(membre_id, organisation_id, d.roles, now, today))
        try:
            async with self.session.begin_nested():
                await self.repo.inserer(Membre, membres)
                await self.repo.inserer(MembreOrganisation, adhesions)
                await self._mettre_a_jour(organisation_id, decisions, now, today)
            # Every GROS_IMPORT new members (a large file, or a task's batches added up), the planner's statistics
            # follow, so that the next lookups (this import's later batches, the next import) use the indexes.
            self._depuis_analyse += len(membres)
            if self._depuis_analyse >= GROS_IMPORT:
                await self.repo.rafraichir_statistiques()
                self._depuis_analyse = 0
        except IntegrityError as exc:
            raise Conflict("Un membre du fichier a été enregistré entre-temps (e-mail déjà utilisé): relancez "
                           "l'import, les lignes déjà importées seront reconnues") from exc

    async def _mettre_a_jour(self, organisation_id: uuid.UUID, decisions: list[DecisionImport], now: datetime,
                             today: date) -> None:
        a_jour = [d for d in decisions if d.action is ActionImport.METTRE_A_JOUR and d.membre is not None]
        appartenances = await self.repo.appartenances(organisation_id, {d.membre.id for d in a_jour if d.membre})
        for d in a_jour:
            assert d.membre is not None
            for c in CHAMPS:
                if c in d.valeurs:
                    setattr(d.membre, c, d.valeurs[c])
            appartenance = appartenances.get(d.membre.id)
            if appartenance is None:
                await self.repo.inserer(MembreOrganisation, [self._appartenance(d.membre.id, organisation_id,
                                                                                d.roles, now, today)])
            else:
                if d.adhere:
                    appartenance.statut, appartenance.date_fin = "ACTIF", None
                if d.roles is not None:
                    appartenance.roles = d.roles
        await self.session.flush()

    @staticmethod
    def _appartenance(membre_id: uuid.UUID, organisation_id: uuid.UUID, roles: list[str] | None, now: datetime,
                      today: date) -> dict[str, Any]:
        return {"id": uuid.uuid4(), "membre_id": membre_id, "organisation_id": organisation_id,
                "roles": roles or ["MEMBRE"], "statut": "ACTIF", "date_debut": today, "created_at": now,
                "updated_at": now}

    @staticmethod
    def _rapport(decisions: list[DecisionImport], simulation: bool) -> ImportMembresResponse:
        lignes = [LigneImportResponse(ligne=d.ligne, action=d.action,
                                      numero_membre=(d.membre.numero_membre if d.membre
                                                     else d.valeurs.get("numero_membre")),
                                      nom=" ".join(str(d.valeurs[c]) for c in ("prenom", "nom") if c in d.valeurs)
                                      or None, motifs=d.motifs, avertissements=d.avertissements)
                  for d in decisions]
        compte = {a: sum(d.action is a for d in decisions) for a in ActionImport}
        return ImportMembresResponse(simulation=simulation, total=len(decisions), crees=compte[ActionImport.CREER],
                                     mis_a_jour=compte[ActionImport.METTRE_A_JOUR],
                                     inchanges=compte[ActionImport.INCHANGE], refuses=compte[ActionImport.REFUSER],
                                     lignes=lignes)
