"""Money undone by two people: the request to cancel or refund a payment, cancel a delivered
payout or reverse an accounting entry, kept with its reason, who asked and who decided — the ANNULATION kind of
four-eyes requests (models/approbation.py)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from unionflow.models.approbation import DecisionDemande, DemandeApprobation


class TypeAnnulation(StrEnum):
    ANNULATION_PAIEMENT = "ANNULATION_PAIEMENT"  # recorded by mistake: the receipt is cancelled
    REMBOURSEMENT_PAIEMENT = "REMBOURSEMENT_PAIEMENT"  # money given back: a refund receipt is issued
    ANNULATION_VERSEMENT = "ANNULATION_VERSEMENT"  # a delivered (manual) payout that did not happen or came back
    CONTREPASSATION_ECRITURE = "CONTREPASSATION_ECRITURE"  # a manual accounting entry reversed
    REMBOURSEMENT_AVOIR = "REMBOURSEMENT_AVOIR"  # a member's credit (avoir) paid back


class StatutDemandeAnnulation(StrEnum):
    EN_ATTENTE = "EN_ATTENTE"
    APPROUVEE = "APPROUVEE"  # approved and carried out in the same transaction
    REJETEE = "REJETEE"
    RETIREE = "RETIREE"  # withdrawn by the requester


PAIEMENT = frozenset({TypeAnnulation.ANNULATION_PAIEMENT.value, TypeAnnulation.REMBOURSEMENT_PAIEMENT.value})


@dataclass(frozen=True)
class VueAnnulation:
    """An undo request, the ANNULATION kind of four-eyes requests (``DemandeApprobation``), seen with its kind's
    fields: ``objet_id`` is the payment, the payout, the entry or (a credit refund) the member, by ``nature``; an
    approved refund's receipt number is the request's ``numero``; the rest is in ``details``."""

    demande: DemandeApprobation

    def __getattr__(self, name: str) -> Any:
        # The mechanism's own fields (id, organisation_id, montant, motif, statut, demande_par, dates, …).
        return getattr(self.demande, name)

    def _objet(self, *natures: str) -> uuid.UUID | None:
        return self.demande.objet_id if self.demande.nature in natures else None

    @property
    def type_annulation(self) -> str:
        return self.demande.nature or ""

    @property
    def paiement_id(self) -> uuid.UUID | None:
        return self._objet(*PAIEMENT)

    @property
    def versement_id(self) -> uuid.UUID | None:
        return self._objet(TypeAnnulation.ANNULATION_VERSEMENT.value)

    @property
    def ecriture_id(self) -> uuid.UUID | None:
        return self._objet(TypeAnnulation.CONTREPASSATION_ECRITURE.value)

    def _detail_id(self, key: str) -> uuid.UUID | None:
        value = (self.demande.details or {}).get(key)
        return uuid.UUID(value) if value else None

    @property
    def membre_id(self) -> uuid.UUID | None:
        """The member whose payment or credit it is (told of the outcome); None for payouts and entries."""
        return self._objet(TypeAnnulation.REMBOURSEMENT_AVOIR.value) or self._detail_id("membre_id")

    @property
    def reference(self) -> str:
        """The receipt, payout or piece number undone."""
        return str((self.demande.details or {}).get("reference", ""))

    @property
    def approbation_id(self) -> uuid.UUID | None:
        """Above the threshold, the finance approval (FINANCE kind) that decides first."""
        return self._detail_id("approbation_id")

    @property
    def numero_remboursement(self) -> str | None:
        return self.demande.numero

    def numeroter(self, numero: str) -> None:
        """An approved refund's receipt number, in the organisation's gap-free RMB series."""
        self.demande.numero = numero

    def _decision(self) -> DecisionDemande | None:
        return self.demande.decisions[-1] if self.demande.decisions else None

    @property
    def decide_par(self) -> str | None:
        decision = self._decision()
        return decision.decideur if decision else None

    @property
    def decide_par_sub(self) -> str | None:
        decision = self._decision()
        return decision.decideur_sub if decision else None

    @property
    def commentaire(self) -> str | None:
        decision = self._decision()
        return decision.commentaire if decision else None
