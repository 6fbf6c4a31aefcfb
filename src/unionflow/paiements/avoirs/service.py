"""A member's credit (avoir) with one organisation: created by money nothing was left to pay
for, applied to his oldest dues, undone with its payment.

The credit lives on the payments that hold it (``Paiement.montant_non_affecte``: what of each payment is not
allocated) and every change is a signed row of the ledger ``mouvement_avoir``, so the balance is both a sum of
movements and the sum of the payments' unallocated amounts — and the 4191 balance of the member's payments. An
application allocates the credit of the oldest payment to the oldest dues (``PaiementAllocation`` on that
payment: the dues shows the original receipt), under the row locks of both, and books debit 4191 / credit the
income (comptabilite/ecritures/avoir.py); no money moves.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.comptabilite.ecritures.avoir import comptabiliser_imputation, comptabiliser_remboursement_avoir
from unionflow.configuration.organisation_service import valeur_organisation
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.cache import invalidate
from unionflow.core.errors import NotFound, RegleMetier
from unionflow.core.permissions import Permission
from unionflow.core.visibility import staff_sees
from unionflow.models import Adhesion, Cotisation, MouvementAvoir, Paiement, PaiementAllocation
from unionflow.models.base import utcnow
from unionflow.models.cotisation import StatutCotisation
from unionflow.models.paiement import TypeMouvementAvoir
from unionflow.notifications import workflow as notices
from unionflow.paiements.avoirs.repository import MouvementAvoirRepository
from unionflow.paiements.encaissement.emission import METHODES
from unionflow.paiements.encaissement.validation_service import COTISATIONS_STATS, MODULE, outstanding
from unionflow.paiements.repository import PaiementRepository, PaiementSystemRepository

ZERO = Decimal("0")
IMPUTATION_AUTOMATIQUE = "cotisations.avoir.imputation_automatique"


def _auteur(auth: AuthContext | None) -> str:
    return auth.actor_name if auth is not None else "systeme"


async def verifier_reversible(session: AsyncSession, paiement: Paiement) -> None:
    """A payment whose credit already paid dues is not undone: its entry's mirror would take back from 4191
    money already moved to income, and the dues paid by it would be left paid by nothing. The treasury first
    settles what the credit paid (docs/decisions.md, « avoir »)."""
    utilise = await MouvementAvoirRepository(session).utilise(paiement.id)
    if utilise > ZERO:
        raise RegleMetier(f"L'avoir du reçu {paiement.numero_recu} a déjà servi ({utilise} {paiement.devise} "
                          f"de cotisations payées ou d'avoir remboursé): ce paiement ne peut plus être annulé ni "
                          f"remboursé")


def extourner(session: AsyncSession, auth: AuthContext | None, paiement: Paiement, motif: str) -> None:
    """The credit a cancelled or refunded payment still held leaves the member's balance with it."""
    if paiement.montant_non_affecte > ZERO:
        session.add(MouvementAvoir(
            membre_id=paiement.membre_id, organisation_id=paiement.organisation_id, paiement_id=paiement.id,
            type_mouvement=TypeMouvementAvoir.EXTOURNE, montant=-paiement.montant_non_affecte,
            libelle=f"Reçu {paiement.numero_recu} {paiement.statut}: {motif}"[:300], cree_par=_auteur(auth)))


def _raison(cible: Cotisation | Adhesion, montant: Decimal, recus: list[str]) -> str:
    if isinstance(cible, Cotisation) and cible.statut == StatutCotisation.ANNULEE:
        etat = "a été annulée entre-temps"
    elif recus:
        etat = f"était déjà réglée ({', '.join(recus)})"
    else:
        etat = f"n'était plus payable (statut {cible.statut})"
    return f"{cible.numero_reference} {etat}: {montant} {cible.devise} non affectés"


