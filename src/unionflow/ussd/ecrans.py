"""USSD screens: pure functions from figures already computed by their own services to the text a basic phone
shows. Every screen is GSM-7 (accents outside the alphabet transliterated) and at most ``ECRAN_MAX`` characters,
``CON `` / ``END `` prefix included (docs/ussd-sms.md lists every screen with its length)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal

from unionflow.core.code_paiement import afficher
from unionflow.notifications.gsm import court, gsm7, septets, un_sms

ECRAN_MAX = 182


@dataclass(frozen=True)
class Profil:
    """One (member, organisation) a phone number may speak for."""

    membre_id: uuid.UUID
    prenom: str
    nom: str
    organisation_id: uuid.UUID
    organisation: str


@dataclass(frozen=True)
class Situation:
    """What a member owes and holds in one organisation (the member API's figures)."""

    doit: Decimal
    en_retard: int
    prochaine: date | None
    credit: Decimal
    solde: Decimal


def _ecran(prefixe: str, text: str) -> str:
    body = gsm7(text)
    # A screen never overflows: dynamic parts are cut before, this is the last guard.
    while (septets(prefixe + body) or 0) > ECRAN_MAX:
        body = body[:-4] + "..."
    return prefixe + body


def con(text: str) -> str:
    return _ecran("CON ", text)


def end(text: str) -> str:
    return _ecran("END ", text)


def francs(montant: Decimal) -> str:
    entier = int(montant.quantize(Decimal(1), rounding=ROUND_HALF_UP))
    return f"{entier:,}".replace(",", " ") + " F"


def jour(value: date | datetime) -> str:
    return value.strftime("%d/%m/%Y")


INCONNU = end("Ce numero n'est lie a aucun membre. Adressez-vous a votre association.")
CHOIX_INVALIDE = end("Choix invalide. Recomposez le code pour recommencer.")
VERROUILLE = end("Acces USSD bloque apres 3 codes PIN faux. Demandez a votre tresorier de le debloquer.")
DEMANDE_PIN = con("Entrez votre code PIN:")
TROP_DE_DEMANDES = end("Trop de demandes depuis ce numero. Reessayez dans une minute.")
MENU = con("UnionFlow\n1 Mon solde\n2 Payer une cotisation\n3 Mes derniers recus\n4 Verifier un recu\n"
           "5 Ma demande d'aide\n6 Mon prochain evenement")
# The PIN by one-time SMS code.
SANS_PIN_CODE = con("Vous n'avez pas de code PIN USSD.\n1 Recevoir un code par SMS pour le creer")
SANS_PIN_PARTAGE = end("Vous n'avez pas de code PIN USSD. Ce numero est partage: creez-le dans l'application ou "
                       "aupres de votre tresorier.")
CODE_ENVOYE = end("Un code vous a ete envoye par SMS. Recomposez le code USSD et tapez-le pour creer votre code PIN.")
DEMANDE_CODE = con("Entrez le code recu par SMS (0: recevoir un nouveau code):")
NOUVEAU_PIN = con("Choisissez votre code PIN (4 a 6 chiffres):")
CONFIRMER_PIN = con("Confirmez votre code PIN:")
PIN_REFUSE = end("Code PIN refuse: 4 a 6 chiffres, ni tous identiques ni une suite (1234). Recomposez pour "
                 "recommencer.")
PIN_DIFFERENT = end("Les deux codes PIN sont differents. Recomposez pour recommencer.")
PIN_CREE = end("Code PIN enregistre. Recomposez le code USSD pour acceder a votre compte.")
NUMERO_RECU = con("Numero du recu (ex. REC-...):")
CLE_RECU = con("Cle de verification (imprimee sous le QR code du recu, apres cle=):")
RECU_INTROUVABLE = end("Recu introuvable ou cle incorrecte.")
SANS_DEMANDE = end("Vous n'avez aucune demande d'aide.")
SANS_EVENEMENT = end("Aucun evenement a venir.")
SANS_RECU = end("Aucun paiement recu pour l'instant.")


def choix(profils: Sequence[Profil]) -> str:
    lignes = [f"{i} {court(p.prenom + ' ' + p.nom, 18)} - {court(p.organisation, 20)}"
              for i, p in enumerate(profils[:5], start=1)]
    return con("Pour qui?\n" + "\n".join(lignes))


def code_faux(restants: int) -> str:
    if restants <= 0:
        return end("Code annule apres 3 essais faux. Recomposez le code USSD pour en recevoir un nouveau.")
    return end(f"Code incorrect. Encore {restants} essai(s). Recomposez pour recommencer.")


def pin_faux(restants: int) -> str:
    if restants <= 0:
        return VERROUILLE
    return end(f"Code PIN incorrect. Encore {restants} essai(s) avant blocage.")


def solde(organisation: str, s: Situation) -> str:
    lignes = [court(organisation, 30), f"Vous devez: {francs(s.doit)}"]
    if s.en_retard:
        lignes.append(f"En retard: {s.en_retard} cotisation(s)")
    lignes.append(f"Prochaine echeance: {jour(s.prochaine)}" if s.prochaine else "Aucune echeance a venir")
    lignes += [f"Credit: {francs(s.credit)}", f"Solde: {francs(s.solde)}"]
    return end("\n".join(lignes))


def payer(doit: Decimal) -> str:
    """Owed, but no dues to pay here (adhesion fees only), or nothing owed."""
    if doit <= 0:
        return end("Vous etes a jour: rien a payer.")
    return end(f"A payer: {francs(doit)} (frais d'adhesion). Payez aupres de votre tresorier.")


def a_payer(doit: Decimal, cotisations: Sequence[tuple[str, Decimal]]) -> str:
    """The dues to choose from (at most ``COTISATIONS_MAX``): label and what each still owes."""
    lignes = [f"{n} {court(libelle, 22)} {francs(reste)}"
              for n, (libelle, reste) in enumerate(cotisations[:COTISATIONS_MAX], start=1)]
    return con("\n".join([f"A payer: {francs(doit)}", *lignes]))


COTISATIONS_MAX = 4


def cotisation(libelle: str, reste: Decimal, code: str) -> str:
    return con(f"{court(libelle, 40)}\nA payer: {francs(reste)}\nCode de paiement: {afficher(code)} (un proche "
               "peut payer avec ce code)\n1 Recevoir le lien Wave par SMS")


def lien_envoye(code: str) -> str:
    return end(f"Le lien de paiement Wave arrive par SMS. Ou faites un transfert Wave avec le code {afficher(code)} "
               "en message.")


def wave_indisponible(code: str) -> str:
    return end(f"Wave ne repond pas. Reessayez plus tard, ou faites un transfert Wave avec le code "
               f"{afficher(code)} en message.")


PAIEMENT_EN_COURS = end("Un paiement de cette cotisation est deja en cours. Reessayez plus tard.")


def sms_lien(reste: Decimal, code: str, lien: str) -> str:
    """The SMS with the Wave link (GSM-7; one segment when the link allows it)."""
    return gsm7(f"Payez {francs(reste)} (code {afficher(code)}) avec Wave: {lien}")


def recus(lignes: Sequence[tuple[str, Decimal, date | datetime]]) -> str:
    if not lignes:
        return SANS_RECU
    texte = "\n".join(f"{numero} {francs(montant)} {jour(quand)}" for numero, montant, quand in lignes[:3])
    return end("Derniers recus:\n" + texte)


def verification(numero: str, valide: bool, statut: str, montant: Decimal, quand: datetime,
                 organisation: str) -> str:
    etat = "VALIDE" if valide else f"NON VALIDE ({statut})"
    return end(f"Recu {court(numero, 30)} authentique: {etat}\n{francs(montant)} le {jour(quand)}\n"
               f"{court(organisation, 40)}")


STATUTS_AIDE = {"SOUMISE": "en cours d'examen", "APPROUVEE": "approuvee", "REJETEE": "rejetee"}


def aide(reference: str, titre: str, statut: str, demande: Decimal, accorde: Decimal | None) -> str:
    lignes = [f"Demande {reference}: {court(titre, 40)}", f"Montant demande: {francs(demande)}",
              f"Statut: {STATUTS_AIDE.get(statut, statut.lower())}"]
    if accorde is not None:
        lignes.append(f"Accorde: {francs(accorde)}")
    return end("\n".join(lignes))


def evenement(titre: str, debut: datetime, lieu: str | None) -> str:
    texte = f"Prochain evenement:\n{court(titre, 60)}\nLe {jour(debut)} a {debut.strftime('%H:%M')} UTC"
    if lieu:
        texte += f"\nLieu: {court(lieu, 50)}"
    return end(texte)


def sms_code_pin(code: str, minutes: int) -> str:
    """The SMS carrying the one-time code that sets a USSD PIN (one segment)."""
    return un_sms(f"Votre code pour creer votre code PIN USSD: {code}. Valable {minutes} min. Composez le code "
                  "USSD de votre association et tapez-le. Ne le donnez a personne.")
