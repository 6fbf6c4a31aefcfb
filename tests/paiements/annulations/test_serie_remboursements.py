"""Refund receipts are numbered in each organisation's own gap-free series (issue 19, items 4 and 5), like its
receipts: RMB-<code>-<year>-000001 for the first refund of each organisation, whatever the others did. Found by
the internal-controls property (tests/controles): the series was union-wide (RMB-<year>-n), so an organisation's
auditor saw gaps that belonged to another organisation."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import select

from tests.factories.paiements import defaire
from tests.paiements.annulations.test_quatre_yeux import _org, _paiement
from unionflow.models import Organisation


async def test_each_organisation_numbers_its_refund_receipts_from_one(client, factory, db):
    year = datetime.now(UTC).year
    seen = []
    for _ in range(2):
        org, tresorier, second, _, membre = await _org(factory)
        for expected in (1, 2):
            paiement, _ = await _paiement(client, db, org, tresorier, membre)
            done = await defaire(client, f"/api/paiements/{paiement['id']}/rembourser", tresorier, second)
            assert done.status_code == 200, done.text
            code = (await db.execute(select(Organisation.code_serie).where(Organisation.id == org.id))).scalar_one()
            assert done.json()["numeroRemboursement"] == f"RMB-{code}-{year}-{expected:06d}"
            seen.append(done.json()["numeroRemboursement"])
    assert len(set(seen)) == 4
