"""Collecting money: one payment, allocated to dues and adhesion fees, applied exactly once.

This is the cross-area workflow every way of paying goes through (manual entry by a treasurer, the
``payer``/``paiement`` endpoints, a Wave webhook): payment → allocations → dues/adhesion balances and
statuses → audit → accounting entry → LCB-FT screening. Targets are locked (SELECT … FOR UPDATE, in a fixed
order) so that two concurrent payments of one dues cannot both apply; on SQLite the write transaction
(BEGIN IMMEDIATE) serialises them.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.comptabilite.ecritures.service import extourner_paiement
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.cache import invalidate
from unionflow.core.errors import InvalidState, NotFound, RegleMetier
from unionflow.dons import service as registre_dons
from unionflow.models import Adhesion, Cotisation, Paiement, PaiementAllocation

# The enums live beside their models; re-exported here, where areas imported them before.
from unionflow.models.adhesion import StatutAdhesion as StatutAdhesion
from unionflow.models.cotisation import StatutCotisation as StatutCotisation
from unionflow.models.paiement import MethodePaiement as MethodePaiement
from unionflow.models.paiement import StatutPaiement as StatutPaiement
from unionflow.paiements.avoirs import service as avoirs
from unionflow.paiements.encaissement import emission
from unionflow.paiements.encaissement.validation_service import COTISATIONS_STATS, MODULE, outstanding, valider
from unionflow.paiements.recus.numerotation import reference_declaration
from unionflow.paiements.repository import PaiementSystemRepository

__all__ = ["COTISATIONS_STATS", "MODULE", "Cible", "EncaissementService", "MethodePaiement", "StatutAdhesion",
           "StatutCotisation", "StatutPaiement", "outstanding"]
ZERO = Decimal("0")


@dataclass(frozen=True)
class Cible:
    """What a payment pays: one dues or one adhesion fee, optionally a fixed part of the amount."""

    cotisation_id: uuid.UUID | None = None
    adhesion_id: uuid.UUID | None = None
    montant: Decimal | None = None

    def __post_init__(self) -> None:
        if (self.cotisation_id is None) == (self.adhesion_id is None):
            raise RegleMetier("Chaque cible désigne soit une cotisation, soit une adhésion")


def _now() -> datetime:
    return datetime.now(UTC)


class EncaissementService:
    def __init__(self, session: AsyncSession, auth: AuthContext | None) -> None:
        self.session = session
        self.auth = auth
        self.paiements = PaiementSystemRepository(session)

    async def _lock_targets(self, cibles: list[Cible]) -> dict[uuid.UUID, Cotisation | Adhesion]:
        return await self.paiements.lock_cibles(sorted({c.cotisation_id for c in cibles if c.cotisation_id}),
                                                sorted({c.adhesion_id for c in cibles if c.adhesion_id}))

    @staticmethod
    def _check_payable(target: Cotisation | Adhesion) -> None:
        if isinstance(target, Cotisation):
            if target.statut == StatutCotisation.ANNULEE:
                raise InvalidState(f"La cotisation {target.numero_reference} est annulée")
            if target.statut == StatutCotisation.PAYEE or outstanding(target) == ZERO:
                raise InvalidState(f"La cotisation {target.numero_reference} est déjà payée")
        else:
            if target.statut == StatutAdhesion.PAYEE:
                raise InvalidState(f"L'adhésion {target.numero_reference} est déjà payée")
            if target.statut != StatutAdhesion.APPROUVEE:
                raise InvalidState(f"L'adhésion {target.numero_reference} doit être approuvée avant paiement "
                                   f"(statut actuel: {target.statut})")

    @staticmethod
    def _merge(cibles: list[Cible]) -> list[Cible]:
        """One line per target, in the order first given: two lines naming the same dues add up (a line
        without an amount means "all it still owes" and absorbs the others), so no target is planned twice
        from the same unchanged balance."""
        merged: dict[uuid.UUID, Cible] = {}
        for cible in cibles:
            key = cible.cotisation_id or cible.adhesion_id
            assert key is not None
            previous = merged.get(key)
            if previous is None:
                merged[key] = cible
            elif previous.montant is not None and cible.montant is not None:
                merged[key] = Cible(cible.cotisation_id, cible.adhesion_id, previous.montant + cible.montant)
            else:
                merged[key] = Cible(cible.cotisation_id, cible.adhesion_id, None)
        return list(merged.values())

    def _plan(self, cibles: list[Cible], targets: dict[uuid.UUID, Cotisation | Adhesion],
              montant: Decimal, strict: bool, avance: bool = False) -> list[tuple[Cotisation | Adhesion, Decimal]]:
        """Split ``montant`` over the targets in the order given, never beyond what each still owes.
        ``avance``: what is left over becomes the member's credit instead of being refused."""
        plan: list[tuple[Cotisation | Adhesion, Decimal]] = []
        planned: dict[uuid.UUID, Decimal] = {}
        remaining = montant
        for cible in self._merge(cibles):
            target_id = cible.cotisation_id or cible.adhesion_id
            assert target_id is not None
            target = targets.get(target_id)
            if target is None:
                raise NotFound("Cotisation ou adhésion introuvable")
            if strict:
                self._check_payable(target)
            # What this plan already gives the target counts as paid: the row itself changes only when applied.
            owed = max(outstanding(target) - planned.get(target_id, ZERO), ZERO)
            part = min(cible.montant if cible.montant is not None else owed, owed, remaining)
            if strict and cible.montant is not None and cible.montant > owed:
                raise RegleMetier(f"Le montant affecté ({cible.montant}) dépasse le reste dû ({owed}) "
                                   f"sur {target.numero_reference}")
            if part > ZERO:
                plan.append((target, part))
                planned[target_id] = planned.get(target_id, ZERO) + part
                remaining -= part
        if strict and not avance and remaining > ZERO:
            raise RegleMetier(f"Le montant ({montant}) dépasse le total restant dû ({montant - remaining})")
        return plan

    @classmethod
    def _non_pris(cls, cibles: list[Cible], targets: dict[uuid.UUID, Cotisation | Adhesion],
                  plan: list[tuple[Cotisation | Adhesion, Decimal]]) -> list[tuple[Cotisation | Adhesion, Decimal]]:
        """What each target a pending payment reserved no longer takes from it (settled, cancelled meanwhile)."""
        applied: dict[uuid.UUID, Decimal] = {}
        for target, part in plan:
            applied[target.id] = applied.get(target.id, ZERO) + part
        result: list[tuple[Cotisation | Adhesion, Decimal]] = []
        for cible in cls._merge(cibles):
            key = cible.cotisation_id or cible.adhesion_id
            assert key is not None
            reste = (cible.montant or ZERO) - applied.get(key, ZERO)
            if reste > ZERO:
                result.append((targets[key], reste))
        return result

    async def enregistrer(
        self,
        *,
        membre_id: uuid.UUID,
        organisation_id: uuid.UUID,
        montant: Decimal,
        methode: str,
        cibles: list[Cible],
        devise: str = "XOF",
        reference_externe: str | None = None,
        date_paiement: datetime | None = None,
        commentaire: str | None = None,
        verrouillees: dict[uuid.UUID, Cotisation | Adhesion] | None = None,
        avance: bool = False,
        tresorerie_id: uuid.UUID | None = None,
    ) -> Paiement:
        """Record a payment received now (cash, transfer, cheque, confirmed mobile money) and apply it.
        ``verrouillees``: the targets, when the caller has already read them with their row lock (the lock is
        what makes the checks below hold until commit). ``avance``: the treasury records an advance — no
        target, or more than the targets owe — kept as the member's credit (avoir)."""
        if montant <= ZERO:
            raise RegleMetier("Le montant doit être strictement positif")
        if not cibles and not avance:
            raise RegleMetier("Un paiement doit régler au moins une cotisation ou une adhésion")
        wanted = {c.cotisation_id or c.adhesion_id for c in cibles}
        targets = (verrouillees if verrouillees is not None and wanted <= verrouillees.keys()
                   else await self._lock_targets(cibles) if cibles else {})
        for target in targets.values():
            if target.membre_id != membre_id or target.organisation_id != organisation_id:
                raise RegleMetier(f"{target.numero_reference} n'appartient pas à ce membre et cette organisation")
            if target.devise != devise:
                raise RegleMetier(f"Devise {devise} différente de celle de {target.numero_reference}")
        plan = self._plan(cibles, targets, montant, strict=True, avance=avance)
        # Numbered, written and booked by ``valider``, in one round trip with everything it entails.
        paiement = self._recu_maintenant(membre_id, organisation_id, montant, devise, methode, reference_externe,
                                         commentaire, date_paiement, tresorerie_id=tresorerie_id)
        await valider(self.session, self.auth, paiement, plan, nouveau=True)
        return paiement

    def _recu_maintenant(self, membre_id: uuid.UUID, organisation_id: uuid.UUID, montant: Decimal, devise: str,
                         methode: str, reference_externe: str | None, commentaire: str | None,
                         date_paiement: datetime | None, **extra: object) -> Paiement:
        """A payment received now (VALIDE), not yet numbered nor written: ``valider`` does both."""
        now = _now()
        return Paiement(
            id=uuid.uuid4(), membre_id=membre_id, organisation_id=organisation_id, montant=montant, devise=devise,
            methode=methode, statut=StatutPaiement.VALIDE.value, reference_externe=reference_externe,
            commentaire=commentaire, date_paiement=date_paiement or now, created_at=now, updated_at=now,
            enregistre_par=self.auth.actor_name if self.auth else "systeme", reference_declaration=None, **extra)

    async def preparer(
        self,
        *,
        membre_id: uuid.UUID,
        organisation_id: uuid.UUID,
        methode: str,
        cibles: list[Cible],
        devise: str = "XOF",
        commentaire: str | None = None,
    ) -> Paiement:
        """A payment awaiting confirmation (mobile-money checkout): the amount is what the targets still owe;
        allocations are reserved now and applied by ``confirmer``."""
        if not cibles:
            raise RegleMetier("Un paiement doit régler au moins une cotisation ou une adhésion")
        targets = await self._lock_targets(cibles)
        for target in targets.values():
            if target.membre_id != membre_id or target.organisation_id != organisation_id:
                raise RegleMetier(f"{target.numero_reference} n'appartient pas à ce membre et cette organisation")
        cibles = self._merge(cibles)
        total = ZERO
        for cible in cibles:
            found = targets.get(cible.cotisation_id or cible.adhesion_id)  # type: ignore[arg-type]
            if found is None:
                raise NotFound("Cotisation ou adhésion introuvable")
            total += cible.montant if cible.montant is not None else outstanding(found)
        if total <= ZERO:
            raise InvalidState("Rien à payer: les cibles sont déjà réglées")
        plan = self._plan(cibles, targets, total, strict=True)
        paiement = await self._new_paiement(membre_id, organisation_id, total, devise, methode, None,
                                            commentaire, StatutPaiement.EN_ATTENTE)
        for target, part in plan:
            self.paiements.add(PaiementAllocation(
                paiement_id=paiement.id, montant=part,
                cotisation_id=target.id if isinstance(target, Cotisation) else None,
                adhesion_id=target.id if isinstance(target, Adhesion) else None,
            ))
        await self.session.flush()
        return paiement

    async def confirmer(self, paiement_id: uuid.UUID, *, reference_externe: str | None = None,
                        date_paiement: datetime | None = None,
                        depuis: frozenset[str] = frozenset({StatutPaiement.EN_ATTENTE})) -> tuple[Paiement, bool]:
        """Apply a pending payment once. Returns (payment, applied_now); a second call changes nothing, and a
        payment already final (confirmed, refunded, …) never regresses. ``depuis``: statuses that may still
        become VALIDE — money a provider proves it received after a failed attempt or a local expiry is applied
        (as credit if its targets were settled meanwhile), never lost."""
        paiement = await self.paiements.get_for_update(paiement_id)
        if paiement is None:
            raise NotFound("Paiement introuvable")
        await self.session.refresh(paiement)
        if paiement.statut not in depuis:
            return paiement, False
        reserved = await self.paiements.allocations_of(paiement.id)
        cibles = [Cible(cotisation_id=a.cotisation_id, adhesion_id=a.adhesion_id, montant=a.montant)
                  for a in reserved]
        targets = await self._lock_targets(cibles)
        # Money already received is never refused: whatever nothing is left to pay for becomes credit.
        plan = self._plan(cibles, targets, paiement.montant, strict=False)
        # ... and never silently: what each target reserved and no longer takes is said after valider.
        surplus = self._non_pris(cibles, targets, plan)
        for allocation in reserved:
            await self.session.delete(allocation)
        await self.session.flush()
        paiement.statut = StatutPaiement.VALIDE
        paiement.reference_externe = reference_externe or paiement.reference_externe
        paiement.date_paiement = date_paiement or _now()
        await valider(self.session, self.auth, paiement, plan, nouveau=False)
        if paiement.montant_non_affecte > ZERO:
            await avoirs.signaler_double_paiement(self.session, self.auth, paiement, surplus)
        return paiement, True

    async def clore(self, paiement_id: uuid.UUID, statut: StatutPaiement) -> Paiement:
        """End a pending payment without money (ECHOUE, EXPIRE, ANNULE); a confirmed one is left untouched."""
        paiement = await self.paiements.get_for_update(paiement_id)
        if paiement is None:
            raise NotFound("Paiement introuvable")
        if paiement.statut == StatutPaiement.EN_ATTENTE:
            before = paiement.statut
            paiement.statut = statut
            await audit.record(self.session, self.auth, action=f"PAIEMENT_{statut}", module=MODULE,
                               entite_type="Paiement", entite_id=paiement.id, organisation_id=paiement.organisation_id,
                               before={"statut": before}, after={"statut": statut})
        return paiement

    async def reverser(self, paiement_id: uuid.UUID, statut: StatutPaiement, motif: str) -> Paiement:
        """Undo a confirmed payment (ANNULE: recorded by mistake; REMBOURSE: money given back): every
        allocation is taken back from its dues or adhesion, whose status moves back accordingly. Allocation
        rows stay as history; the receipt number stays used (gap-free numbering) and shows the new status."""
        paiement = await self.paiements.get_for_update(paiement_id)
        if paiement is None:
            raise NotFound("Paiement introuvable")
        await self.session.refresh(paiement)
        if paiement.statut != StatutPaiement.VALIDE:
            raise InvalidState(f"Seul un paiement validé peut être annulé ou remboursé (statut: {paiement.statut})")
        await avoirs.verifier_reversible(self.session, paiement)
        allocations = await self.paiements.allocations_of(paiement.id)
        targets = await self._lock_targets([Cible(cotisation_id=a.cotisation_id, adhesion_id=a.adhesion_id)
                                            for a in allocations])
        before_paiement = audit.snapshot(paiement, ["statut", "montant_non_affecte"])
        for allocation in allocations:
            target = targets[allocation.cotisation_id or allocation.adhesion_id]  # type: ignore[index]
            before = audit.snapshot(target, ["statut", "montant_paye"])
            target.montant_paye = max((target.montant_paye or ZERO) - allocation.montant, ZERO)
            if isinstance(target, Cotisation):
                if target.statut != StatutCotisation.ANNULEE:
                    target.statut = (StatutCotisation.PARTIELLEMENT_PAYEE if target.montant_paye > ZERO
                                     else StatutCotisation.EN_ATTENTE)
            elif target.statut == StatutAdhesion.PAYEE and outstanding(target) > ZERO:
                target.statut = StatutAdhesion.APPROUVEE
            if target.montant_paye == ZERO:
                target.date_paiement = None
                target.methode_paiement = None
                target.reference_paiement = None
            kind = "Cotisation" if isinstance(target, Cotisation) else "Adhesion"
            await audit.record(self.session, self.auth, action=f"PAIEMENT_{statut}", module=kind.upper() + "S",
                               entite_type=kind, entite_id=target.id, organisation_id=target.organisation_id,
                               before=before, after=audit.snapshot(target, ["statut", "montant_paye"]),
                               severite="WARNING")
        paiement.statut = statut
        # A reversed payment leaves no credit behind: the ledger says so too.
        avoirs.extourner(self.session, self.auth, paiement, motif)
        paiement.montant_non_affecte = ZERO
        paiement.commentaire = "\n".join(filter(None, [paiement.commentaire, f"{statut}: {motif}"]))
        await self.session.flush()
        await extourner_paiement(self.session, paiement, motif, self.auth)
        # The register of donations is append-only: an undone gift gets its counter-line (and its fund is reduced).
        await registre_dons.contrepasser_paiement(self.session, self.auth, paiement, motif)
        await invalidate(self.session, COTISATIONS_STATS)
        await audit.record(self.session, self.auth, action=f"PAIEMENT_{statut}", module=MODULE,
                           entite_type="Paiement", entite_id=paiement.id, organisation_id=paiement.organisation_id,
                           description=f"Reçu {paiement.numero_recu}: {motif}", severite="WARNING",
                           before=before_paiement, after=audit.snapshot(paiement, ["statut", "montant_non_affecte"]))
        await emission.paiement_reverse(self.session, paiement)
        return paiement

    async def _new_paiement(self, membre_id: uuid.UUID, organisation_id: uuid.UUID, montant: Decimal, devise: str,
                            methode: str, reference_externe: str | None, commentaire: str | None,
                            statut: StatutPaiement, date_paiement: datetime | None = None) -> Paiement:
        # Not money yet: a reference outside the receipt series (random, so no counter to wait on); the official
        # receipt number comes with the confirmation (``valider``), and a rejection consumes none.
        reference = reference_declaration(_now().year)
        paiement = Paiement(
            numero_recu=reference, reference_declaration=reference,
            membre_id=membre_id, organisation_id=organisation_id, montant=montant, devise=devise,
            methode=methode, statut=statut, reference_externe=reference_externe, commentaire=commentaire,
            date_paiement=date_paiement, enregistre_par=self.auth.actor_name if self.auth else "systeme",
        )
        self.paiements.add(paiement)
        await self.session.flush()
        return paiement

    async def recevoir(self, *, membre_id: uuid.UUID, organisation_id: uuid.UUID, montant: Decimal, methode: str,
                       nature: str, evenement_id: uuid.UUID | None = None, devise: str = "XOF",
                       reference_externe: str | None = None, date_paiement: datetime | None = None,
                       commentaire: str | None = None, compte_credit: str | None = None) -> Paiement:
        """Record money received now for no dues nor adhesion: a donation (DON) or an event fee
        (EVENEMENT). Same receipt series, same one-statement write and entry as a dues payment; the whole amount
        is income of its kind (comptabilite/produits/comptes.py), never the member's credit, unless ``compte_credit``
        names another account (an earmarked gift: the fund account 165). Undone like any payment (``reverser``: it
        has no allocation to take back)."""
        if montant <= ZERO:
            raise RegleMetier("Le montant doit être strictement positif")
        paiement = self._recu_maintenant(membre_id, organisation_id, montant, devise, methode, reference_externe,
                                         commentaire, date_paiement, nature=nature, evenement_id=evenement_id)
        await valider(self.session, self.auth, paiement, [], nouveau=True, compte_nature=compte_credit)
        return paiement
