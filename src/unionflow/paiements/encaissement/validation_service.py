"""Validating a payment: what happens once its targets are locked and its split is planned.

The payment write path (docs/architecture.md): reference data from the worker's cache, the receipt and entry
numbers in one statement, the LCB-FT cumulated amount and the member's notification data in one read each, and
every row — payment, allocations, dues/adhesion balances, accounting entry and lines, alerts, notification,
webhook deliveries, audit entries, statistics purge — written in one round trip (core/lot.py). Nothing is read
back: the code knows what it wrote.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.comptabilite.ecritures.service import (
    comptabiliser_paiement,
    date_ecriture_paiement,
    preparer_comptes_paiement,
)
from unionflow.comptabilite.produits.comptes import nature_cible
from unionflow.comptabilite.service import DansLot, compteur_ecriture
from unionflow.core import audit, metrics
from unionflow.core.auth import AuthContext
from unionflow.core.cache import purges
from unionflow.core.lot import Lot, defauts
from unionflow.core.numbering import next_values
from unionflow.lcbft.detection import alertes_nouveau_paiement, donnees_webhook
from unionflow.membres.repository import MembreRepository
from unionflow.models import (
    Adhesion,
    Cotisation,
    MouvementAvoir,
    Paiement,
    PaiementAllocation,
)
from unionflow.models.base import utcnow
from unionflow.models.paiement import MethodePaiement, TypeMouvementAvoir
from unionflow.paiements.encaissement import emission
from unionflow.paiements.recus.numerotation import code_serie, compteur_recus, numero_recu
from unionflow.webhooks import emission as webhooks

MODULE = "PAIEMENTS"
# Names of the cached dues statistics (cotisations/organisation_service.py): a payment or a reversal makes them stale.
COTISATIONS_STATS = "cotisations."
ZERO = Decimal("0")

Plan = list[tuple[Cotisation | Adhesion, Decimal]]


def outstanding(target: Cotisation | Adhesion) -> Decimal:
    due = target.montant_du if isinstance(target, Cotisation) else target.frais_adhesion
    return max(due - (target.montant_paye or ZERO), ZERO)


def _applique(target: Cotisation | Adhesion, part: Decimal, paiement: Paiement) -> dict[str, Any]:
    """The target's new values once ``part`` of ``paiement`` is added to what it has received."""
    paye = (target.montant_paye or ZERO) + part
    values: dict[str, Any] = {
        "montant_paye": paye, "methode_paiement": paiement.methode,
        "reference_paiement": paiement.reference_externe or paiement.numero_recu,
        "date_paiement": paiement.date_paiement, "updated_at": utcnow()}
    due = target.montant_du if isinstance(target, Cotisation) else target.frais_adhesion
    covered = max(due - paye, ZERO) == ZERO
    if isinstance(target, Cotisation):
        values["statut"] = "PAYEE" if covered else "PARTIELLEMENT_PAYEE"
    elif covered:
        values["statut"] = "PAYEE"
    return values


def mouvement_creation(paiement: Paiement, auth: AuthContext | None) -> MouvementAvoir | None:
    """The movement of a payment being validated whose money was not all allocated (an advance at the counter,
    a late Wave confirmation): written with the payment (core/lot.py)."""
    if paiement.montant_non_affecte <= ZERO:
        return None
    return MouvementAvoir(
        id=uuid.uuid4(), membre_id=paiement.membre_id, organisation_id=paiement.organisation_id,
        paiement_id=paiement.id, type_mouvement=TypeMouvementAvoir.CREATION, montant=paiement.montant_non_affecte,
        libelle=f"Avoir créé par le reçu {paiement.numero_recu}",
        cree_par=auth.actor_name if auth is not None else "systeme", created_at=utcnow())


async def destinataire(session: AsyncSession, paiement: Paiement) -> emission.Destinataire:
    """The member, the organisation's name and the member's preferences, in one read: what the receipt
    notification needs (none if the member is gone). One statement on the payment's path, through the member's
    repository (unscoped: the payment is already permitted)."""
    return await MembreRepository(session, None).get_destinataire(paiement.membre_id, paiement.organisation_id)


def _recu_par(auth: AuthContext | None, paiement: Paiement, nouveau: bool) -> str:
    """Who received the money: the person recording it or confirming the member's declaration; Wave when it
    confirmed a checkout (whoever asked for the synchronisation)."""
    if not nouveau and paiement.methode == MethodePaiement.WAVE:
        return "Wave"
    return auth.actor_name if auth is not None else "systeme"


