"""Exports through HTTP: file format, scoping per area rules, filters, roles, audit of each download."""

from __future__ import annotations

import io
import re
from datetime import UTC, datetime

import pytest
from openpyxl import load_workbook
from sqlalchemy import select

from tests.export.lecture_csv import by_first, parse_csv
from tests.factories.export import build
from unionflow.cotisations.service import today_utc
from unionflow.models import AuditLog

BASE = "/api/export"


async def export_audits(db, utilisateur: str) -> list[AuditLog]:
    rows = await db.execute(select(AuditLog).where(AuditLog.module == "EXPORT", AuditLog.utilisateur == utilisateur))
    return list(rows.scalars())


async def test_members_register_csv_format_injection_and_audit(client, factory, db):
    d = await build(factory)
    response = await client.get(f"{BASE}/membres", headers=d.secretary.headers)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "text/csv; charset=utf-8"
    disposition = response.headers["content-disposition"]
    assert re.fullmatch(rf'attachment; filename="unionflow-membres-{today_utc():%Y-%m-%d}-\d{{4}}\.csv"',
                        disposition), disposition
    body = response.content
    # CRLF line ends, fields with ; or " quoted per RFC 4180.
    assert b'"Couturi\xc3\xa8re; brodeuse"' in body and b'"Dit ""le sage"""' in body
    assert b"\r\n" in body
    rows = parse_csv(body)
    assert rows[0][:3] == ["Numéro membre", "Nom", "Prénom"]
    register = by_first(rows)
    # Only the secretary's organisation: its six memberships (four staff/member actors, m1, m2), not m3 (Beta).
    assert len(rows) - 1 == 6 == int(response.headers["x-total-count"])
    assert "MBR-X-0003" not in register
    awa = register["MBR-X-0001"]
    assert awa[1:3] == ["Diop", "Awa"] and awa[6] == "+221770000001" and awa[12] == "Association Alpha"
    assert awa[14] == "MEMBRE"
    injected = register["MBR-X-0002"]
    assert injected[1] == "'=HYPERLINK(\"http://x\")" and injected[2] == "'@Moussa"

    entries = await export_audits(db, d.secretary.user.email)
    assert len(entries) == 1
    entry = entries[0]
    assert entry.severite == "WARNING" and entry.type_action == "EXPORTER" and entry.entite_type == "Membre"
    assert entry.organisation_id == d.org_a.id
    assert entry.details["apres"]["lignes"] == 6 and entry.details["apres"]["format"] == "csv"


async def test_members_register_filters_and_global_scope(client, factory):
    d = await build(factory)
    response = await client.get(f"{BASE}/membres", params={"organisationId": str(d.org_b.id)},
                                headers=d.admin.headers)
    assert [r[0] for r in parse_csv(response.content)[1:]] == ["MBR-X-0003"]
    # A secretary filtering on another organisation gets nothing of it.
    response = await client.get(f"{BASE}/membres", params={"organisationId": str(d.org_b.id)},
                                headers=d.secretary.headers)
    assert parse_csv(response.content)[1:] == []
    response = await client.get(f"{BASE}/membres", params={"statut": "RADIE"}, headers=d.secretary.headers)
    assert response.headers["x-total-count"] == "0"
    assert (await client.get(f"{BASE}/membres", params={"statut": "PARTI"}, headers=d.secretary.headers)
            ).status_code == 400


async def test_roles_per_export(client, factory):
    d = await build(factory)
    assert (await client.get(f"{BASE}/membres")).status_code == 401
    # Issue 19: the treasurer exports the register of the members whose dues he collects (and the trail of his
    # organisation's money, tests/security/test_combined_roles_lecture.py); plain members export nothing.
    assert (await client.get(f"{BASE}/membres", headers=d.treasurer.headers)).status_code == 200
    assert (await client.get(f"{BASE}/membres", headers=d.member.headers)).status_code == 403
    assert (await client.get(f"{BASE}/cotisations", headers=d.member.headers)).status_code == 403
    assert (await client.get(f"{BASE}/cotisations", headers=d.secretary.headers)).status_code == 403
    assert (await client.get(f"{BASE}/adhesions", headers=d.secretary.headers)).status_code == 200
    assert (await client.get(f"{BASE}/audit", headers=d.secretary.headers)).status_code == 403
    assert (await client.get(f"{BASE}/ecritures", headers=d.secretary.headers)).status_code == 403


