"""The console calls the API's own operation functions (``<area>/operations.py``): the same settings, the same key
table under the route's template, the same French 400 for a body the route's schema refuses."""

from __future__ import annotations

import re
import uuid
from decimal import Decimal

from sqlalchemy import func, select

from tests.console.connexion import KEY, sign_in
from tests.factories.cotisations import cotisation
from tests.wave.fake_wave import fake_wave_server, wave  # noqa: F401 - fixtures
from unionflow.core.routing import api_routes
from unionflow.models import CleIdempotence, Paiement, Versement


async def _guichet(client, factory, db, montant=5000):
    org = await factory.organisation()
    tresorier = await factory.actor(organisation=org, org_roles=["TRESORIER"])
    membre = await factory.actor(organisation=org, org_roles=["MEMBRE"])
    due = await cotisation(db, membre.membre, org, montant)
    csrf = await sign_in(client, tresorier, db)
    form = await client.get(f"/console/membres/{membre.membre.id}/encaisser")
    assert form.status_code == 200, form.text
    return org, tresorier, membre, due, csrf, KEY.search(form.text).group(1)


async def _nombre_paiements(db, membre) -> int:
    return (await db.execute(select(func.count()).select_from(Paiement)
                             .where(Paiement.membre_id == membre.membre.id))).scalar_one()


async def test_cheque_without_reference_is_the_api_400_and_the_form_again(client, factory, db):
    org, tresorier, membre, due, csrf, key = await _guichet(client, factory, db)
    api = await client.post("/api/paiements", headers=tresorier.headers, json={
        "membreId": str(membre.membre.id), "organisationId": str(org.id), "montant": "5000", "methode": "CHEQUE",
        "cibles": [{"cotisationId": str(due.id)}]})
    assert api.status_code == 400 and api.json()["type"].endswith("/regle-metier"), api.text
    reason = api.json()["detail"]
    assert reason == "referenceExterne est obligatoire pour la méthode CHEQUE"

    response = await client.post(f"/console/membres/{membre.membre.id}/encaisser", data={
        "csrf": csrf, "idempotency_key": key, "cotisation": str(due.id), "montant": "4 000", "methode": "CHEQUE"})
    assert response.status_code == 400, response.text
    assert response.headers["content-type"].startswith("text/html")
    assert f'<p class="alerte" role="alert">{reason}</p>' in response.text
    # The same form, with what was typed: the amount, the method, the key (a corrected resubmission stays one).
    assert f'action="/console/membres/{membre.membre.id}/encaisser"' in response.text
    assert 'value="4 000"' in response.text and '<option value="CHEQUE" selected>' in response.text
    assert f'name="idempotency_key" value="{key}"' in response.text
    assert await _nombre_paiements(db, membre) == 0
    # Nothing of the refused request stayed in the key table: the corrected form goes through under the same key.
    corrected = await client.post(f"/console/membres/{membre.membre.id}/encaisser", data={
        "csrf": csrf, "idempotency_key": key, "cotisation": str(due.id), "montant": "5000", "methode": "CHEQUE",
        "reference": "CHQ-0042"})
    assert corrected.status_code == 303, corrected.text
    assert await _nombre_paiements(db, membre) == 1


async def test_declaration_refused_by_the_schema_shows_the_form_again(client, factory, db):
    org = await factory.organisation()
    membre = await factory.actor(organisation=org, org_roles=["MEMBRE"])
    due = await cotisation(db, membre.membre, org, 3000)
    csrf = await sign_in(client, membre, db)
    form = await client.get(f"/console/moi/cotisations/{due.id}/declarer")
    key = KEY.search(form.text).group(1)
    api = await client.put(f"/api/cotisations/{due.id}/payer", headers=membre.headers, json={
        "montant": "3000", "methodePaiement": "VIREMENT", "referencePaiement": "R" * 101})
    assert api.status_code == 400, api.text
    response = await client.post(f"/console/moi/cotisations/{due.id}/declarer", data={
        "csrf": csrf, "idempotency_key": key, "montant": "3000", "methode": "VIREMENT", "reference": "R" * 101})
    assert response.status_code == 400, response.text
    assert api.json()["detail"] == "referencePaiement: doit contenir au plus 100 caractère(s)"
    assert api.json()["detail"] in response.text and "Déclarer un paiement" in response.text
    assert '<option value="VIREMENT" selected>' in response.text
    assert await _nombre_paiements(db, membre) == 0


async def test_cash_on_dues_with_an_open_wave_session_expires_it_first_as_the_api(client, factory, db,
                                                                                    wave):  # noqa: F811
    org, _, membre, due, csrf, key = await _guichet(client, factory, db, 2500)
    checkout = await client.post("/api/paiements/wave/checkout", headers=membre.headers, json={
        "organisationId": str(org.id), "cibles": [{"cotisationId": str(due.id)}]})
    assert checkout.status_code == 201, checkout.text
    session_wave = checkout.json()

    response = await client.post(f"/console/membres/{membre.membre.id}/encaisser", data={
        "csrf": csrf, "idempotency_key": key, "cotisation": str(due.id), "montant": "2500", "methode": "ESPECES"})
    assert response.status_code == 303, response.text
    assert wave.sessions[session_wave["checkoutId"]]["checkout_status"] == "expired"
    assert any(r[0] == "POST" and r[1].endswith("/expire") for r in wave.requests)
    expired = await db.get(Paiement, uuid.UUID(session_wave["paiementId"]))
    await db.refresh(expired)
    assert expired.statut == "EXPIRE"
    await db.refresh(due)
    assert due.statut == "PAYEE" and due.montant_paye == Decimal("2500")


