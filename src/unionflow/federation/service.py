"""The federation's roll-up (docs/federation.md).

Perimeter: the federation and every organisation under it (``parent_id``, recursively, suspended ones included).
Who reads it: global roles, and whoever acts in the federation — or in an organisation above it — as its
administrator, president, treasurer or auditor (``core.visibility.organisations_as``, the rule every
"where do I act with these roles" question uses). A mutual's treasurer acts in his mutual only: the federation's
consolidation, which shows his sister mutuals, is refused to him (403; an organisation outside the directory he
sees is a 404).
"""

from __future__ import annotations

import re
import uuid
from datetime import UTC, date, datetime
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.comptabilite.etats.encaisse import encaisse_organisations
from unionflow.comptabilite.etats.repository import EtatsRepository, SoldeCompte
from unionflow.compte.repository import CompteRepository
from unionflow.config import Settings
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Forbidden, NotFound, RegleMetier
from unionflow.core.pagination import Page, PageParams
from unionflow.core.roles import Role
from unionflow.core.visibility import organisations_as, staff_sees
from unionflow.federation.etats import etats_consolides
from unionflow.federation.repository import ConsolidationRepository
from unionflow.federation.schemas import (
    ChiffresOrganisation,
    ConsolidationResponse,
    CreateQuotePartRequest,
    EtatsConsolidesResponse,
    TresorerieOrganisation,
)
from unionflow.models import Organisation
from unionflow.models.versement import ModeVersement, ObjetVersement
from unionflow.organisations.repository import ArborescenceRepository, OrganisationRepository
from unionflow.paiements.versements.quote_part_repository import QuotePartRepository
from unionflow.paiements.versements.schemas import PHONE_PATTERN, CreateVersementRequest, VersementResponse
from unionflow.paiements.versements.service import VersementService

ZERO = Decimal("0")
# Roles that read a federation's consolidation where they act (in it or above it).
ROLES_CONSOLIDATION = (Role.ADMIN_ORGANISATION, Role.PRESIDENT, Role.TRESORIER, Role.COMMISSAIRE_AUX_COMPTES)


def periode(debut: date | None, fin: date | None) -> tuple[date, date]:
    """Default: from the 1st of January of ``fin``'s year to today (UTC)."""
    fin = fin or datetime.now(UTC).date()
    debut = debut or date(fin.year, 1, 1)
    if debut > fin:
        raise RegleMetier("dateDebut doit précéder dateFin")
    return debut, fin


