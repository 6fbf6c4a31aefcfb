"""The processings of personal data ussd/ declares (core/traitements.py): collected by registres.py into the
register of processings (GET /api/conformite/traitements)."""

from __future__ import annotations

from unionflow.core.traitements import DeclarationTraitement

TRAITEMENTS = (
    DeclarationTraitement(
        code='USSD',
        nom='Libre-service USSD',
        zone='ussd',
        finalite='Identifier le membre au téléphone par son code PIN',
        base_legale='Demande du membre; loi n° 2008-12, article non vérifié (docs/conformite.md)',
        categories_donnees=('empreinte du code PIN', 'code à usage unique envoyé par SMS'),
        personnes_concernees=('membres',),
        destinataires=("l'opérateur de la passerelle USSD",),
        duree_conservation="Tant que le membre garde son PIN; code SMS jusqu'à expiration",
        transferts_hors_senegal=("Aucun par UnionFlow; hébergement hors du Sénégal: à déclarer par l'exploitant "
                                 '(non vérifié)'),
        tables=('pin_ussd', 'code_pin_sms'),
    ),
)
