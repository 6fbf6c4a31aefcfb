"""The treasurer's member page shows the member's credit (avoir) and applies it with "Imputer l'avoir" through the
API's service (issue 20): oldest dues first, a resubmitted form applies once. A member is not offered it."""

from __future__ import annotations

import re
from datetime import date, timedelta
from decimal import Decimal

from tests.console.connexion import sign_in
from tests.factories.cotisations import cotisation

FORM_KEY = re.compile(r'avoir/imputer">\s*<input type="hidden" name="csrf" value="[^"]+">\s*'
                      r'<input type="hidden" name="idempotency_key" value="([^"]+)">')


async def test_treasurer_sees_and_applies_the_credit(client, factory, db):
    org = await factory.organisation()
    tresorier = await factory.actor(organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    membre = await factory.actor(organisation=org, org_roles=["MEMBRE"])
    dues = await cotisation(db, membre.membre, org, 2000, echeance=date.today() - timedelta(days=30))
    paid = await client.post("/api/paiements", headers=tresorier.headers, json={
        "membreId": str(membre.membre.id), "organisationId": str(org.id), "montant": "3000", "methode": "ESPECES",
        "cibles": [], "avance": True})
    assert paid.status_code == 201, paid.text
    csrf = await sign_in(client, tresorier, db)
    page = await client.get(f"/console/membres/{membre.membre.id}")
    assert page.status_code == 200 and "Avoir" in page.text and "Imputer l'avoir" in page.text, page.text[-3000:]
    key = FORM_KEY.search(page.text).group(1)
    path = f"/console/membres/{membre.membre.id}/avoir/imputer"
    done = await client.post(path, data={"csrf": csrf, "idempotency_key": key})
    assert done.status_code == 303 and done.headers["location"].endswith("?fait=avoir"), done.text
    again = await client.post(path, data={"csrf": csrf, "idempotency_key": key})
    assert again.status_code == 303
    await db.refresh(dues)
    assert dues.statut == "PAYEE" and dues.montant_paye == Decimal("2000")
    shown = await client.get(f"/console/membres/{membre.membre.id}?fait=avoir")
    assert "Avoir imputé" in shown.text and "1\u202f000" in shown.text
    no_csrf = await client.post(path, data={"idempotency_key": "autre"})
    assert no_csrf.status_code in (400, 403)

    client.cookies.clear()
    await sign_in(client, membre, db)
    own = await client.get(f"/console/membres/{membre.membre.id}", follow_redirects=True)
    assert "Imputer l'avoir" not in own.text