async def test_a_replayed_form_key_returns_the_first_answer_under_the_api_operation(client, factory, db):
    org, tresorier, membre, due, csrf, key = await _guichet(client, factory, db)
    data = {"csrf": csrf, "idempotency_key": key, "cotisation": str(due.id), "montant": "5000", "methode": "ESPECES"}
    first = await client.post(f"/console/membres/{membre.membre.id}/encaisser", data=data)
    again = await client.post(f"/console/membres/{membre.membre.id}/encaisser", data=data)
    assert first.status_code == again.status_code == 303
    assert again.headers["location"] == first.headers["location"]
    assert await _nombre_paiements(db, membre) == 1
    row = (await db.execute(select(CleIdempotence).where(CleIdempotence.cle == key))).scalar_one()
    assert row.operation == "POST /api/paiements" and row.statut_reponse == 201
    assert first.headers["location"] == f"/console/paiements/{row.corps_reponse['id']}"
    # One key table for both doors: the API request the form stands for, under the same key, is the same request.
    api = await client.post("/api/paiements", headers={**tresorier.headers, "Idempotency-Key": key}, json={
        "membreId": str(membre.membre.id), "organisationId": str(org.id), "montant": "5000", "methode": "ESPECES",
        "cibles": [{"cotisationId": str(due.id)}]})
    assert api.status_code == 201 and api.headers["idempotent-replayed"] == "true", api.text
    assert api.json() == row.corps_reponse
    # The same key for another amount is another request: refused as the API refuses it (422), nothing recorded.
    other = await client.post(f"/console/membres/{membre.membre.id}/encaisser", data={**data, "montant": "4000"})
    assert other.status_code == 422 and "autre requête" in other.text
    assert await _nombre_paiements(db, membre) == 1


async def test_withdrawing_a_prepared_payout_is_the_api_route_under_the_form_key(client, factory, db):
    """POST /api/versements/{id}/annuler: the same service call as the route, the form's key, one withdrawal."""
    org = await factory.organisation()
    tresorier = await factory.actor(organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    csrf = await sign_in(client, tresorier, db)
    form = await client.get("/console/versements")
    prepared = await client.post("/console/versements", data={
        "csrf": csrf, "idempotency_key": KEY.search(form.text).group(1), "objet_type": "AUTRE", "montant": "15000",
        "motif": "Location de la salle", "beneficiaire_nom": "Hôtel de ville", "mode": "MANUEL"})
    assert prepared.status_code == 303, prepared.text
    versement = (await db.execute(select(Versement).where(Versement.organisation_id == org.id))).scalar_one()
    page = await client.get("/console/versements")
    key = re.search(rf'name="idempotency_key" value="([^"]+-{versement.id}-annuler)"', page.text).group(1)
    data = {"csrf": csrf, "idempotency_key": key, "motif": "Salle offerte par la mairie"}
    first = await client.post(f"/console/versements/{versement.id}/annuler", data=data)
    again = await client.post(f"/console/versements/{versement.id}/annuler", data=data)
    assert first.status_code == again.status_code == 303, again.text  # not a 400 « déjà annulé »: the first answer
    await db.refresh(versement)
    assert versement.statut == "ANNULE"
    row = (await db.execute(select(CleIdempotence).where(CleIdempotence.cle == key))).scalar_one()
    assert row.operation == "POST /api/versements/{id}/annuler" and row.statut_reponse == 200


async def test_every_operation_a_form_names_is_an_api_route(app):
    """The operation under which a form's key is stored is the API route's own (method and template). Every
    ``operations`` module of the package is found by walking it, so a new one is checked without being listed."""
    import importlib
    import pkgutil
    from pathlib import Path

    import unionflow

    modules = [importlib.import_module(info.name)
               for info in pkgutil.walk_packages(unionflow.__path__, "unionflow.")
               if info.name.rsplit(".", 1)[-1] == "operations"]
    routes = {f"{method} {route.path}" for route in api_routes(app) for method in route.methods}
    named = [value for module in modules for name, value in vars(module).items() if name.startswith("OPERATION_")]
    console = Path(unionflow.__file__).parent / "console"
    written = [m for f in console.glob("services*.py")
               for m in re.findall(r'for_form\(session, "([^"]+)"', f.read_text(encoding="utf-8"))]
    verbes = [f"POST /api/paiements/{{id}}/{verbe}" for verbe in ("annuler", "rembourser")]
    assert len(modules) >= 7 and len(named) >= 13 and len(written) == 2
    assert [operation for operation in named + written + verbes if operation not in routes] == []