async def test_dues_export_treasurer_scope_filters_and_decimal_comma(client, factory, db):
    d = await build(factory)
    response = await client.get(f"{BASE}/cotisations", headers=d.treasurer.headers)
    assert response.status_code == 200
    rows = by_first(parse_csv(response.content))
    assert set(rows) == {"COT-X-1", "COT-X-2", "COT-X-3"}  # not Beta's COT-X-4
    partial = rows["COT-X-2"]
    # Montant dû, payé, reste; status derived from the past due date as in the dues list.
    assert partial[10:15] == ["3000,00", "1000,00", "2000,00", "XOF", "En retard"]
    assert rows["COT-X-3"][12:15] == ["0,00", "XOF", "Annulée"]
    assert rows["COT-X-1"][15] == "2026-03-10 09:30:00"

    late = await client.get(f"{BASE}/cotisations", params={"statut": "EN_RETARD"}, headers=d.treasurer.headers)
    assert list(by_first(parse_csv(late.content))) == ["COT-X-2"]
    april = await client.get(f"{BASE}/cotisations", params={"annee": 2026, "mois": 4}, headers=d.treasurer.headers)
    assert list(by_first(parse_csv(april.content))) == ["COT-X-3"]
    assert (await client.get(f"{BASE}/cotisations", params={"mois": 13}, headers=d.treasurer.headers)
            ).status_code == 400
    entries = await export_audits(db, d.treasurer.user.email)
    assert sorted(e.details["apres"]["lignes"] for e in entries) == [1, 1, 3]
    assert {e.severite for e in entries} == {"INFO"}
    assert {"statut": "EN_RETARD"}.items() <= next(
        e for e in entries if "statut" in e.details["apres"]["filtres"]).details["apres"]["filtres"].items()


async def test_payments_export_period_method_status(client, factory):
    d = await build(factory)
    response = await client.get(f"{BASE}/paiements", headers=d.treasurer.headers)
    rows = by_first(parse_csv(response.content))
    assert list(rows) == ["REC-X-1", "REC-X-2", "REC-X-3"]  # ordered by date, Beta's payment hidden
    assert rows["REC-X-2"][1:3] == ["2026-04-02 23:59:00", "Association Alpha"]
    assert rows["REC-X-2"][6:11] == ["Espèces", "Validé", "1000,50", "0,00", "XOF"]
    assert rows["REC-X-2"][13] == "'-reçu manuel"

    # Inclusive UTC days: 2026-04-02 23:59 belongs to the 2nd.
    response = await client.get(f"{BASE}/paiements", params={"dateDebut": "2026-04-01", "dateFin": "2026-04-02"},
                                headers=d.treasurer.headers)
    assert list(by_first(parse_csv(response.content))) == ["REC-X-2"]
    response = await client.get(f"{BASE}/paiements", params={"methode": "WAVE", "statut": "VALIDE"},
                                headers=d.treasurer.headers)
    assert list(by_first(parse_csv(response.content))) == ["REC-X-1"]
    response = await client.get(f"{BASE}/paiements", params={"dateDebut": "2026-05-01", "dateFin": "2026-04-01"},
                                headers=d.treasurer.headers)
    assert response.status_code == 400
    response = await client.get(f"{BASE}/paiements", params={"methode": "BITCOIN"}, headers=d.treasurer.headers)
    assert response.status_code == 400


async def test_adhesions_export(client, factory):
    d = await build(factory)
    response = await client.get(f"{BASE}/adhesions", headers=d.secretary.headers)
    rows = by_first(parse_csv(response.content))
    assert list(rows) == ["ADH-X-1", "ADH-X-2"]
    assert rows["ADH-X-1"][5:10] == ["2026-01-05", "Payée", "10000,00", "10000,00", "XOF"]
    assert rows["ADH-X-2"][13] == "Dossier incomplet"
    response = await client.get(f"{BASE}/adhesions", params={"statut": "REJETEE", "dateDebut": "2026-02-01"},
                                headers=d.admin.headers)
    assert list(by_first(parse_csv(response.content))) == ["ADH-X-2"]
    response = await client.get(f"{BASE}/adhesions", params={"dateFin": "2026-01-31"}, headers=d.admin.headers)
    assert set(by_first(parse_csv(response.content))) >= {"ADH-X-1", "ADH-X-3"}


