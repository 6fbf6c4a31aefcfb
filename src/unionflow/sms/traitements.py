"""The processings of personal data sms/ declares (core/traitements.py): collected by registres.py into the
register of processings (GET /api/conformite/traitements)."""

from __future__ import annotations

from unionflow.core.traitements import DeclarationTraitement

TRAITEMENTS = (
    DeclarationTraitement(
        code='SMS_ENTRANTS',
        nom='SMS reçus',
        zone='sms',
        finalite='Répondre aux mots-clés envoyés par SMS (SOLDE, RECU, AIDE, STOP)',
        base_legale='Demande de la personne; loi n° 2008-12, article non vérifié (docs/conformite.md)',
        categories_donnees=('numéro expéditeur', 'texte du message'),
        personnes_concernees=('membres et expéditeurs inconnus',),
        destinataires=('la passerelle SMS',),
        duree_conservation=("Expéditeur et texte effacés après {messages_jours} jours; la ligne reste contre un "
                            "double traitement"),
        transferts_hors_senegal=("Aucun par UnionFlow; hébergement hors du Sénégal: à déclarer par l'exploitant "
                                 '(non vérifié)'),
        tables=('sms_entrant',),
    ),
)