class FederationService:
    def __init__(self, session: AsyncSession, auth: AuthContext, settings: Settings | None = None) -> None:
        self.session = session
        self.auth = auth
        self.settings = settings
        self.arbre = ArborescenceRepository(session)

    async def perimetre(self, federation_id: uuid.UUID) -> tuple[Organisation, list[Organisation]]:
        """The federation and its descendants, once the caller is known to read them (404, then 403)."""
        federation = await OrganisationRepository(self.session, self.auth).get(federation_id)
        if federation is None:
            raise NotFound("Fédération introuvable")
        if not self.auth.is_global:
            miennes = organisations_as(self.auth, ROLES_CONSOLIDATION)
            if federation.id not in miennes and miennes.isdisjoint(await self.arbre.ancetres(federation.id)):
                raise Forbidden("La consolidation est réservée au bureau de la fédération (administrateur, "
                                "président, trésorier, commissaire aux comptes)")
        return federation, [federation, *await self.arbre.descendants(federation.id)]

    async def consolidation(self, federation_id: uuid.UUID, debut: date | None, fin: date | None
                            ) -> ConsolidationResponse:
        debut, fin = periode(debut, fin)
        federation, organisations = await self.perimetre(federation_id)
        chiffres = await self._chiffres(organisations, debut, fin)
        return ConsolidationResponse(federation_id=federation.id, federation=federation.nom, date_debut=debut,
                                     date_fin=fin, devise=federation.devise, organisations=chiffres,
                                     total=_total(chiffres), calcule_le=datetime.now(UTC))

    async def _chiffres(self, organisations: list[Organisation], debut: date, fin: date
                        ) -> list[ChiffresOrganisation]:
        """Each organisation's figures, from the repositories of the areas that own them: one grouped query per
        figure for all the organisations, not one per organisation (docs/performance.md, scale scenarios)."""
        ids = [o.id for o in organisations]
        compte = CompteRepository(self.session)
        # The one « encaissé » (comptabilite/etats/encaisse.py): the organisation's books over the period.
        collected = await encaisse_organisations(self.session, ids, debut, fin)
        # Arrears as they stand at the end of the period, or today if it ends later.
        arrete = min(fin, datetime.now(UTC).date())
        retards = await compte.organisations_dues(ids, arrete.year, arrete)
        soldes = await EtatsRepository(self.session).soldes_organisations(ids, None, fin, classe=5)
        membres = await compte.active_members_par_organisation(ids)
        chiffres = []
        for organisation in organisations:
            tresorerie = [TresorerieOrganisation(numero_compte=s.numero, libelle=s.libelle, solde=_solde(s))
                          for s in soldes.get(organisation.id, [])]
            encaisse, retard = collected[organisation.id], retards[organisation.id]
            chiffres.append(ChiffresOrganisation(
                organisation_id=organisation.id, nom=organisation.nom,
                type_organisation=organisation.type_organisation, parent_id=organisation.parent_id,
                membres_actifs=membres.get(organisation.id, 0), cotisations_encaissees=encaisse.cotisations,
                adhesions_encaissees=encaisse.adhesions, cotisations_en_retard=retard["nombre_en_retard"],
                montant_en_retard=retard["montant_en_retard"], membres_en_retard=retard["membres_en_retard"],
                tresorerie=tresorerie, tresorerie_totale=sum((t.solde for t in tresorerie), ZERO)))
        return chiffres

    async def etats(self, federation_id: uuid.UUID, debut: date | None, fin: date | None
                    ) -> EtatsConsolidesResponse:
        debut, fin = periode(debut, fin)
        federation, organisations = await self.perimetre(federation_id)
        ids = [o.id for o in organisations]
        balances, resultats, cumuls = await EtatsRepository(self.session).soldes_consolides(ids, debut, fin)
        numeros = await QuotePartRepository(self.session).internes(ids)
        pieces = [*numeros, *(f"ANN-{n}" for n in numeros)]
        eliminations = await ConsolidationRepository(self.session).eliminations(ids, pieces, debut, fin)
        return etats_consolides(federation, organisations, {i: balances.get(i, []) for i in ids},
                                {i: resultats.get(i, []) for i in ids}, {i: cumuls.get(i, []) for i in ids},
                                eliminations, numeros, debut=debut, fin=fin)

    async def quotes_parts_recues(self, federation_id: uuid.UUID, params: PageParams) -> Page[VersementResponse]:
        """What the federation's bureau sees of its members' payouts: the quote-parts paid to it."""
        federation, _ = await self.perimetre(federation_id)
        rows, total, exact = await QuotePartRepository(self.session).recues(federation.id, params)
        return Page[VersementResponse].build([VersementResponse.model_validate(r) for r in rows], params, total,
                                             exact)

    async def federation_du_payeur(self, organisation_id: uuid.UUID) -> str | None:
        """The name of the federation an organisation pays its quote-part to (None: no parent, or not visible)."""
        payeur = await OrganisationRepository(self.session, self.auth).get(organisation_id)
        if payeur is None or payeur.parent_id is None or not staff_sees(self.auth, payeur.id):
            return None
        federation = await self.arbre.get(payeur.parent_id)
        return federation.nom if federation is not None else None

    async def verser_quote_part(self, data: CreateQuotePartRequest) -> VersementResponse:
        """A quote-part to the payer's federation: a payout of object QUOTE_PART (four-eyes confirmation and
        approval above the threshold as every payout), booked on both sides when delivered."""
        payeur = await OrganisationRepository(self.session, self.auth).get(data.organisation_id)
        if payeur is None or not staff_sees(self.auth, payeur.id):
            raise NotFound("Organisation introuvable")
        if payeur.parent_id is None:
            raise RegleMetier(f"{payeur.nom} ne dépend d'aucune fédération: une quote-part se verse à "
                              "l'organisation parente")
        federation = await self.arbre.get(payeur.parent_id)
        assert federation is not None  # a foreign key
        telephone = data.beneficiaire_telephone or _e164(federation.telephone)
        if data.mode == ModeVersement.WAVE and telephone is None:
            raise RegleMetier(f"beneficiaireTelephone est obligatoire: {federation.nom} n'a pas de numéro Wave "
                              "enregistré")
        demande = CreateVersementRequest(
            organisation_id=payeur.id, montant=data.montant, devise=data.devise, mode=data.mode,
            objet_type=ObjetVersement.QUOTE_PART, motif=data.motif, beneficiaire_nom=federation.nom[:200],
            beneficiaire_telephone=telephone, tresorerie_id=data.tresorerie_id)
        assert self.settings is not None
        service = VersementService(self.session, self.auth, self.settings)
        return await service.creer(demande, destinataire_id=federation.id)


def _e164(telephone: str | None) -> str | None:
    return telephone if telephone and re.fullmatch(PHONE_PATTERN, telephone) else None


def _solde(s: SoldeCompte) -> Decimal:
    return s.debit_avant + s.debit_periode - s.credit_avant - s.credit_periode


def _total(chiffres: list[ChiffresOrganisation]) -> ChiffresOrganisation:
    comptes: dict[str, TresorerieOrganisation] = {}
    for c in chiffres:
        for t in c.tresorerie:
            cumul = comptes.get(t.numero_compte)
            comptes[t.numero_compte] = TresorerieOrganisation(
                numero_compte=t.numero_compte, libelle=cumul.libelle if cumul else t.libelle,
                solde=(cumul.solde if cumul else ZERO) + t.solde)
    tresorerie = [comptes[n] for n in sorted(comptes)]
    return ChiffresOrganisation(
        organisation_id=None, nom="Total", type_organisation=None, parent_id=None,
        membres_actifs=sum(c.membres_actifs for c in chiffres),
        cotisations_encaissees=sum((c.cotisations_encaissees for c in chiffres), ZERO),
        adhesions_encaissees=sum((c.adhesions_encaissees for c in chiffres), ZERO),
        cotisations_en_retard=sum(c.cotisations_en_retard for c in chiffres),
        montant_en_retard=sum((c.montant_en_retard for c in chiffres), ZERO),
        membres_en_retard=sum(c.membres_en_retard for c in chiffres), tresorerie=tresorerie,
        tresorerie_totale=sum((t.solde for t in tresorerie), ZERO))
