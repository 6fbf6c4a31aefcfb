"""monitoring: system alerts and thresholds, backup catalogue and schedule

Revision ID: 0002_monitoring
Revises: 0001_core
Create Date: 2026-11-21 05:49:20.257742
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0002_monitoring'
down_revision: str | Sequence[str] | None = '0001_core'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('alerte_config',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('seuil_latence_base_ms', sa.Integer(), nullable=False),
    sa.Column('seuil_espace_disque_libre_pourcent', sa.Float(), nullable=False),
    sa.Column('seuil_echecs_connexion_heure', sa.Integer(), nullable=False),
    sa.Column('seuil_erreurs_audit_heure', sa.Integer(), nullable=False),
    sa.Column('delai_paiement_wave_heures', sa.Integer(), nullable=False),
    sa.Column('seuil_paiements_wave_bloques', sa.Integer(), nullable=False),
    sa.Column('seuil_alertes_lcb_ft_non_traitees', sa.Integer(), nullable=False),
    sa.Column('intervalle_evaluation_secondes', sa.Integer(), nullable=False),
    sa.Column('derniere_evaluation', sa.DateTime(timezone=True), nullable=True),
    sa.Column('date_modification', sa.DateTime(timezone=True), nullable=True),
    sa.Column('modifie_par', sa.String(length=254), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_alerte_config'))
    )
    op.create_table('alerte_systeme',
    sa.Column('code', sa.String(length=60), nullable=False),
    sa.Column('cle_ouverte', sa.String(length=60), nullable=True),
    sa.Column('niveau', sa.String(length=10), nullable=False),
    sa.Column('titre', sa.String(length=200), nullable=False),
    sa.Column('message', sa.Text(), nullable=False),
    sa.Column('valeur_mesuree', sa.Float(), nullable=True),
    sa.Column('seuil', sa.Float(), nullable=True),
    sa.Column('date_creation', sa.DateTime(timezone=True), nullable=False),
    sa.Column('date_derniere_detection', sa.DateTime(timezone=True), nullable=False),
    sa.Column('nombre_detections', sa.Integer(), nullable=False),
    sa.Column('resolue', sa.Boolean(), nullable=False),
    sa.Column('date_resolution', sa.DateTime(timezone=True), nullable=True),
    sa.Column('acquittee', sa.Boolean(), nullable=False),
    sa.Column('acquittee_par', sa.String(length=254), nullable=True),
    sa.Column('date_acquittement', sa.DateTime(timezone=True), nullable=True),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_alerte_systeme')),
    sa.UniqueConstraint('cle_ouverte', name=op.f('uq_alerte_systeme_cle_ouverte'))
    )
    with op.batch_alter_table('alerte_systeme', schema=None) as batch_op:
        batch_op.create_index('ix_alerte_systeme_acquittee_resolue', ['acquittee', 'resolue'], unique=False)
        batch_op.create_index('ix_alerte_systeme_code_date', ['code', 'date_creation'], unique=False)

    op.create_table('sauvegarde',
    sa.Column('nom', sa.String(length=150), nullable=False),
    sa.Column('description', sa.Text(), nullable=True),
    sa.Column('type', sa.String(length=30), nullable=False),
    sa.Column('statut', sa.String(length=20), nullable=False),
    sa.Column('moteur', sa.String(length=20), nullable=False),
    sa.Column('fichier', sa.String(length=100), nullable=False),
    sa.Column('taille_octets', sa.BigInteger(), nullable=True),
    sa.Column('sha256', sa.String(length=64), nullable=True),
    sa.Column('revision_schema', sa.String(length=500), nullable=True),
    sa.Column('message_erreur', sa.Text(), nullable=True),
    sa.Column('cree_par', sa.String(length=254), nullable=False),
    sa.Column('date_creation', sa.DateTime(timezone=True), nullable=False),
    sa.Column('date_fin', sa.DateTime(timezone=True), nullable=True),
    sa.Column('date_suppression', sa.DateTime(timezone=True), nullable=True),
    sa.Column('supprime_par', sa.String(length=254), nullable=True),
    sa.Column('date_derniere_restauration', sa.DateTime(timezone=True), nullable=True),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_sauvegarde'))
    )
    with op.batch_alter_table('sauvegarde', schema=None) as batch_op:
        batch_op.create_index('ix_sauvegarde_statut_date', ['statut', 'date_creation'], unique=False)

    op.create_table('sauvegarde_config',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('actif', sa.Boolean(), nullable=False),
    sa.Column('frequence', sa.String(length=20), nullable=False),
    sa.Column('heure', sa.String(length=5), nullable=False),
    sa.Column('jour_semaine', sa.Integer(), nullable=False),
    sa.Column('retention_jours', sa.Integer(), nullable=False),
    sa.Column('date_modification', sa.DateTime(timezone=True), nullable=True),
    sa.Column('modifie_par', sa.String(length=254), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_sauvegarde_config'))
    )
    # The two configuration rows exist from the start, with their defaults (docs/monitoring-sauvegardes.md).
    op.execute(sa.text(
        "INSERT INTO alerte_config (id, seuil_latence_base_ms, seuil_espace_disque_libre_pourcent, "
        "seuil_echecs_connexion_heure, seuil_erreurs_audit_heure, delai_paiement_wave_heures, "
        "seuil_paiements_wave_bloques, seuil_alertes_lcb_ft_non_traitees, intervalle_evaluation_secondes) "
        "VALUES (1, 500, 10.0, 20, 10, 2, 0, 0, 60)"))
    op.execute(sa.text(
        "INSERT INTO sauvegarde_config (id, actif, frequence, heure, jour_semaine, retention_jours) "
        "VALUES (1, false, 'QUOTIDIENNE', '02:00', 7, 30)"))


def downgrade() -> None:
    op.drop_table('sauvegarde_config')
    with op.batch_alter_table('sauvegarde', schema=None) as batch_op:
        batch_op.drop_index('ix_sauvegarde_statut_date')

    op.drop_table('sauvegarde')
    with op.batch_alter_table('alerte_systeme', schema=None) as batch_op:
        batch_op.drop_index('ix_alerte_systeme_code_date')
        batch_op.drop_index('ix_alerte_systeme_acquittee_resolue')

    op.drop_table('alerte_systeme')
    op.drop_table('alerte_config')
