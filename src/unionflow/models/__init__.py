"""ORM models. Importing this package registers every table on ``Base.metadata``."""

from unionflow.models.adhesion import Adhesion
from unionflow.models.audit import AuditLog
from unionflow.models.base import Base
from unionflow.models.cotisation import Cotisation
from unionflow.models.document import Document, PieceJointe, TelechargementDocument
from unionflow.models.evenement import (
    Evenement,
    FeedbackEvenement,
    InscriptionEvenement,
    NotificationEvenement,
    TypeReference,
)
from unionflow.models.identite import Compteur, LoginThrottle, RefreshToken, SigningKey, UtilisateurLocal
from unionflow.models.membre import Membre, MembreOrganisation
from unionflow.models.organisation import Organisation
from unionflow.models.paiement import Paiement, PaiementAllocation

__all__ = [
    "Adhesion",
    "AuditLog",
    "Base",
    "Compteur",
    "Cotisation",
    "Document",
    "Evenement",
    "FeedbackEvenement",
    "InscriptionEvenement",
    "LoginThrottle",
    "Membre",
    "MembreOrganisation",
    "NotificationEvenement",
    "Organisation",
    "Paiement",
    "PaiementAllocation",
    "PieceJointe",
    "RefreshToken",
    "SigningKey",
    "TelechargementDocument",
    "TypeReference",
    "UtilisateurLocal",
]
