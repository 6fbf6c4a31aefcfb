"""ORM models. Importing this package registers every table on ``Base.metadata``."""

from unionflow.models.adhesion import Adhesion
from unionflow.models.audit import AuditLog
from unionflow.models.base import Base
from unionflow.models.cotisation import Cotisation
from unionflow.models.identite import Compteur, LoginThrottle, RefreshToken, SigningKey, UtilisateurLocal
from unionflow.models.membre import Membre, MembreOrganisation
from unionflow.models.monitoring import AlerteConfig, AlerteSysteme, Sauvegarde, SauvegardeConfig
from unionflow.models.organisation import Organisation
from unionflow.models.paiement import Paiement, PaiementAllocation

__all__ = [
    "Adhesion",
    "AlerteConfig",
    "AlerteSysteme",
    "AuditLog",
    "Base",
    "Compteur",
    "Cotisation",
    "LoginThrottle",
    "Membre",
    "MembreOrganisation",
    "Organisation",
    "Paiement",
    "PaiementAllocation",
    "RefreshToken",
    "Sauvegarde",
    "SauvegardeConfig",
    "SigningKey",
    "UtilisateurLocal",
]
