"""What follows a payment's validation or reversal outside the ledger: the member's receipt notification
(RECU_PAIEMENT, through the notification outbox) and the organisation's webhooks. Called by
``EncaissementService`` in the same transaction, so neither is sent for a payment that was rolled back."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.models import Adhesion, Cotisation, Membre, Organisation, Paiement
from unionflow.notifications.emission import Emetteur
from unionflow.notifications.schemas import TypeNotification
from unionflow.webhooks import emission as webhooks

METHODES = {"WAVE": "Wave", "ESPECES": "espèces", "VIREMENT": "virement", "CHEQUE": "chèque",
            "ORANGE_MONEY": "Orange Money", "FREE_MONEY": "Free Money", "CARTE": "carte bancaire", "AUTRE": "autre"}


def _montant(value: Decimal, devise: str) -> str:
    # 15000.00 XOF → "15 000 FCFA": the way a member reads an amount in UEMOA countries.
    entier = f"{value:,.0f}".replace(",", " ") if value == value.to_integral_value() else f"{value:,.2f}"
    return f"{entier} {'FCFA' if devise == 'XOF' else devise}"


def _donnees(paiement: Paiement) -> dict[str, object]:
    return {"paiementId": paiement.id, "numeroRecu": paiement.numero_recu, "membreId": paiement.membre_id,
            "montant": paiement.montant, "devise": paiement.devise, "methode": paiement.methode,
            "statut": paiement.statut, "datePaiement": paiement.date_paiement,
            "referenceExterne": paiement.reference_externe}


async def paiement_valide(session: AsyncSession, paiement: Paiement,
                          soldes: Sequence[tuple[Cotisation | Adhesion, Decimal]], auteur: str) -> None:
    """``soldes``: each dues or adhesion the payment went to, with what it still owes afterwards."""
    lignes = [f"- {cible.numero_reference}: " + (f"reste dû {_montant(reste, paiement.devise)}" if reste else "soldé")
              for cible, reste in soldes]
    cibles = [cible for cible, _ in soldes]
    membre = await session.get(Membre, paiement.membre_id)
    organisation = await session.get(Organisation, paiement.organisation_id)
    if membre is not None:
        nom = organisation.nom if organisation else "votre organisation"
        quand = paiement.date_paiement.strftime("%d/%m/%Y") if paiement.date_paiement else ""
        sujet = f"Reçu {paiement.numero_recu} — {_montant(paiement.montant, paiement.devise)}"
        corps = "\n".join([
            f"Bonjour {membre.prenom} {membre.nom},",
            f"{nom} a bien reçu votre paiement de {_montant(paiement.montant, paiement.devise)} "
            f"({METHODES.get(paiement.methode, paiement.methode)}) le {quand}.",
            f"Reçu n° {paiement.numero_recu}.", *lignes])
        await Emetteur(session, auteur).emettre(membre, TypeNotification.RECU_PAIEMENT.value, sujet, corps,
                                                organisation_id=paiement.organisation_id,
                                                source=("Paiement", paiement.id))
    await webhooks.emettre(session, paiement.organisation_id, webhooks.EvenementWebhook.PAIEMENT_VALIDE,
                           _donnees(paiement))
    for cible in cibles:
        if isinstance(cible, Cotisation) and cible.statut == "PAYEE":
            await webhooks.emettre(session, cible.organisation_id, webhooks.EvenementWebhook.COTISATION_PAYEE, {
                "cotisationId": cible.id, "numeroReference": cible.numero_reference, "membreId": cible.membre_id,
                "montantDu": cible.montant_du, "montantPaye": cible.montant_paye, "devise": cible.devise,
                "paiementId": paiement.id})


async def paiement_reverse(session: AsyncSession, paiement: Paiement) -> None:
    if paiement.statut == "REMBOURSE":
        await webhooks.emettre(session, paiement.organisation_id, webhooks.EvenementWebhook.PAIEMENT_REMBOURSE,
                               _donnees(paiement))
