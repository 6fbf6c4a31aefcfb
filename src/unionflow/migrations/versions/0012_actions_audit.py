"""actions_audit: audit typeAction codes as French infinitives (CREATE → CREER, APPROVE → APPROUVER, ...)

Revision ID: 0012_actions_audit
Revises: 0011_journaux
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012_actions_audit"
down_revision: str | Sequence[str] | None = "0011_journaux"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Entries written before the codes were unified, renamed so that one filter finds old and new alike.
RENAMES: list[tuple[str, str]] = [
    ("ACQUITTEMENT", "ACQUITTER"),
    ("ADD_PARTICIPANTS", "AJOUTER_PARTICIPANTS"),
    ("AJOUT_APPARTENANCE", "AJOUTER_APPARTENANCE"),
    ("ALERTE", "ALERTER"),
    ("ALERTE_OUVERTE", "OUVRIR_ALERTE"),
    ("ALERTE_RESOLUE", "RESOUDRE_ALERTE"),
    ("APPROVE", "APPROUVER"),
    ("ASSIGN", "ASSIGNER"),
    ("ATTACH", "JOINDRE"),
    ("ATTRIBUTION_ROLES", "ATTRIBUER_ROLES"),
    ("CANCEL", "ANNULER"),
    ("CHANGE_PASSWORD", "CHANGER_MOT_DE_PASSE"),
    ("CLOSE", "CLORE"),
    ("CONFIRM", "CONFIRMER"),
    ("CREATE", "CREER"),
    ("DEACTIVATE", "DESACTIVER"),
    ("DELETE", "SUPPRIMER"),
    ("DOWNLOAD", "TELECHARGER"),
    ("EXPORT", "EXPORTER"),
    ("FEEDBACK", "EVALUER"),
    ("FIN_APPARTENANCE", "TERMINER_APPARTENANCE"),
    ("LEAVE", "QUITTER"),
    ("LOGIN", "CONNECTER"),
    ("MESSAGE", "ECRIRE"),
    ("MODERATE", "MODERER"),
    ("PAIEMENT", "PAYER"),
    ("PAIEMENT_VALIDE", "VALIDER_PAIEMENT"),
    ("PROCESS", "TRAITER"),
    ("PROMOTE", "PROMOUVOIR"),
    ("RAPPEL", "RAPPELER"),
    ("REACTIVATE", "REACTIVER"),
    ("REGISTER", "INSCRIRE"),
    ("REJECT", "REJETER"),
    ("RELEASE", "LIBERER"),
    ("RESERVE", "RESERVER"),
    ("RESTAURATION", "RESTAURER"),
    ("SAUVEGARDE", "SAUVEGARDER"),
    ("SUBMIT", "SOUMETTRE"),
    ("SUPPRESSION", "SUPPRIMER"),
    ("SUSPEND", "SUSPENDRE"),
    ("UNASSIGN", "DESASSIGNER"),
    ("UNREGISTER", "DESINSCRIRE"),
    ("UNVOTE", "RETIRER_VOTE"),
    ("UPDATE", "MODIFIER"),
    ("UPDATE_ROLES", "MODIFIER_ROLES"),
    ("VERSEMENT", "VERSER"),
    ("VERSEMENT_ANNULE", "ANNULER_VERSEMENT"),
    ("VOTE", "VOTER"),
    ("WAVE_CHECKOUT", "OUVRIR_PAIEMENT_WAVE"),
    ("WAVE_WEBHOOK_ANOMALIE", "SIGNALER_ANOMALIE_WAVE"),
]


def _rename(pairs: list[tuple[str, str]]) -> None:
    statement = sa.text("UPDATE audit_log SET type_action = :new WHERE type_action = :old")
    for old, new in pairs:
        op.execute(statement.bindparams(old=old, new=new))


def upgrade() -> None:
    _rename(RENAMES)
    # Approvals of a multi-level workflow carried the level in the code.
    op.execute("UPDATE audit_log SET type_action = 'APPROUVER_NIVEAU_' || substr(type_action, 16) "
               "WHERE type_action LIKE 'APPROVE_NIVEAU_%'")


def downgrade() -> None:
    # Several old codes map to one new code (DELETE and SUPPRESSION → SUPPRIMER): the first one is restored.
    seen: dict[str, str] = {}
    for old, new in RENAMES:
        seen.setdefault(new, old)
    _rename([(new, old) for new, old in seen.items()])
    op.execute("UPDATE audit_log SET type_action = 'APPROVE_NIVEAU_' || substr(type_action, 18) "
               "WHERE type_action LIKE 'APPROUVER_NIVEAU_%'")
