"""A union's first run (« Mise en route »): what is done and what is left, computed from the database each time
(no progress table: the page resumes wherever the people stopped, whoever did the work, by console or API).

Steps: the federation; its organisations; each organisation's officers (a president and a treasurer: the second
person of the four-eyes rules); its treasuries and approved opening balances; its Wave account; its dues scale;
its members. The per-organisation steps concern the organisations that hold members (not the union or a
federation) and that the caller administers. ``restantes`` is what a home page shows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.configuration.organisation_service import ConfigurationOrganisationService
from unionflow.core.auth import AuthContext
from unionflow.core.permissions import Permission
from unionflow.core.roles import Role
from unionflow.membres.repository import MembreRepository
from unionflow.models import Organisation
from unionflow.models.approbation import StatutDemande
from unionflow.models.organisation import TypeOrganisation
from unionflow.organisations.repository import OrganisationRepository
from unionflow.tresoreries.ouverture_service import ANouveauxService
from unionflow.tresoreries.service import TresorerieService
from unionflow.wave.service import CompteWaveService

SOMMETS = (TypeOrganisation.UNION.value, TypeOrganisation.FEDERATION.value)
# Offices without which an organisation cannot work: a request is decided by someone other than its requester.
BUREAU = (Role.PRESIDENT.value, Role.TRESORIER.value)
# Organisations followed on the page (a union sets up tens, not thousands).
SUIVIES = 50


@dataclass
class EtatOrganisation:
    """Where one organisation stands; each flag is a step of its own set-up."""

    organisation: Organisation
    bureau: bool = False
    tresoreries: bool = False
    a_nouveaux: str = ""  # "" none asked, EN_ATTENTE waiting for the second person, APPROUVEE booked
    wave: bool = False
    cotisations: bool = False
    membres: int = 0  # active members holding no office


@dataclass(frozen=True)
class Etape:
    code: str
    titre: str
    lien: str  # the console's screen for this step (path under /console)
    fait: bool
    detail: str


@dataclass
class Avancement:
    etapes: list[Etape]
    organisations: list[EtatOrganisation] = field(default_factory=list)
    federation: Organisation | None = None

    @property
    def restantes(self) -> list[Etape]:
        return [e for e in self.etapes if not e.fait]


async def avancement(session: AsyncSession, auth: AuthContext) -> Avancement:
    annuaire = await OrganisationRepository(session, auth).annuaire(200)
    sommets = [o for o in annuaire if o.type_organisation in SOMMETS]
    federation = next((o for o in sommets if o.type_organisation == TypeOrganisation.FEDERATION), None)
    base = [o for o in annuaire if o.type_organisation not in SOMMETS
            and auth.can(Permission.ORGANISATION_MODIFIER, o.id)][:SUIVIES]
    etats = await _etats(session, auth, base)
    return Avancement(_etapes(federation or (sommets[0] if sommets else None), base, etats), etats, federation)


async def restantes(session: AsyncSession, auth: AuthContext) -> list[Etape]:
    """The set-up steps left, in order (empty: the union is set up)."""
    return (await avancement(session, auth)).restantes


async def _etats(session: AsyncSession, auth: AuthContext, base: list[Organisation]) -> list[EtatOrganisation]:
    effectifs = await MembreRepository(session, auth).effectifs([o.id for o in base])
    wave = {c.organisation_id for c in await CompteWaveService(session, auth).lister(None) if c.statut == "ACTIF"}
    etats = []
    for org in base:
        total, officiers, offices = effectifs.get(org.id, (0, 0, set()))
        demandes = {d.statut for d in await ANouveauxService(session, auth).lister(org.id)}
        bareme = [r for r in await ConfigurationOrganisationService(session, auth).lister(org.id)
                  if r.cle.startswith("cotisations.bareme.") and Decimal(str(r.valeur or 0)) > 0]
        etats.append(EtatOrganisation(
            org, bureau=all(role in offices for role in BUREAU),
            tresoreries=bool(await TresorerieService(session, auth).lister(org.id)),
            a_nouveaux=next((s for s in (StatutDemande.APPROUVEE, StatutDemande.EN_ATTENTE) if s in demandes), ""),
            wave=org.id in wave, cotisations=bool(bareme), membres=total - officiers))
    return etats


def _premiere(etats: list[EtatOrganisation], manque: str, suffixe: str) -> str:
    """The screen of the first organisation the step is missing for (the page itself if none)."""
    found = next((e for e in etats if not getattr(e, manque)), None)
    return f"/organisations/{found.organisation.id}{suffixe}" if found else "/mise-en-route"


def _etapes(sommet: Organisation | None, base: list[Organisation], etats: list[EtatOrganisation]) -> list[Etape]:
    def compte(attribut: str) -> tuple[bool, str]:
        n = sum(1 for e in etats if getattr(e, attribut))
        return bool(etats) and n == len(etats), f"{n} organisation(s) sur {len(etats)}"

    parent = f"&parent={sommet.id}" if sommet else ""
    orphelines = [o for o in base if o.parent_id is None]
    bureau, tresoreries, wave, cotisations = (compte(a) for a in ("bureau", "tresoreries", "wave", "cotisations"))
    ouvertes = sum(1 for e in etats if e.a_nouveaux == StatutDemande.APPROUVEE)
    attente = sum(1 for e in etats if e.a_nouveaux == StatutDemande.EN_ATTENTE)
    membres = sum(1 for e in etats if e.membres > 0)
    return [
        Etape("federation", "Créer la fédération", "/organisations/nouvelle?type=FEDERATION", sommet is not None,
              sommet.nom if sommet else "Aucune fédération"),
        Etape("organisations", "Créer ses organisations", f"/organisations/nouvelle?type=MUTUELLE{parent}",
              bool(base) and not orphelines,
              f"{len(base)} organisation(s)" + (f", {len(orphelines)} sans rattachement" if orphelines else "")),
        Etape("bureau", "Nommer les responsables (président, trésorier)", _premiere(etats, "bureau", "/bureau"),
              *bureau),
        Etape("tresoreries", "Déclarer les trésoreries et saisir les soldes d'ouverture",
              _premiere(etats, "tresoreries", "/tresoreries") if not tresoreries[0] else _ouverture(etats),
              tresoreries[0] and ouvertes == len(etats),
              f"trésoreries: {tresoreries[1]}; soldes d'ouverture approuvés: {ouvertes}"
              + (f", {attente} en attente de la seconde personne" if attente else "")),
        Etape("wave", "Enregistrer le compte Wave", _premiere(etats, "wave", "/wave"), *wave),
        Etape("cotisations", "Fixer les types et montants des cotisations",
              _premiere(etats, "cotisations", "/cotisations"), *cotisations),
        Etape("membres", "Importer les membres", "/mise-en-route#membres", bool(etats) and membres == len(etats),
              f"{membres} organisation(s) sur {len(etats)} ont des membres"),
    ]


def _ouverture(etats: list[EtatOrganisation]) -> str:
    found = next((e for e in etats if e.a_nouveaux != StatutDemande.APPROUVEE), None)
    if found is None:
        return "/mise-en-route"
    if found.a_nouveaux == StatutDemande.EN_ATTENTE:
        return "/a-approuver"
    return f"/organisations/{found.organisation.id}/tresoreries"