async def signaler_double_paiement(session: AsyncSession, auth: AuthContext | None, paiement: Paiement,
                                   non_pris: list[tuple[Cotisation | Adhesion, Decimal]]) -> None:
    """Money confirmed for dues or an adhesion settled meanwhile (a Wave session confirmed after a declaration,
    a declaration confirmed after a payment at the counter) is kept as the member's credit — and said: an audit
    line, and a notice to the member and to the organisation's treasury naming the amount and why
    (docs/decisions.md, « pas de double paiement »)."""
    montant = paiement.montant_non_affecte
    recus = await PaiementSystemRepository(session).recus_reglant([c.id for c, _ in non_pris], sauf=paiement.id)
    raisons = [_raison(cible, part, recus.get(cible.id, [])) for cible, part in non_pris]
    raison = "; ".join(raisons) or "rien ne restait dû sur ses cibles"
    await audit.record(session, auth, action="CONVERTIR_EN_AVOIR", module=MODULE, entite_type="Paiement",
                       entite_id=paiement.id, organisation_id=paiement.organisation_id, severite="WARNING",
                       after={"montant_non_affecte": str(montant)},
                       description=f"Reçu {paiement.numero_recu}: {montant} {paiement.devise} gardés en avoir du "
                                   f"membre ({raison})")
    await notices.double_paiement_en_avoir(session, paiement, montant, METHODES.get(paiement.methode, paiement.methode),
                                           raison, _auteur(auth))


async def imputer_automatiquement(session: AsyncSession, organisation_id: uuid.UUID | None, jour: date) -> int:
    """Apply, on the system's behalf, the credit of every member of the organisations whose setting
    ``cotisations.avoir.imputation_automatique`` is on, to their dues due by ``jour`` (generation of dues,
    daily job). Returns how many dues were paid by credit."""
    service = AvoirService(session, None)
    actives: dict[uuid.UUID, bool] = {}
    count = 0
    for membre_id, org_id in await service.mouvements.titulaires(organisation_id):
        if org_id not in actives:
            actives[org_id] = bool(await valeur_organisation(session, org_id, IMPUTATION_AUTOMATIQUE))
        if actives[org_id]:
            count += len(await service.imputer(membre_id, org_id, echues_au=jour))
    return count


@dataclass(frozen=True)
class Imputation:
    paiement: Paiement
    cotisation: Cotisation
    montant: Decimal