async def test_ledger_lines_export_journal_and_period(client, factory):
    d = await build(factory)
    response = await client.get(f"{BASE}/ecritures", params={"journalId": str(d.journal_a.id),
                                                             "dateDebut": "2026-03-01", "dateFin": "2026-03-31"},
                                headers=d.treasurer.headers)
    assert response.status_code == 200
    rows = parse_csv(response.content)[1:]
    assert rows == [
        ["2026-03-10", "BQ", "BQ-2026-00001", "", "Cotisation Awa Diop", "521000", "Banque", "", "5000,00", "0,00",
         "Association Alpha"],
        ["2026-03-10", "BQ", "BQ-2026-00001", "", "Cotisation Awa Diop", "756000", "Cotisations", "", "0,00",
         "5000,00", "Association Alpha"],
    ]
    # The whole year of the treasurer's books: two entries of two lines; Beta's books stay hidden.
    response = await client.get(f"{BASE}/ecritures", headers=d.treasurer.headers)
    assert response.headers["x-total-count"] == "4"
    assert {r[10] for r in parse_csv(response.content)[1:]} == {"Association Alpha"}
    response = await client.get(f"{BASE}/ecritures", params={"journalId": str(d.journal_b.id)},
                                headers=d.treasurer.headers)
    assert response.status_code == 404


async def test_audit_trail_export_scope_and_period(client, factory, db):
    d = await build(factory)
    response = await client.get(f"{BASE}/audit", params={"dateDebut": "2026-03-01", "dateFin": "2026-03-31"},
                                headers=d.admin_org.headers)
    assert response.status_code == 200
    rows = parse_csv(response.content)[1:]
    # Alpha's administrator: Alpha's two March entries; Beta's and April's are outside.
    assert [(r[0], r[1], r[4], r[6]) for r in rows] == [
        ("2026-03-01 10:00:00", "a@x.sn", "MEMBRES", "INFO"),
        ("2026-03-02 10:00:00", "b@x.sn", "COTISATIONS", "WARNING"),
    ]
    assert rows[0][9] == "'=cmd|' /C calc'!A0"
    response = await client.get(f"{BASE}/audit", params={"dateDebut": "2026-03-01", "dateFin": "2026-03-31",
                                                         "module": "membres"}, headers=d.admin.headers)
    assert [r[1] for r in parse_csv(response.content)[1:]] == ["a@x.sn", "c@x.sn"]
    entries = await export_audits(db, d.admin_org.user.email)
    assert len(entries) == 1 and entries[0].severite == "WARNING" and entries[0].details["apres"]["lignes"] == 2


