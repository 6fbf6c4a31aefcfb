"""What the data subject's export and erasure cover: one section per table naming the member (or the local account
behind him), each declared once with the door it is read through — the owning area's repository — and what
erasure does to its rows.

Loi 2008-12 (docs/conformite.md D6, D7, D8): the export answers the right of access (art. 62); erasure
pseudonymises the identity everywhere it is shown and keeps accounting rows (amounts, receipt numbers, entries,
audit) for their retention (S12). ``tests/donnees_membre/test_registre.py`` fails when a table with a foreign key to
``membre`` or ``utilisateur_local`` is neither here nor in ``EXCLUSIONS`` with its reason, or when a section's door
is not its table's owner.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from unionflow.adhesions.repository import AdhesionRepository
from unionflow.auth.repository import JetonReinitialisationRepository, RefreshTokenRepository, UtilisateurRepository
from unionflow.cotisations.repository import CotisationSystemRepository
from unionflow.demandes_aide.repository import DemandeAideSystemRepository
from unionflow.documents.repository import DocumentRepository
from unionflow.donnees_personnelles.repository import (
    AccesDossierRepository,
    ConsentementRepository,
    OppositionTraitementRepository,
)
from unionflow.dons.benevolat_repository import BenevolatRepository
from unionflow.dons.repository import RegistreDonRepository
from unionflow.evenements.repository import FeedbackEvenementRepository, InscriptionRepository
from unionflow.feedback.repository import FeedbackRepository
from unionflow.membres.repository import MembreRepository
from unionflow.messagerie.repository import ConversationRepository
from unionflow.notifications.repository import NotificationSystemRepository
from unionflow.paiements.avoirs.repository import MouvementAvoirRepository
from unionflow.paiements.repository import PaiementSystemRepository
from unionflow.preferences.repository import PreferenceMembreRepository
from unionflow.propositions_aide.repository import PropositionAideRepository
from unionflow.sms.repository import SmsEntrantRepository
from unionflow.suggestions.repository import SuggestionRepository
from unionflow.tickets.repository import TicketRepository
from unionflow.ussd.repository import CodePinSmsRepository, PinUssdRepository


class Sujet(StrEnum):
    MEMBRE = "MEMBRE"  # rows naming ``membre.id``
    COMPTE = "COMPTE"  # rows naming the built-in identity provider's account linked to the member


class Effacement(StrEnum):
    GARDER = "GARDER"  # kept as is: accounting, memberships, registrations (they name a pseudonymised member)
    MODIFIER = "MODIFIER"  # the columns of ``remplacer`` are overwritten
    SUPPRIMER = "SUPPRIMER"  # secrets and sessions: deleted


# Placeholders in ``remplacer``: the member's pseudonym (« Membre effacé #1a2b3c4d »), a removed text.
PSEUDONYME = "<pseudonyme>"
EFFACE = "[effacé]"


@dataclass(frozen=True)
class SectionExport:
    cle: str
    titre: str
    table: str
    colonne: str
    porte: type[Any]  # the owning area's repository (one door per table)
    sujet: Sujet = Sujet.MEMBRE
    effacement: Effacement = Effacement.GARDER
    remplacer: Mapping[str, Any] = field(default_factory=dict)

    def valeurs(self, pseudonyme: str) -> dict[str, Any]:
        return {k: pseudonyme if v == PSEUDONYME else v for k, v in self.remplacer.items()}


def _m(cle: str, intitule: str, table: str, porte: type[Any], colonne: str = "membre_id",
       /, **remplacer: Any) -> SectionExport:
    """A section of rows naming ``membre.id``; ``remplacer``: the columns erasure overwrites (none: kept)."""
    effacement = Effacement.MODIFIER if remplacer else Effacement.GARDER
    return SectionExport(cle, intitule, table, colonne, porte, effacement=effacement, remplacer=remplacer)


# The member row itself is read here too; its pseudonymisation is the service's (it has rules of its own: login,
# status, the erasure date).
SECTIONS: tuple[SectionExport, ...] = (
    _m("identite", "Identité", "membre", MembreRepository, "id"),
    _m("appartenances", "Appartenances aux organisations", "membre_organisation", MembreRepository),
    _m("adhesions", "Demandes d'adhésion", "adhesion", AdhesionRepository, observations=None),
    _m("cotisations", "Cotisations", "cotisation", CotisationSystemRepository),
    _m("rappels", "Rappels de cotisation", "rappel_cotisation", CotisationSystemRepository,
       destinataire=None, message=EFFACE),
    _m("paiements", "Paiements et reçus", "paiement", PaiementSystemRepository),
    _m("avoirs", "Mouvements d'avoir", "mouvement_avoir", MouvementAvoirRepository),
    _m("demandes_aide", "Demandes d'aide", "demande_aide", DemandeAideSystemRepository,
       titre=EFFACE, description=EFFACE),
    _m("propositions_aide", "Propositions d'aide", "proposition_aide", PropositionAideRepository,
       description=EFFACE, disponibilite=None),
    _m("inscriptions", "Inscriptions aux événements", "inscription_evenement", InscriptionRepository),
    _m("avis_evenements", "Avis sur les événements", "feedback_evenement", FeedbackEvenementRepository,
       commentaire=None),
    _m("avis_evenements_envoyes", "Messages d'événements reçus", "notification_evenement", InscriptionRepository,
       message=EFFACE),
    _m("notifications", "Notifications", "notification", NotificationSystemRepository,
       adresse=None, sujet=EFFACE, corps=EFFACE),
    _m("sms_recus", "SMS envoyés à UnionFlow", "sms_entrant", SmsEntrantRepository,
       expediteur=EFFACE, texte=EFFACE),
    _m("preferences", "Préférences", "preference_membre", PreferenceMembreRepository),
    _m("conversations", "Conversations créées", "conversation", ConversationRepository, "cree_par_membre_id"),
    _m("participations", "Participations aux conversations", "conversation_participant", ConversationRepository),
    _m("messages", "Messages écrits", "message_conversation", ConversationRepository, "auteur_membre_id",
       contenu=EFFACE),
    _m("documents", "Documents (métadonnées)", "document", DocumentRepository, "proprietaire_membre_id",
       nom_fichier="document-efface", description=None),
    _m("avis", "Avis sur l'application", "feedback", FeedbackRepository, auteur_nom=PSEUDONYME, message=EFFACE,
       contexte=None),
    _m("suggestions", "Suggestions", "suggestion", SuggestionRepository, auteur_nom=PSEUDONYME),
    _m("votes", "Votes sur les suggestions", "suggestion_vote", SuggestionRepository),
    _m("tickets", "Demandes d'assistance", "ticket", TicketRepository, demandeur_nom=PSEUDONYME),
    _m("tickets_assignes", "Demandes d'assistance assignées", "ticket", TicketRepository, "assigne_membre_id"),
    _m("messages_tickets", "Messages d'assistance", "ticket_message", TicketRepository, "auteur_membre_id",
       auteur_nom=PSEUDONYME),
    # Evidence the processing was lawful, and the trace of who read the file: shown to him, kept as they are.
    _m("consentements", "Consentements (donnés et retirés)", "consentement", ConsentementRepository),
    _m("acces", "Qui a consulté ma fiche", "acces_dossier", AccesDossierRepository),
    _m("oppositions", "Oppositions aux traitements (en vigueur et retirées)", "opposition_traitement",
       OppositionTraitementRepository),
    # The sealed register of donations (hash chain of its lines): a line changed afterwards would break the seal,
    # so the donor's identity stays in this legal register for its retention, like an accounting record.
    _m("dons", "Dons au registre des dons et legs", "ligne_registre_don", RegistreDonRepository),
    # The hours and their value stay (a year's notes show them); what he did is a free text about him.
    _m("benevolat", "Bénévolat enregistré", "contribution_benevole", BenevolatRepository, activite=EFFACE),
    SectionExport("pin_ussd", "Code PIN USSD (état)", "pin_ussd", "membre_id", PinUssdRepository,
            effacement=Effacement.SUPPRIMER),
    SectionExport("codes_sms", "Codes PIN envoyés par SMS (état)", "code_pin_sms", "membre_id", CodePinSmsRepository,
            effacement=Effacement.SUPPRIMER),
    # The local account behind the member: erased (disabled, renamed) by the service, like the member row.
    SectionExport("compte", "Compte de connexion", "utilisateur_local", "id", UtilisateurRepository, Sujet.COMPTE),
    SectionExport("sessions", "Sessions de connexion", "refresh_token", "user_id", RefreshTokenRepository, Sujet.COMPTE,
            Effacement.SUPPRIMER),
    SectionExport("reinitialisations", "Demandes de nouveau mot de passe", "jeton_reinitialisation", "user_id",
            JetonReinitialisationRepository, Sujet.COMPTE, Effacement.SUPPRIMER),
)

# Tables naming the member that the export leaves out, and why.
EXCLUSIONS: Mapping[str, str] = {
    # LCB-FT: telling a person that a suspicious-transaction alert names him is « tipping off », forbidden by the
    # anti-money-laundering law (docs/conformite.md L3; article non vérifié). Kept for its retention, not erased.
    "alerte_lcb_ft": "alerte LCB-FT: ne pas avertir la personne concernée (LCB-FT), conservée",
}

# Column names whose values are secrets or internal storage keys: shown as masked, never exported.
MASQUES = ("hash", "token", "secret", "cle_stockage", "cle_verification", "password")


def masque(colonne: str) -> bool:
    return any(m in colonne for m in MASQUES)
