"""ORM models. Importing this package registers every table on ``Base.metadata``."""

from unionflow.models.adhesion import Adhesion
from unionflow.models.audit import AuditLog
from unionflow.models.base import Base
from unionflow.models.cloture import ClotureMensuelle, ExerciceComptable, VerrouComptable
from unionflow.models.cotisation import Cotisation
from unionflow.models.document import Document, PieceJointe, TelechargementDocument
from unionflow.models.evenement import (
    Evenement,
    FeedbackEvenement,
    InscriptionEvenement,
    NotificationEvenement,
    TypeReference,
)
from unionflow.models.idempotence import CleIdempotence
from unionflow.models.identite import Compteur, LoginThrottle, RefreshToken, SigningKey, UtilisateurLocal
from unionflow.models.membre import Membre, MembreOrganisation
from unionflow.models.monitoring import AlerteConfig, AlerteSysteme, Sauvegarde, SauvegardeConfig
from unionflow.models.organisation import Organisation
from unionflow.models.paiement import MouvementAvoir, Paiement, PaiementAllocation
from unionflow.models.rappel_cotisation import RappelCotisation
from unionflow.models.recette import CompteProduit
from unionflow.models.tresorerie import Tresorerie
from unionflow.models.versement import Versement
from unionflow.models.wave import (
    CompteWave,
    LigneReleveWave,
    RapprochementWave,
    ReleveWave,
    TransactionWave,
    WaveCheckout,
    WaveEvenement,
)

__all__ = [
    "Adhesion",
    "AlerteConfig",
    "AlerteSysteme",
    "AuditLog",
    "Base",
    "CleIdempotence",
    "ClotureMensuelle",
    "CompteProduit",
    "CompteWave",
    "Compteur",
    "CorrespondanceSycebnl",
    "Cotisation",
    "Document",
    "Evenement",
    "ExerciceComptable",
    "FeedbackEvenement",
    "InscriptionEvenement",
    "LigneReleveWave",
    "LoginThrottle",
    "Membre",
    "MembreOrganisation",
    "MouvementAvoir",
    "NotificationEvenement",
    "Organisation",
    "Paiement",
    "PaiementAllocation",
    "PieceJointe",
    "RappelCotisation",
    "RapprochementWave",
    "RefreshToken",
    "ReleveWave",
    "Sauvegarde",
    "SauvegardeConfig",
    "SigningKey",
    "TelechargementDocument",
    "TransactionWave",
    "Tresorerie",
    "TypeReference",
    "UtilisateurLocal",
    "VerrouComptable",
    "Versement",
    "WaveCheckout",
    "WaveEvenement",
]
# Accounting, configuration, LCB-FT, aid requests.
from unionflow.models.comptabilite import CompteComptable, EcritureComptable, JournalComptable, LigneEcriture
from unionflow.models.configuration import ConfigurationEntry, ConfigurationOrganisation, ReferentielComptable
from unionflow.models.demande_aide import DemandeAide
from unionflow.models.lcbft import AlerteLcbFt, ParametresLcbFt
from unionflow.models.notification import ModeleNotification, Notification, PreferenceMembre  # notifications

__all__ += ["AlerteLcbFt", "CompteComptable", "ConfigurationEntry", "ConfigurationOrganisation", "DemandeAide",
            "EcritureComptable", "JournalComptable", "LigneEcriture", "ParametresLcbFt", "ReferentielComptable"]
# Finance (budgets, approvals) and propositions d'aide.
from unionflow.models.approbation import DecisionDemande, DemandeApprobation  # noqa: E402
from unionflow.models.finance import Budget, LigneBudget  # noqa: E402
from unionflow.models.proposition_aide import PropositionAide  # noqa: E402

__all__ += ["Budget", "DecisionDemande", "DemandeApprobation", "LigneBudget", "PropositionAide"]

__all__ += ["ModeleNotification", "Notification", "PreferenceMembre"]
# Tickets, suggestions, feedback, favourites.
from unionflow.models.ticket import Ticket, TicketMessage  # noqa: E402

__all__ += ["Ticket", "TicketMessage"]
from unionflow.models.suggestion import Suggestion, SuggestionVote  # noqa: E402
from unionflow.models.sycebnl import CorrespondanceSycebnl  # noqa: E402

__all__ += ["Suggestion", "SuggestionVote"]
from unionflow.models.feedback import Feedback  # noqa: E402

__all__ += ["Feedback"]
from unionflow.models.favori import Favori  # noqa: E402

__all__ += ["Favori"]
from unionflow.models.messagerie import (  # noqa: E402
    Conversation,
    ConversationParticipant,
    MessageConversation,
)

__all__ += ["Conversation", "ConversationParticipant", "MessageConversation"]
from unionflow.models.cache import ResultatCache  # noqa: E402

__all__ += ["ResultatCache"]
from unionflow.models.integration import AbonnementWebhook, ClientApi, LivraisonWebhook  # noqa: E402

__all__ += ["AbonnementWebhook", "ClientApi", "LivraisonWebhook"]
from unionflow.models.maintenance import Maintenance  # noqa: E402

__all__ += ["Maintenance"]
from unionflow.models.planificateur import ExecutionJob, JetonReinitialisation, PlanificationJob, Tache  # noqa: E402

__all__ += ["ExecutionJob", "JetonReinitialisation", "PlanificationJob", "Tache"]
from unionflow.models.journal import JournalSysteme  # noqa: E402

__all__ += ["JournalSysteme"]
from unionflow.models.cotisation_synthese import (  # noqa: E402
    CotisationMembreSynthese,
    CotisationSynthese,
    CotisationSyntheseDelta,
)

__all__ += ["CotisationMembreSynthese", "CotisationSynthese", "CotisationSyntheseDelta"]

from unionflow.models.ussd import PinUssd  # noqa: E402

__all__ += ["PinUssd"]

from unionflow.models.sms import CodePinSms, OppositionSms, SmsEntrant  # noqa: E402

__all__ += ["CodePinSms", "OppositionSms", "SmsEntrant"]

from unionflow.models.don import (  # noqa: E402
    ContributionBenevole,
    FondsDedie,
    LigneRegistreDon,
    MouvementFondsDedie,
)

__all__ += ["ContributionBenevole", "FondsDedie", "LigneRegistreDon", "MouvementFondsDedie"]
from unionflow.models.donnees_personnelles import (  # noqa: E402
    AccesDossier,
    Consentement,
    NoticeInformation,
    OppositionTraitement,
    RecepisseTraitement,
)

__all__ += ["AccesDossier", "Consentement", "NoticeInformation", "OppositionTraitement", "RecepisseTraitement"]
from unionflow.models.solde_compte_mois import SoldeCompteMois, SoldeCompteMoisDelta  # noqa: E402

__all__ += ["SoldeCompteMois", "SoldeCompteMoisDelta"]
