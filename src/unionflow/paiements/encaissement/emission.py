"""What follows a payment's validation or reversal outside the ledger: the member's receipt notification
(RECU_PAIEMENT, through the notification outbox) and the organisation's webhooks. Called by
``EncaissementService`` (paiements/encaissement/workflow.py) in the same transaction, so neither is sent for a payment
that was rolled back."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.models import Adhesion, Cotisation, Membre, Paiement, PreferenceMembre
from unionflow.models.base import Base
from unionflow.models.cotisation import StatutCotisation
from unionflow.models.notification import Canal
from unionflow.models.paiement import StatutPaiement
from unionflow.notifications.emission import Emetteur
from unionflow.notifications.gsm import court, un_sms
from unionflow.notifications.schemas import TypeNotification
from unionflow.webhooks import emission as webhooks

METHODES = {"WAVE": "Wave", "ESPECES": "espèces", "VIREMENT": "virement", "CHEQUE": "chèque",
            "ORANGE_MONEY": "Orange Money", "FREE_MONEY": "Free Money", "CARTE": "carte bancaire", "AUTRE": "autre",
            "WAVE_TRANSFERT": "transfert Wave"}

# What the notice says was received: a donation or an event fee is not "a payment" of dues.
OBJET_RECU = {"DON": "votre don", "EVENEMENT": "votre participation à l'événement"}


def _montant(value: Decimal, devise: str) -> str:
    # 15000.00 XOF → "15 000 FCFA": the way a member reads an amount in UEMOA countries.
    entier = f"{value:,.0f}".replace(",", " ") if value == value.to_integral_value() else f"{value:,.2f}"
    return f"{entier} {'FCFA' if devise == 'XOF' else devise}"


def _donnees(paiement: Paiement) -> dict[str, object]:
    return {"paiementId": paiement.id, "numeroRecu": paiement.numero_recu, "membreId": paiement.membre_id,
            "montant": paiement.montant, "devise": paiement.devise, "methode": paiement.methode,
            "statut": paiement.statut, "datePaiement": paiement.date_paiement,
            "referenceExterne": paiement.reference_externe}


def sms_recu(numero: str, montant: str, methode: str, quand: str, organisation: str) -> str:
    """The receipt by SMS, for a member without e-mail: one segment (GSM-7, 160 characters), the organisation's
    name cut first."""
    return un_sms(f"{court(organisation, 30)}: paiement de {montant} ({methode}) recu le {quand}. "
                  f"Recu {numero}. Merci.")


# The member, the organisation's name and the member's preferences (paiements/encaissement/validation_service.py).
Destinataire = tuple[Membre, str, PreferenceMembre | None] | None


async def lignes_paiement_valide(session: AsyncSession, paiement: Paiement, dest: Destinataire,
                                 soldes: Sequence[tuple[Cotisation | Adhesion, Decimal]], auteur: str) -> list[Base]:
    """The rows that follow a validated payment (receipt notification to ``dest``, webhook deliveries), to be
    written with it (core/lot.py). ``soldes``: each dues or adhesion the payment went to, with what it still owes
    afterwards."""
    rows: list[Base] = []
    if dest is not None:
        membre, nom, pref = dest
        lignes = [f"- {cible.numero_reference}: " + (f"reste dû {_montant(reste, paiement.devise)}" if reste
                                                     else "soldé") for cible, reste in soldes]
        quand = paiement.date_paiement.strftime("%d/%m/%Y") if paiement.date_paiement else ""
        sujet = f"Reçu {paiement.numero_recu} — {_montant(paiement.montant, paiement.devise)}"
        corps = "\n".join([
            f"Bonjour {membre.prenom} {membre.nom},",
            f"{nom} a bien reçu {OBJET_RECU.get(paiement.nature or '', 'votre paiement')} de "
            f"{_montant(paiement.montant, paiement.devise)} "
            f"({METHODES.get(paiement.methode, paiement.methode)}) le {quand}.",
            f"Reçu n° {paiement.numero_recu}.", *lignes])
        sms = sms_recu(paiement.numero_recu or "", _montant(paiement.montant, paiement.devise),
                       METHODES.get(paiement.methode, paiement.methode), quand, nom)
        rows += Emetteur(session, auteur).lignes(membre, pref, TypeNotification.RECU_PAIEMENT.value,
                                                 lambda _m, c: (sujet, sms if c is Canal.SMS else corps),
                                                 organisation_id=paiement.organisation_id,
                                                 source=("Paiement", paiement.id))
    abonnes = await webhooks.abonnements(session, paiement.organisation_id)
    rows += webhooks.livraisons(abonnes, paiement.organisation_id, webhooks.EvenementWebhook.PAIEMENT_VALIDE,
                                _donnees(paiement))
    for cible, _ in soldes:
        if isinstance(cible, Cotisation) and cible.statut == StatutCotisation.PAYEE:
            rows += webhooks.livraisons(abonnes, cible.organisation_id, webhooks.EvenementWebhook.COTISATION_PAYEE, {
                "cotisationId": cible.id, "numeroReference": cible.numero_reference, "membreId": cible.membre_id,
                "montantDu": cible.montant_du, "montantPaye": cible.montant_paye, "devise": cible.devise,
                "paiementId": paiement.id})
    return rows


def texte_payeur(paiement: Paiement, code: str | None) -> str:
    """The SMS to whoever paid a dues by its payment code (a relative, not a member): one GSM-7 segment, no name."""
    pour = f" pour le code {code[:4]} {code[4:8]} {code[8:]}" if code else ""
    return (f"Paiement de {_montant(paiement.montant, paiement.devise)}{pour} bien arrivé. "
            f"Recu {paiement.numero_recu}. Merci.")[:160]


async def notifier_payeur(session: AsyncSession, paiement: Paiement, telephone: str, code: str | None) -> None:
    """Tell the payer's phone (given on the public payment page) that the money arrived, through the outbox."""
    await Emetteur(session, "systeme").emettre_adresse(
        telephone, TypeNotification.RECU_PAIEMENT.value, f"Recu {paiement.numero_recu}",
        texte_payeur(paiement, code), organisation_id=paiement.organisation_id, source=("Paiement", paiement.id))


async def paiement_reverse(session: AsyncSession, paiement: Paiement) -> None:
    if paiement.statut == StatutPaiement.REMBOURSE:
        await webhooks.emettre(session, paiement.organisation_id, webhooks.EvenementWebhook.PAIEMENT_REMBOURSE,
                               _donnees(paiement))
