"""The processings of personal data messagerie/ declares (core/traitements.py): collected by registres.py into the
register of processings (GET /api/conformite/traitements)."""

from __future__ import annotations

from unionflow.core.traitements import DeclarationTraitement

TRAITEMENTS = (
    DeclarationTraitement(
        code='MESSAGERIE',
        nom='Messagerie',
        zone='messagerie',
        finalite='Échanger des messages entre membres et bureau',
        base_legale='Demande des participants; loi n° 2008-12, article non vérifié (docs/conformite.md)',
        categories_donnees=('messages', 'notes vocales', 'participants'),
        personnes_concernees=('membres',),
        destinataires=('les participants de la conversation',),
        duree_conservation=("Texte des messages effacé et enregistrement des notes vocales supprimé après "
                            "{messages_jours} jours"),
        transferts_hors_senegal=("Aucun par UnionFlow; hébergement hors du Sénégal: à déclarer par l'exploitant "
                                 '(non vérifié)'),
        tables=('conversation', 'conversation_participant', 'message_conversation'),
    ),
)
