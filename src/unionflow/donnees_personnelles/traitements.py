"""The processings of personal data donnees_personnelles/ declares (core/traitements.py): collected by
registres.py into the register of processings (GET /api/conformite/traitements)."""

from __future__ import annotations

from unionflow.core.traitements import DeclarationTraitement

TRAITEMENTS = (
    DeclarationTraitement(
        code='CONSENTEMENTS',
        nom='Consentements',
        zone='donnees_personnelles',
        finalite='Prouver le consentement du membre au traitement de ses données sensibles et son retrait',
        base_legale=('Obligation de recueillir le consentement; loi n° 2008-12, article non vérifié '
                     '(docs/conformite.md)'),
        categories_donnees=('finalité, date, version de la notice, canal', 'auteur de la saisie et du retrait'),
        personnes_concernees=('membres',),
        destinataires=("le bureau de l'organisation", 'le délégué à la protection des données'),
        duree_conservation='Tant que le traitement dure, puis le délai de prescription (non vérifié)',
        transferts_hors_senegal=("Aucun par UnionFlow; hébergement hors du Sénégal: à déclarer par l'exploitant "
                                 '(non vérifié)'),
        tables=('consentement', 'notice_information'),
    ),
    DeclarationTraitement(
        code='JOURNAL_ACCES',
        nom='Journal des accès aux fiches',
        zone='donnees_personnelles',
        finalite="Tracer chaque consultation de la fiche d'un membre par un tiers et la montrer au membre",
        base_legale='Sécurité et confidentialité des traitements (article non vérifié, docs/conformite.md D10)',
        categories_donnees=('lecteur (nom, rôles)', 'date, écran', 'membre consulté'),
        personnes_concernees=('membres', 'membres du bureau'),
        destinataires=('le membre concerné', 'le délégué à la protection des données'),
        duree_conservation="{acces_jours} jours, puis supprimé par le job retention-donnees",
        transferts_hors_senegal=("Aucun par UnionFlow; hébergement hors du Sénégal: à déclarer par l'exploitant "
                                 '(non vérifié)'),
        tables=('acces_dossier',),
    ),
    DeclarationTraitement(
        code='OPPOSITIONS',
        nom='Oppositions aux traitements',
        zone='donnees_personnelles',
        finalite=("Prouver l'opposition du membre à un traitement (loi n° 2008-12), sa décision, sa prise "
                  "d'effet et son retrait"),
        base_legale="Obligation de respecter le droit d'opposition (loi n° 2008-12)",
        categories_donnees=('traitement opposé, motif, dates', 'demandeur, décideur, auteur du retrait'),
        personnes_concernees=('membres',),
        destinataires=("le bureau de l'organisation", 'le délégué à la protection des données'),
        duree_conservation="Tant que l'opposition vaut, puis le délai de prescription (non vérifié)",
        transferts_hors_senegal=("Aucun par UnionFlow; hébergement hors du Sénégal: à déclarer par l'exploitant "
                                 '(non vérifié)'),
        tables=('opposition_traitement',),
    ),
)
