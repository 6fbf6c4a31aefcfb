"""evenements and documents: reference types (seeded), events, registrations, feedback, notices, documents

Revision ID: 0002_evenements
Revises: 0001_core
Create Date: 2026-11-21 05:47:10.937808
"""
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision: str = '0002_evenements'
down_revision: str | Sequence[str] | None = '0001_core'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    type_reference = op.create_table('type_reference',
    sa.Column('domaine', sa.String(length=50), nullable=False),
    sa.Column('code', sa.String(length=50), nullable=False),
    sa.Column('libelle', sa.String(length=200), nullable=False),
    sa.Column('ordre', sa.Integer(), nullable=False),
    sa.Column('actif', sa.Boolean(), nullable=False),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_type_reference')),
    sa.UniqueConstraint('domaine', 'code', name='uq_type_reference_domaine_code')
    )
    op.create_table('document',
    sa.Column('nom_fichier', sa.String(length=255), nullable=False),
    sa.Column('description', sa.Text(), nullable=True),
    sa.Column('type_document', sa.String(length=50), nullable=False),
    sa.Column('visibilite', sa.String(length=20), nullable=False),
    sa.Column('organisation_id', sa.Uuid(), nullable=True),
    sa.Column('proprietaire_sub', sa.String(length=255), nullable=False),
    sa.Column('proprietaire_membre_id', sa.Uuid(), nullable=True),
    sa.Column('cle_stockage', sa.String(length=100), nullable=True),
    sa.Column('backend_stockage', sa.String(length=20), nullable=True),
    sa.Column('type_mime', sa.String(length=100), nullable=True),
    sa.Column('taille_octets', sa.BigInteger(), nullable=True),
    sa.Column('hash_sha256', sa.String(length=64), nullable=True),
    sa.Column('nombre_telechargements', sa.Integer(), nullable=False),
    sa.Column('date_dernier_telechargement', sa.DateTime(timezone=True), nullable=True),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['organisation_id'], ['organisation.id'], name=op.f('fk_document_organisation_id_organisation')),
    sa.ForeignKeyConstraint(['proprietaire_membre_id'], ['membre.id'], name=op.f('fk_document_proprietaire_membre_id_membre')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_document')),
    sa.UniqueConstraint('cle_stockage', name=op.f('uq_document_cle_stockage'))
    )
    with op.batch_alter_table('document', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_document_organisation_id'), ['organisation_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_document_proprietaire_sub'), ['proprietaire_sub'], unique=False)
        batch_op.create_index(batch_op.f('ix_document_type_document'), ['type_document'], unique=False)

    op.create_table('evenement',
    sa.Column('titre', sa.String(length=200), nullable=False),
    sa.Column('description', sa.Text(), nullable=True),
    sa.Column('type_evenement', sa.String(length=50), nullable=False),
    sa.Column('date_debut', sa.DateTime(timezone=True), nullable=False),
    sa.Column('date_fin', sa.DateTime(timezone=True), nullable=False),
    sa.Column('lieu', sa.String(length=200), nullable=True),
    sa.Column('adresse', sa.String(length=300), nullable=True),
    sa.Column('capacite_max', sa.Integer(), nullable=True),
    sa.Column('prix', sa.Numeric(precision=18, scale=2), nullable=True),
    sa.Column('devise', sa.String(length=3), nullable=False),
    sa.Column('inscription_requise', sa.Boolean(), nullable=False),
    sa.Column('date_limite_inscription', sa.DateTime(timezone=True), nullable=True),
    sa.Column('visibilite', sa.String(length=20), nullable=False),
    sa.Column('organisation_id', sa.Uuid(), nullable=False),
    sa.Column('statut', sa.String(length=20), nullable=False),
    sa.Column('motif_annulation', sa.String(length=500), nullable=True),
    sa.Column('cree_par', sa.String(length=254), nullable=True),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint('capacite_max IS NULL OR capacite_max >= 1', name=op.f('ck_evenement_capacite')),
    sa.CheckConstraint('date_fin > date_debut', name=op.f('ck_evenement_dates')),
    sa.ForeignKeyConstraint(['organisation_id'], ['organisation.id'], name=op.f('fk_evenement_organisation_id_organisation')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_evenement'))
    )
    with op.batch_alter_table('evenement', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_evenement_date_debut'), ['date_debut'], unique=False)
        batch_op.create_index(batch_op.f('ix_evenement_organisation_id'), ['organisation_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_evenement_statut'), ['statut'], unique=False)
        batch_op.create_index(batch_op.f('ix_evenement_type_evenement'), ['type_evenement'], unique=False)

    op.create_table('feedback_evenement',
    sa.Column('evenement_id', sa.Uuid(), nullable=False),
    sa.Column('membre_id', sa.Uuid(), nullable=False),
    sa.Column('note', sa.Integer(), nullable=False),
    sa.Column('commentaire', sa.Text(), nullable=True),
    sa.Column('statut_moderation', sa.String(length=20), nullable=False),
    sa.Column('motif_moderation', sa.String(length=500), nullable=True),
    sa.Column('modere_par', sa.String(length=254), nullable=True),
    sa.Column('date_moderation', sa.DateTime(timezone=True), nullable=True),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint('note BETWEEN 1 AND 5', name=op.f('ck_feedback_evenement_note')),
    sa.ForeignKeyConstraint(['evenement_id'], ['evenement.id'], name=op.f('fk_feedback_evenement_evenement_id_evenement')),
    sa.ForeignKeyConstraint(['membre_id'], ['membre.id'], name=op.f('fk_feedback_evenement_membre_id_membre')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_feedback_evenement')),
    sa.UniqueConstraint('evenement_id', 'membre_id', name='uq_feedback_evenement_membre')
    )
    with op.batch_alter_table('feedback_evenement', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_feedback_evenement_evenement_id'), ['evenement_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_feedback_evenement_statut_moderation'), ['statut_moderation'], unique=False)

    op.create_table('inscription_evenement',
    sa.Column('evenement_id', sa.Uuid(), nullable=False),
    sa.Column('membre_id', sa.Uuid(), nullable=False),
    sa.Column('statut', sa.String(length=20), nullable=False),
    sa.Column('date_inscription', sa.DateTime(timezone=True), nullable=False),
    sa.Column('date_confirmation', sa.DateTime(timezone=True), nullable=True),
    sa.Column('date_annulation', sa.DateTime(timezone=True), nullable=True),
    sa.Column('motif_annulation', sa.String(length=500), nullable=True),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['evenement_id'], ['evenement.id'], name=op.f('fk_inscription_evenement_evenement_id_evenement')),
    sa.ForeignKeyConstraint(['membre_id'], ['membre.id'], name=op.f('fk_inscription_evenement_membre_id_membre')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_inscription_evenement'))
    )
    with op.batch_alter_table('inscription_evenement', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_inscription_evenement_evenement_id'), ['evenement_id'], unique=False)
        batch_op.create_index('ix_inscription_evenement_file', ['evenement_id', 'statut', 'date_inscription'], unique=False)
        batch_op.create_index(batch_op.f('ix_inscription_evenement_membre_id'), ['membre_id'], unique=False)
        batch_op.create_index('uq_inscription_evenement_active', ['evenement_id', 'membre_id'], unique=True, sqlite_where=sa.text("statut <> 'ANNULEE'"), postgresql_where=sa.text("statut <> 'ANNULEE'"))

    op.create_table('notification_evenement',
    sa.Column('evenement_id', sa.Uuid(), nullable=False),
    sa.Column('membre_id', sa.Uuid(), nullable=False),
    sa.Column('type_notification', sa.String(length=50), nullable=False),
    sa.Column('message', sa.Text(), nullable=False),
    sa.Column('date_creation', sa.DateTime(timezone=True), nullable=False),
    sa.Column('date_envoi', sa.DateTime(timezone=True), nullable=True),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.ForeignKeyConstraint(['evenement_id'], ['evenement.id'], name=op.f('fk_notification_evenement_evenement_id_evenement')),
    sa.ForeignKeyConstraint(['membre_id'], ['membre.id'], name=op.f('fk_notification_evenement_membre_id_membre')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_notification_evenement'))
    )
    with op.batch_alter_table('notification_evenement', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_notification_evenement_evenement_id'), ['evenement_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_notification_evenement_membre_id'), ['membre_id'], unique=False)

    op.create_table('piece_jointe',
    sa.Column('document_id', sa.Uuid(), nullable=False),
    sa.Column('type_entite', sa.String(length=30), nullable=False),
    sa.Column('entite_id', sa.Uuid(), nullable=False),
    sa.Column('organisation_id', sa.Uuid(), nullable=True),
    sa.Column('libelle', sa.String(length=200), nullable=True),
    sa.Column('ajoute_par', sa.String(length=254), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.ForeignKeyConstraint(['document_id'], ['document.id'], name=op.f('fk_piece_jointe_document_id_document')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_piece_jointe')),
    sa.UniqueConstraint('document_id', 'type_entite', 'entite_id', name='uq_piece_jointe_cible')
    )
    with op.batch_alter_table('piece_jointe', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_piece_jointe_document_id'), ['document_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_piece_jointe_organisation_id'), ['organisation_id'], unique=False)

    op.create_table('telechargement_document',
    sa.Column('document_id', sa.Uuid(), nullable=False),
    sa.Column('utilisateur_sub', sa.String(length=255), nullable=False),
    sa.Column('utilisateur', sa.String(length=254), nullable=False),
    sa.Column('membre_id', sa.Uuid(), nullable=True),
    sa.Column('ip_address', sa.String(length=64), nullable=True),
    sa.Column('date_telechargement', sa.DateTime(timezone=True), nullable=False),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.ForeignKeyConstraint(['document_id'], ['document.id'], name=op.f('fk_telechargement_document_document_id_document')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_telechargement_document'))
    )
    with op.batch_alter_table('telechargement_document', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_telechargement_document_document_id'), ['document_id'], unique=False)

    now = datetime.now(UTC)
    seed = {
        "TYPE_EVENEMENT": [
            ("ASSEMBLEE_GENERALE", "Assemblée générale"), ("FORMATION", "Formation"), ("REUNION", "Réunion"),
            ("SOLIDARITE", "Action de solidarité"), ("CULTUREL", "Événement culturel"), ("AUTRE", "Autre"),
        ],
        "TYPE_DOCUMENT": [
            ("PIECE_IDENTITE", "Pièce d'identité"), ("JUSTIFICATIF_DOMICILE", "Justificatif de domicile"),
            ("RECU", "Reçu"), ("FACTURE", "Facture"), ("PROCES_VERBAL", "Procès-verbal"),
            ("STATUTS", "Statuts et règlement intérieur"), ("RAPPORT", "Rapport"), ("CONTRAT", "Contrat"),
            ("PHOTO", "Photo"), ("AUTRE", "Autre"),
        ],
    }
    op.bulk_insert(type_reference, [
        {"id": uuid.uuid4(), "domaine": domaine, "code": code, "libelle": libelle, "ordre": ordre,
         "actif": True, "created_at": now, "updated_at": now}
        for domaine, rows in seed.items() for ordre, (code, libelle) in enumerate(rows)
    ])


def downgrade() -> None:
    with op.batch_alter_table('telechargement_document', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_telechargement_document_document_id'))

    op.drop_table('telechargement_document')
    with op.batch_alter_table('piece_jointe', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_piece_jointe_organisation_id'))
        batch_op.drop_index(batch_op.f('ix_piece_jointe_document_id'))

    op.drop_table('piece_jointe')
    with op.batch_alter_table('notification_evenement', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_notification_evenement_membre_id'))
        batch_op.drop_index(batch_op.f('ix_notification_evenement_evenement_id'))

    op.drop_table('notification_evenement')
    with op.batch_alter_table('inscription_evenement', schema=None) as batch_op:
        batch_op.drop_index('uq_inscription_evenement_active', sqlite_where=sa.text("statut <> 'ANNULEE'"), postgresql_where=sa.text("statut <> 'ANNULEE'"))
        batch_op.drop_index(batch_op.f('ix_inscription_evenement_membre_id'))
        batch_op.drop_index('ix_inscription_evenement_file')
        batch_op.drop_index(batch_op.f('ix_inscription_evenement_evenement_id'))

    op.drop_table('inscription_evenement')
    with op.batch_alter_table('feedback_evenement', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_feedback_evenement_statut_moderation'))
        batch_op.drop_index(batch_op.f('ix_feedback_evenement_evenement_id'))

    op.drop_table('feedback_evenement')
    with op.batch_alter_table('evenement', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_evenement_type_evenement'))
        batch_op.drop_index(batch_op.f('ix_evenement_statut'))
        batch_op.drop_index(batch_op.f('ix_evenement_organisation_id'))
        batch_op.drop_index(batch_op.f('ix_evenement_date_debut'))

    op.drop_table('evenement')
    with op.batch_alter_table('document', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_document_type_document'))
        batch_op.drop_index(batch_op.f('ix_document_proprietaire_sub'))
        batch_op.drop_index(batch_op.f('ix_document_organisation_id'))

    op.drop_table('document')
    op.drop_table('type_reference')
