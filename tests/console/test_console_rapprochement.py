"""Wave reconciliation in the console (issue 20): the treasurer uploads the portal's CSV (or reads a day from the
loopback Wave server), reconciles it and sees the unknown lines and the book balance beside Wave's with the
difference. The auditor (COMMISSAIRE_AUX_COMPTES) and the president read without any form; forced, they are
refused and nothing is booked; a member is refused the screen; no CSRF token, no import. Rules: the Wave
reconciliation service (tests/wave/test_rapprochement.py)."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import func, select

from tests.console.connexion import KEY, sign_in
from tests.wave.fake_wave import fake_wave_server, wave  # noqa: F401 - fixtures
from unionflow.models import RapprochementWave, ReleveWave

CSV = ("Horodatage;Identifiant de transaction;Type de transaction;Montant;Frais;Solde;Devise;Référence client\n"
       "{now};T_CONSOLE0001;merchant_payment;990;10;990;XOF;\n")


async def _as(client, actor, db) -> str:
    client.cookies.clear()
    return await sign_in(client, actor, db)


# One file, byte for byte, for every upload of a run (the service takes the same file once).
NOW = datetime.now(UTC).isoformat().replace("+00:00", "Z")


def _upload(csrf: str | None, now: str = NOW) -> dict:
    return {"data": {"csrf": csrf} if csrf else {},
            "files": {"fichier": ("releve.csv", CSV.format(now=now).encode(), "text/csv")}}


async def _count(db, model) -> int:
    return int((await db.execute(select(func.count()).select_from(model))).scalar_one())


async def test_the_treasurer_imports_reconciles_and_sees_both_balances(client, factory, db, wave):  # noqa: F811
    org = await factory.organisation()
    tresorier = await factory.actor(organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    csrf = await _as(client, tresorier, db)
    page = await client.get("/console/wave/releves")
    assert page.status_code == 200 and 'action="/console/wave/releves"' in page.text and "Lire chez Wave" in page.text
    assert (await client.post("/console/wave/releves", **_upload(None))).status_code == 403  # no CSRF
    assert await _count(db, ReleveWave) == 0
    imported = await client.post("/console/wave/releves", **_upload(csrf))
    assert imported.status_code == 303, imported.text
    releve = (await db.execute(select(ReleveWave))).scalar_one()
    assert imported.headers["location"] == f"/console/wave/releves/{releve.id}"
    again = await client.post("/console/wave/releves", **_upload(csrf))
    assert again.status_code == 409  # the same file once, the service's reason

    detail = await client.get(f"/console/wave/releves/{releve.id}")
    assert "Pas encore rapproché" in detail.text and "T_CONSOLE0001" in detail.text
    done = await client.post(f"/console/wave/releves/{releve.id}/rapprocher", data={
        "csrf": csrf, "idempotency_key": KEY.search(detail.text).group(1)})
    assert done.status_code == 303, done.text
    shown = await client.get(done.headers["location"])
    assert "Relevé rapproché" in shown.text and 'id="soldes"' in shown.text
    assert "Solde chez Wave" in shown.text and "Écart" in shown.text and "Inconnue chez nous" in shown.text
    assert await _count(db, RapprochementWave) == 1
    listed = await client.get("/console/wave/releves")
    assert f"/console/wave/releves/{releve.id}" in listed.text and "releve.csv" in listed.text


async def test_a_day_is_read_from_wave(client, factory, db, wave):  # noqa: F811
    org = await factory.organisation()
    tresorier = await factory.actor(organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    assert (await client.post("/api/wave/comptes", headers=tresorier.headers, json={
        "organisationId": str(org.id), "libelle": "Compte marchand", "numeroTelephone": "+221771112233",
        "cleApi": wave.api_key})).status_code == 201
    wave.extra_transactions.append({
        "timestamp": datetime.now(UTC).isoformat().replace("+00:00", "Z"), "transaction_id": "T_JOUR0001",
        "transaction_type": "merchant_payment", "amount": "490", "fee": "10", "currency": "XOF"})
    csrf = await _as(client, tresorier, db)
    read = await client.post("/console/wave/releves/depuis-wave", data={
        "csrf": csrf, "date": datetime.now(UTC).date().isoformat()})
    assert read.status_code == 303, read.text
    detail = await client.get(read.headers["location"])
    assert "T_JOUR0001" in detail.text
    bad = await client.post("/console/wave/releves/depuis-wave", data={"csrf": csrf, "date": "hier"})
    assert bad.status_code == 400 and "Date invalide" in bad.text


async def test_auditor_and_president_read_only_and_a_member_is_refused(client, factory, db, wave):  # noqa: F811
    org = await factory.organisation()
    tresorier = await factory.actor(organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    auditeur = await factory.actor(organisation=org, org_roles=["MEMBRE", "COMMISSAIRE_AUX_COMPTES"])
    president = await factory.actor(organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    membre = await factory.actor(organisation=org, org_roles=["MEMBRE"])
    csrf = await _as(client, tresorier, db)
    assert (await client.post("/console/wave/releves", **_upload(csrf))).status_code == 303
    releve = (await db.execute(select(ReleveWave))).scalar_one()
    for reader in (auditeur, president):
        csrf = await _as(client, reader, db)
        listed = await client.get("/console/wave/releves")
        assert listed.status_code == 200 and str(releve.id) in listed.text
        assert 'action="/console/wave/releves"' not in listed.text and "Lire chez Wave" not in listed.text
        detail = await client.get(f"/console/wave/releves/{releve.id}")
        assert detail.status_code == 200 and "T_CONSOLE0001" in detail.text and "/rapprocher" not in detail.text
        forced = await client.post(f"/console/wave/releves/{releve.id}/rapprocher", data={
            "csrf": csrf, "idempotency_key": "forced"})
        assert forced.status_code == 403
        assert (await client.post("/console/wave/releves", **_upload(csrf))).status_code == 403
    assert await _count(db, RapprochementWave) == 0 and await _count(db, ReleveWave) == 1
    await _as(client, membre, db)
    assert (await client.get("/console/wave/releves")).status_code == 403
    assert (await client.get(f"/console/wave/releves/{releve.id}")).status_code == 403


async def test_a_large_statement_page_stays_under_30_kb(client, factory, db, wave):  # noqa: F811
    org = await factory.organisation()
    tresorier = await factory.actor(organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    csrf = await _as(client, tresorier, db)
    rows = "".join(f"{NOW};T_POIDS{i:05d};merchant_payment;990;10;{990 * (i + 1)};XOF;REF-{i}\n" for i in range(150))
    entete = CSV.split("\n", 1)[0] + "\n"
    imported = await client.post("/console/wave/releves", data={"csrf": csrf}, files={
        "fichier": ("gros.csv", (entete + rows).encode(), "text/csv")})
    assert imported.status_code == 303, imported.text
    detail = await client.get(imported.headers["location"])
    await client.post(imported.headers["location"] + "/rapprocher", data={
        "csrf": csrf, "idempotency_key": KEY.search(detail.text).group(1)})
    for path in (imported.headers["location"], imported.headers["location"] + "?page=4", "/console/wave/releves"):
        page = await client.get(path)
        size = len(page.content) + sum(len(k) + len(v) + 4 for k, v in page.headers.items())
        assert page.status_code == 200 and size < 30 * 1024, (path, size)
        print(f"poids {path.rsplit('/', 1)[-1]}: {size}")  # the figures of docs/console.md (pytest -s)
    assert "Suivantes" in (await client.get(imported.headers["location"])).text
    last = (await client.get(imported.headers["location"] + "?page=4")).text
    assert "Précédentes" in last and "Suivantes" not in last and "T_POIDS" in last