async def valider(session: AsyncSession, auth: AuthContext | None, paiement: Paiement, plan: Plan, *,
                  nouveau: bool, compte_nature: str | None = None) -> None:
    """Apply ``plan`` and book ``paiement`` (statut VALIDE). ``nouveau``: the payment is created by this call
    (not yet in the session); else it is a pending payment, locked, whose changes the caller made on the ORM
    object. Either way it gets here its official receipt number, in its organisation's series, if it has none
    yet (a declaration only had its DEC- reference). ``compte_nature``: where a donation or an event fee is credited
    instead of its kind's income account (an earmarked gift: the fund account)."""
    allocations = [PaiementAllocation(
        id=uuid.uuid4(), paiement_id=paiement.id, montant=part,
        cotisation_id=target.id if isinstance(target, Cotisation) else None,
        adhesion_id=target.id if isinstance(target, Adhesion) else None) for target, part in plan]
    # A donation or an event fee (``paiement.nature``) is income, not the member's credit.
    paiement.montant_non_affecte = ZERO if paiement.nature else paiement.montant - sum((part for _, part in plan), ZERO)
    natures = {allocation.id: nature_cible(target) for allocation, (target, _) in zip(allocations, plan, strict=True)}
    refs = await preparer_comptes_paiement(session, paiement, allocations, auth, natures=natures,
                                           compte_nature=compte_nature)
    if refs.tresorerie_id is not None:
        # The payment names the treasury it entered; its entry debits that treasury's account.
        paiement.tresorerie_id = refs.tresorerie_id
    # Read before the counters: their row locks are held until commit, the time spent after them is the queue.
    dest = await destinataire(session, paiement)
    date_ecriture = date_ecriture_paiement(refs, paiement)
    compteur = compteur_ecriture(refs.journal, date_ecriture.year)
    annee_recu = datetime.now(UTC).year
    numeroter = nouveau or not paiement.a_un_recu
    recu = compteur_recus(paiement.organisation_id, annee_recu)
    # Both gap-free counters of the organisation in one statement; their row locks are held until commit, so a
    # rollback gives the numbers back; payments of other organisations lock other rows.
    numeros = await next_values(session, compteur, *([recu] if numeroter else []))
    if numeroter:
        # After the counters, never before: an organisation's first receipt writes its code, a unique column of
        # the organisation row, which takes that row's strongest lock until commit; taken before the counters, it
        # blocked the insert of the payment holding them (a foreign key needs the row), a deadlock (docs/decisions.md
        # « Verrous de ligne et clés étrangères »). Cached, it costs nothing in the counters' window.
        code = await code_serie(session, paiement.organisation_id)
        paiement.numero_recu = numero_recu(code, annee_recu, numeros[recu])
    paiement.recu_par = _recu_par(auth, paiement, nouveau)
    lot = Lot()
    if nouveau:
        lot.ajouter(paiement)
    lot.ajouter(*allocations)
    # The credit it leaves (advance, overpayment) enters the member's credit ledger with it.
    lot.ajouter(*filter(None, [mouvement_creation(paiement, auth)]))

    changed: list[tuple[Cotisation | Adhesion, dict[str, object]]] = []
    for target, part in plan:
        before = audit.snapshot(target, ["statut", "montant_paye"])
        lot.modifier(target, **_applique(target, part, paiement))
        changed.append((target, before))
    # The audit trail in the order things happen: the payment, what it paid, its entry, the alerts it raised.
    lot.journaliser(audit.entry(
        auth, action="VALIDER_PAIEMENT", module=MODULE, entite_type="Paiement", entite_id=paiement.id,
        organisation_id=paiement.organisation_id,
        description=f"Reçu {paiement.numero_recu}: {paiement.montant} {paiement.devise}",
        after=audit.snapshot(defauts(paiement))))
    for target, before in changed:
        kind = "Cotisation" if isinstance(target, Cotisation) else "Adhesion"
        lot.journaliser(audit.entry(auth, action="PAYER", module=kind.upper() + "S", entite_type=kind,
                                    entite_id=target.id, organisation_id=target.organisation_id, before=before,
                                    after=audit.snapshot(target, ["statut", "montant_paye"])))
    await comptabiliser_paiement(session, refs, paiement, allocations, date_ecriture,
                                 DansLot(lot, numeros[compteur]), auth)

    # Same transaction: the money, the books and the compliance checks agree or none of them is written.
    alertes, audits_alertes = await alertes_nouveau_paiement(session, paiement)
    lot.ajouter(*alertes)
    auteur = auth.actor_name if auth else "systeme"
    suites_rows = await emission.lignes_paiement_valide(session, paiement, dest,
                                                      [(t, outstanding(t)) for t, _ in changed], auteur)
    abonnes = await webhooks.abonnements(session, paiement.organisation_id)
    for alerte in alertes:
        suites_rows += webhooks.livraisons(abonnes, alerte.organisation_id,
                                           webhooks.EvenementWebhook.ALERTE_LCBFT_LEVEE, donnees_webhook(alerte))
    lot.ajouter(*suites_rows)
    lot.journaliser(*audits_alertes)
    for purge, params in purges(session, COTISATIONS_STATS):
        lot.executer(purge, params)
    await lot.envoyer(session)
    metrics.paiement_valide(session, paiement.methode, paiement.montant, paiement.devise)