class AvoirService:
    def __init__(self, session: AsyncSession, auth: AuthContext | None) -> None:
        self.session = session
        self.auth = auth
        self.mouvements = MouvementAvoirRepository(session)

    async def verifier_acces(self, membre_id: uuid.UUID, organisation_id: uuid.UUID, *, imputer: bool) -> None:
        """The organisation's staff sees a member's credit there (404 otherwise); applying it takes
        ``avoir.imputer`` (403)."""
        assert self.auth is not None
        if not staff_sees(self.auth, organisation_id):
            raise NotFound("Organisation introuvable")
        if await PaiementRepository(self.session, self.auth).membre(membre_id) is None:
            raise NotFound("Membre introuvable")
        if imputer:
            self.auth.require(Permission.AVOIR_IMPUTER, organisation_id,
                              "Seule la trésorerie de l'organisation impute l'avoir d'un membre")

    async def solde(self, membre_id: uuid.UUID, organisation_id: uuid.UUID) -> Decimal:
        return await self.mouvements.solde(membre_id, organisation_id)

    async def historique(self, membre_id: uuid.UUID, organisation_id: uuid.UUID) -> list[MouvementAvoir]:
        return await self.mouvements.of_membre(membre_id, organisation_id)

    async def imputer(self, membre_id: uuid.UUID, organisation_id: uuid.UUID,
                      echues_au: date | None = None) -> list[Imputation]:
        """Apply the member's credit to his dues, oldest due date first, from the oldest money first, as far as
        it goes. Called after the permission was asked (route) or by the system (dues falling due, per the
        organisation's setting: ``echues_au``, only dues due by then). Nothing to apply is not an error: the
        result is empty."""
        credits = await self.mouvements.lock_credits(membre_id, organisation_id)
        if not credits:
            return []
        ouvertes = await self.mouvements.lock_dues_ouvertes(membre_id, organisation_id, echues_au)
        faites: list[Imputation] = []
        for paiement in credits:
            parts: list[tuple[Cotisation, Decimal]] = []
            # Credit pays dues of its own currency only.
            for cotisation in [d for d in ouvertes if d.devise == paiement.devise]:
                if paiement.montant_non_affecte == ZERO:
                    break
                part = min(outstanding(cotisation), paiement.montant_non_affecte)
                if part == ZERO:
                    continue
                await self._appliquer(paiement, cotisation, part)
                parts.append((cotisation, part))
                faites.append(Imputation(paiement, cotisation, part))
            if parts:
                await self._comptabiliser(paiement, parts)
        if faites:
            await invalidate(self.session, COTISATIONS_STATS)
        return faites

    async def rembourser(self, membre_id: uuid.UUID, organisation_id: uuid.UUID, montant: Decimal, numero: str,
                         motif: str) -> set[uuid.UUID]:
        """Pay ``montant`` of the member's credit back (an approved request, annulations/), from the oldest
        money first; refused when the credit, read under the lock of the payments holding it, is smaller.
        Returns the treasuries the money leaves (the caller checks none goes below its floor)."""
        credits = await self.mouvements.lock_credits(membre_id, organisation_id)
        solde = sum((p.montant_non_affecte for p in credits), ZERO)
        if montant > solde:
            raise RegleMetier(f"Le remboursement demandé ({montant}) dépasse l'avoir du membre ({solde})")
        parts: list[tuple[Paiement, Decimal]] = []
        reste = montant
        for paiement in credits:
            part = min(paiement.montant_non_affecte, reste)
            if part > ZERO:
                paiement.montant_non_affecte -= part
                parts.append((paiement, part))
                reste -= part
        ecriture = await comptabiliser_remboursement_avoir(self.session, parts, numero, motif, self.auth)
        for paiement, part in parts:
            self.session.add(MouvementAvoir(
                membre_id=membre_id, organisation_id=organisation_id, paiement_id=paiement.id,
                type_mouvement=TypeMouvementAvoir.REMBOURSEMENT, montant=-part, ecriture_id=ecriture.id,
                libelle=f"Avoir remboursé ({numero}): {motif}"[:300], cree_par=_auteur(self.auth)))
        await audit.record(self.session, self.auth, action="REMBOURSER_AVOIR", module=MODULE, entite_type="Membre",
                           entite_id=membre_id, organisation_id=organisation_id, severite="WARNING",
                           description=f"Avoir remboursé {montant} ({numero}): {motif}")
        await self.session.flush()
        return {paiement.tresorerie_id for paiement, _ in parts if paiement.tresorerie_id is not None}

    async def _appliquer(self, paiement: Paiement, cotisation: Cotisation, part: Decimal) -> None:
        before = audit.snapshot(cotisation, ["statut", "montant_paye"])
        cotisation.montant_paye = (cotisation.montant_paye or ZERO) + part
        cotisation.statut = (StatutCotisation.PAYEE if outstanding(cotisation) == ZERO
                             else StatutCotisation.PARTIELLEMENT_PAYEE)
        cotisation.date_paiement = utcnow()
        cotisation.methode_paiement = paiement.methode
        cotisation.reference_paiement = paiement.numero_recu
        paiement.montant_non_affecte -= part
        self.session.add(PaiementAllocation(paiement_id=paiement.id, cotisation_id=cotisation.id, montant=part))
        await audit.record(self.session, self.auth, action="IMPUTER_AVOIR", module="COTISATIONS",
                           entite_type="Cotisation", entite_id=cotisation.id,
                           organisation_id=cotisation.organisation_id, before=before,
                           after=audit.snapshot(cotisation, ["statut", "montant_paye"]),
                           description=f"Payée par l'avoir du reçu {paiement.numero_recu}: {part}")

    async def _comptabiliser(self, paiement: Paiement, parts: list[tuple[Cotisation, Decimal]]) -> None:
        ecriture = await comptabiliser_imputation(self.session, paiement, list(parts), self.auth)
        for cotisation, part in parts:
            self.session.add(MouvementAvoir(
                membre_id=paiement.membre_id, organisation_id=paiement.organisation_id, paiement_id=paiement.id,
                type_mouvement=TypeMouvementAvoir.IMPUTATION, montant=-part, cotisation_id=cotisation.id,
                ecriture_id=ecriture.id, libelle=f"Avoir imputé sur {cotisation.numero_reference}"[:300],
                cree_par=_auteur(self.auth)))
        await audit.record(self.session, self.auth, action="IMPUTER_AVOIR", module=MODULE, entite_type="Paiement",
                           entite_id=paiement.id, organisation_id=paiement.organisation_id,
                           after={"montant_non_affecte": str(paiement.montant_non_affecte)},
                           description=f"Avoir du reçu {paiement.numero_recu} imputé: "
                                       f"{sum((p for _, p in parts), ZERO)} {paiement.devise}")
        await self.session.flush()
