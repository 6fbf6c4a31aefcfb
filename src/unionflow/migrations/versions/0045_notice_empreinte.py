"""personal data: a notice version has one text per organisation (the controller it names), keyed by its digest

Revision ID: 0045_notice_empreinte
Revises: 0044_audit_auteur_date

Loi 2008-12 art. 58 (docs/conformite.md D5): from version 2 the notice names the organisation the consent is given
to, so ``notice_information`` keeps one row per (purpose, version, text) instead of per (purpose, version). The
rows already there (version 1, one text each) get the SHA-256 of their text.
"""
import hashlib
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0045_notice_empreinte"
down_revision: str | Sequence[str] | None = "0044_audit_auteur_date"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NOTICE = sa.table("notice_information", sa.column("id", sa.Uuid()), sa.column("texte", sa.Text()),
                  sa.column("empreinte", sa.String(64)))


def upgrade() -> None:
    with op.batch_alter_table("notice_information") as batch_op:
        batch_op.add_column(sa.Column("empreinte", sa.String(length=64), nullable=True))
    bind = op.get_bind()
    for id_, texte in bind.execute(sa.select(NOTICE.c.id, NOTICE.c.texte)).all():
        empreinte = hashlib.sha256(texte.encode()).hexdigest()
        bind.execute(NOTICE.update().where(NOTICE.c.id == id_).values(empreinte=empreinte))
    with op.batch_alter_table("notice_information") as batch_op:
        batch_op.alter_column("empreinte", existing_type=sa.String(length=64), nullable=False)
        batch_op.drop_constraint("uq_notice_information_finalite_version", type_="unique")
        batch_op.create_unique_constraint("uq_notice_information_finalite_version_empreinte",
                                          ["finalite", "version", "empreinte"])


def downgrade() -> None:
    # Only one text per (purpose, version) fits the former key: the per-organisation texts of version 2 and the
    # consents given on them go (a downgrade is for a fresh or test database, never run on a live union).
    bind = op.get_bind()
    bind.execute(sa.text("DELETE FROM consentement WHERE notice_version >= 2"))
    bind.execute(sa.text("DELETE FROM notice_information WHERE version >= 2"))
    with op.batch_alter_table("notice_information") as batch_op:
        batch_op.drop_constraint("uq_notice_information_finalite_version_empreinte", type_="unique")
        batch_op.create_unique_constraint("uq_notice_information_finalite_version", ["finalite", "version"])
        batch_op.drop_column("empreinte")
