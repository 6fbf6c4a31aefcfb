"""The processings of personal data evenements/ declares (core/traitements.py): collected by registres.py into the
register of processings (GET /api/conformite/traitements)."""

from __future__ import annotations

from unionflow.core.traitements import DeclarationTraitement

TRAITEMENTS = (
    DeclarationTraitement(
        code='EVENEMENTS',
        nom='Événements',
        zone='evenements',
        finalite='Inscrire les membres aux événements, recueillir leurs avis',
        base_legale='Demande du membre; loi n° 2008-12, article non vérifié (docs/conformite.md)',
        categories_donnees=('inscriptions', 'avis', 'avis de convocation envoyés'),
        personnes_concernees=('membres',),
        destinataires=('les organisateurs',),
        duree_conservation=("Inscriptions: avec l'événement (présences aux assemblées), l'identité suivant la fiche "
                            "du membre; avis de convocation: texte effacé après {messages_jours} jours; commentaires: "
                            "effacés {echanges_jours} jours après la fin de l'événement, notes gardées"),
        transferts_hors_senegal=("Aucun par UnionFlow; hébergement hors du Sénégal: à déclarer par l'exploitant "
                                 '(non vérifié)'),
        tables=('inscription_evenement', 'feedback_evenement', 'notification_evenement'),
    ),
)
