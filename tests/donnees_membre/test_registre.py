"""The export's registry covers every table naming a member (or the local account behind him), through the table's
owning area: a new table with a foreign key to ``membre`` or ``utilisateur_local`` fails here until it is declared
in ``donnees_membre/registre.py`` (SECTIONS) or excluded there with its reason (EXCLUSIONS)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import unionflow.app  # noqa: F401  (every area's models and policies registered)
from unionflow.core.repository import modele_de
from unionflow.donnees_membre.registre import EXCLUSIONS, SECTIONS, Sujet
from unionflow.models.base import Base

RACINE = Path(__file__).resolve().parents[2]
PERSONNES = {"membre": Sujet.MEMBRE, "utilisateur_local": Sujet.COMPTE}


def _proprietaires() -> dict[str, str]:
    spec = importlib.util.spec_from_file_location("verifier_architecture",
                                                  RACINE / "tools" / "verifier_architecture.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return dict(module.PROPRIETAIRES)


def _references() -> set[tuple[str, str, Sujet]]:
    """(table, column, subject) of every foreign key to a person, from SQLAlchemy's metadata."""
    found = set()
    for table in Base.metadata.tables.values():
        for fk in table.foreign_keys:
            if fk.column.table.name in PERSONNES:
                found.add((table.name, fk.parent.name, PERSONNES[fk.column.table.name]))
    return found


def test_every_table_naming_a_person_is_exported_or_excluded_with_a_reason():
    declared = {(s.table, s.colonne, s.sujet) for s in SECTIONS}
    missing = {ref for ref in _references() if ref not in declared and ref[0] not in EXCLUSIONS}
    assert not missing, f"tables nommant un membre absentes du registre d'export: {sorted(missing)}"
    assert all(reason.strip() for reason in EXCLUSIONS.values())
    # The person tables themselves are in.
    assert ("membre", "id", Sujet.MEMBRE) in declared and ("utilisateur_local", "id", Sujet.COMPTE) in declared


def test_the_completeness_check_catches_a_new_table():
    from sqlalchemy import Column, ForeignKey, MetaData, Table, Uuid
    meta = MetaData()
    Table("membre", meta, Column("id", Uuid, primary_key=True))
    nouvelle = Table("badge", meta, Column("id", Uuid, primary_key=True), Column("membre_id", ForeignKey("membre.id")))
    refs = {(t.name, fk.parent.name) for t in (nouvelle,) for fk in t.foreign_keys}
    declared = {(s.table, s.colonne) for s in SECTIONS}
    assert refs - declared == {("badge", "membre_id")}


def test_each_section_is_read_through_its_table_owner():
    owners = _proprietaires()
    for section in SECTIONS:
        area = owners[modele_de(section.table).__name__]
        assert section.porte.__module__.startswith(f"unionflow.{area}."), (section.cle, area, section.porte)
    assert len({s.cle for s in SECTIONS}) == len(SECTIONS)
