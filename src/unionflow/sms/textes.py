"""The answers to inbound SMS keywords: pure functions from figures already computed by their own services to
one SMS each — GSM-7 (accents outside the alphabet transliterated) and at most 160 characters (``un_sms`` is the
last guard; docs/ussd-sms.md lists every answer with its length)."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from unionflow.notifications.gsm import un_sms
from unionflow.ussd.ecrans import Situation, court, francs, jour

AIDE = un_sms("UnionFlow par SMS: SOLDE = votre solde. RECU suivi du numero = verifier un recu. STOP = plus de "
              "rappels par SMS, START = les reprendre.")
INCONNU = un_sms("Ce numero n'est lie a aucun membre. Adressez-vous a votre association.")
MOT_INCONNU = un_sms("Message non compris. Envoyez AIDE pour la liste des mots-cles (SOLDE, RECU, STOP).")
PLUSIEURS = un_sms("Ce numero est celui de plusieurs membres: consultez votre solde par le menu USSD, qui vous "
                   "demande qui vous etes et votre code PIN.")
RECU_SANS_NUMERO = un_sms("Envoyez RECU suivi du numero du recu, par exemple: RECU REC-MJ-2026-000012")
RECU_INTROUVABLE = un_sms("Recu introuvable. Pour un recu qui n'est pas le votre, envoyez RECU <numero> <cle> avec "
                          "la cle imprimee sous le QR code.")
STOP = un_sms("Vous ne recevrez plus de rappels par SMS. Vos recus vous restent envoyes. Pour reprendre les "
              "rappels, envoyez START.")
START = un_sms("Les rappels par SMS reprennent pour ce numero. Pour les arreter, envoyez STOP.")


def solde(organisation: str, s: Situation) -> str:
    retard = f", dont {s.en_retard} cotisation(s) en retard" if s.en_retard else ""
    echeance = f" Prochaine echeance: {jour(s.prochaine)}." if s.prochaine else ""
    return un_sms(f"{court(organisation, 30)}: vous devez {francs(s.doit)}{retard}.{echeance} "
                  f"Credit: {francs(s.credit)}. Solde: {francs(s.solde)}.")


def verification(numero: str, valide: bool, statut: str, montant: Decimal, quand: datetime,
                 organisation: str) -> str:
    etat = "VALIDE" if valide else f"NON VALIDE ({statut})"
    return un_sms(f"Recu {court(numero, 30)} authentique: {etat}. {francs(montant)} le {jour(quand)}, "
                  f"{court(organisation, 40)}.")
