"""The processings of personal data notifications/ declares (core/traitements.py): collected by registres.py into the
register of processings (GET /api/conformite/traitements)."""

from __future__ import annotations

from unionflow.core.traitements import DeclarationTraitement
from unionflow.notifications.emission import TRAITEMENT_COMMUNICATIONS

TRAITEMENTS = (
    DeclarationTraitement(
        code='NOTIFICATIONS',
        nom='Notifications et préférences',
        zone='notifications',
        finalite='Envoyer aux membres les avis (e-mail, SMS) et respecter leurs préférences et oppositions (STOP)',
        base_legale=("Exécution de l'adhésion; opposition du membre respectée; loi n° 2008-12, article non vérifié"
                     ' (docs/conformite.md)'),
        categories_donnees=(
            "adresse d'envoi (e-mail, téléphone)",
            'contenu des avis',
            'préférences, numéros opposés',
        ),
        personnes_concernees=('membres',),
        destinataires=("la passerelle SMS et le serveur de messagerie de l'exploitant",),
        duree_conservation=("Avis: adresse et texte effacés après {messages_jours} jours; préférences et oppositions: "
                            "tant qu'elles valent"),
        transferts_hors_senegal=("Aucun par UnionFlow; hébergement hors du Sénégal: à déclarer par l'exploitant "
                                 '(non vérifié)'),
        tables=('notification', 'preference_membre', 'opposition_sms'),
    ),
    DeclarationTraitement(
        code=TRAITEMENT_COMMUNICATIONS,
        nom="Informations, invitations et prospection de l'organisation",
        zone='notifications',
        finalite=("Envoyer aux membres, par SMS et par e-mail, les informations générales, les invitations aux "
                  'événements et les offres (prospection) du bureau ou de ses partenaires'),
        base_legale=("Intérêt légitime de l'organisation; opposition sans frais à la prospection (loi n° 2008-12)"),
        categories_donnees=("adresse d'envoi (e-mail, téléphone)", 'contenu des avis'),
        personnes_concernees=('membres',),
        destinataires=("la passerelle SMS et le serveur de messagerie de l'exploitant",),
        duree_conservation="Avis: adresse et texte effacés après {messages_jours} jours",
        transferts_hors_senegal=("Aucun par UnionFlow; hébergement hors du Sénégal: à déclarer par l'exploitant "
                                 '(non vérifié)'),
        tables=('notification',),
        opposable=True,
        effet_opposition=("Plus aucune information, invitation ni offre (SMS, e-mail, messagerie de l'application);"
                          ' les avis sur votre argent et vos inscriptions (reçus, annulations, décisions) vous '
                          'parviennent toujours'),
    ),
)