async def test_xlsx_export_typed_cells_and_no_formula(client, factory):
    d = await build(factory)
    response = await client.get(f"{BASE}/cotisations", params={"format": "xlsx"}, headers=d.treasurer.headers)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith(
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
    assert response.headers["content-disposition"].endswith('.xlsx"')
    sheet = load_workbook(io.BytesIO(response.content)).active
    rows = {r[0]: r for r in sheet.iter_rows(min_row=2, values_only=True)}
    assert set(rows) == {"COT-X-1", "COT-X-2", "COT-X-3", "Total"}
    assert rows["COT-X-2"][10:15] == (3000, 1000, 2000, "XOF", "En retard")
    # What a treasurer expects on opening it: bold frozen header with filters, FCFA and dates formatted, totals.
    assert sheet["A1"].font.bold and sheet.freeze_panes == "A2" and sheet.auto_filter.ref == "A1:R4"
    assert sheet["K2"].number_format == '#,##0 "FCFA";-#,##0 "FCFA";"-"' and sheet["J2"].number_format == "dd/mm/yyyy"
    assert rows["Total"][10] == "=SUBTOTAL(109,K2:K4)" and sheet["K5"].font.bold
    assert sheet.column_dimensions["K"].width >= 12
    assert rows["COT-X-1"][15] == datetime(2026, 3, 10, 9, 30)
    assert rows["COT-X-1"][7] == 2026

    response = await client.get(f"{BASE}/membres", params={"format": "xlsx", "organisationId": str(d.org_a.id)},
                                headers=d.secretary.headers)
    sheet = load_workbook(io.BytesIO(response.content)).active
    cells = {r[0].value: r for r in sheet.iter_rows(min_row=2)}
    name = cells["MBR-X-0002"][1]
    assert name.value == '=HYPERLINK("http://x")' and name.data_type == "s"
    assert cells["MBR-X-0001"][6].value == "+221770000001"
    assert (await client.get(f"{BASE}/membres", params={"format": "pdf"}, headers=d.secretary.headers)
            ).status_code == 400


async def test_large_export_streams_in_batches(client, factory, db):
    """More rows than one cursor batch (1000) and than one CSV chunk (64 KiB): every row arrives once, in order."""
    d = await build(factory)
    start = datetime(2025, 1, 1, tzinfo=UTC)
    db.add_all([AuditLog(date_heure=start.replace(minute=i % 60, hour=(i // 60) % 24, day=1 + i // 1440),
                         utilisateur=f"bulk{i:05d}@x.sn", organisation_id=d.org_a.id, type_action="READ",
                         module="BULK", severite="INFO", description="x" * 40) for i in range(2500)])
    await db.flush()
    response = await client.get(f"{BASE}/audit", params={"module": "BULK"}, headers=d.admin.headers)
    rows = parse_csv(response.content)[1:]
    assert len(rows) == 2500 == int(response.headers["x-total-count"])
    assert [r[1] for r in rows] == [f"bulk{i:05d}@x.sn" for i in range(2500)]


async def test_register_follows_the_active_organisation(client, factory):
    """Treasurer of Alpha and secretary of Beta: acting for Beta he exports Beta's register; acting for Alpha,
    where he is treasurer (issue 19: the treasurer exports his members), Alpha's register only."""
    from unionflow.models import MembreOrganisation

    d = await build(factory)
    both = await factory.actor(["USER"], organisation=d.org_a, org_roles=["MEMBRE", "TRESORIER"])
    factory.session.add(MembreOrganisation(membre_id=both.membre.id, organisation_id=d.org_b.id,
                                           roles=["MEMBRE", "SECRETAIRE"], date_debut=today_utc()))
    await factory.session.flush()
    response = await client.get(f"{BASE}/membres", headers=both.in_org(d.org_b.id))
    assert response.status_code == 200
    assert {r[12] for r in parse_csv(response.content)[1:]} == {"Association Beta"}
    alpha = await client.get(f"{BASE}/membres", headers=both.in_org(d.org_a.id))
    assert alpha.status_code == 200
    assert {r[12] for r in parse_csv(alpha.content)[1:]} == {"Association Alpha"}
    narrowed = await client.get(f"{BASE}/membres", headers=both.in_org(d.org_a.id, "MEMBRE"))
    assert narrowed.status_code == 403
    response = await client.get(f"{BASE}/cotisations", headers=both.in_org(d.org_a.id))
    assert set(by_first(parse_csv(response.content))) == {"COT-X-1", "COT-X-2", "COT-X-3"}


async def test_sqlite_export_transaction_begins_as_a_writer(client, app, committed_factory):
    """The audit entry is a write: on SQLite the request's transaction starts with BEGIN IMMEDIATE (a deferred
    transaction that has read fails at once when another connection committed meanwhile)."""
    from sqlalchemy import event

    from tests.conftest import BACKEND

    if BACKEND != "sqlite":
        pytest.skip("SQLite locking only")
    org = await committed_factory.organisation()
    secretary = await committed_factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    statements: list[str] = []

    def capture(conn, cursor, statement, *args):
        statements.append(statement)

    event.listen(app.state.engine.sync_engine, "before_cursor_execute", capture)
    try:
        response = await client.get(f"{BASE}/membres", headers=secretary.headers)
    finally:
        event.remove(app.state.engine.sync_engine, "before_cursor_execute", capture)
    assert response.status_code == 200
    insert = next(i for i, s in enumerate(statements) if s.startswith("INSERT INTO audit_log"))
    begins = [s for s in statements[:insert] if s.startswith("BEGIN")]
    assert begins[-1] == "BEGIN IMMEDIATE", statements
    # The body then reads on its own read-only session.
    assert [s for s in statements[insert:] if s.startswith("BEGIN")] == ["BEGIN"]
