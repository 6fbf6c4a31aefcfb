"""Editing and deactivating a treasury and the organisation's Wave account from the set-up pages, through the API's
own services: a treasury holding money is not deactivated and the reason comes back beside ITS row's form (marked
invalid, described by the reason), the other rows untouched; a deactivated treasury is no longer offered by the
payout form; a refused Wave account change comes back beside its field; other roles and organisations refused."""

from __future__ import annotations

import re
import uuid

from sqlalchemy import select

from tests.console.connexion import sign_in
from tests.factories.tresoreries import declarer, org_avec_encaissement
from unionflow.models import AuditLog, CompteWave, Tresorerie


def _section(html: str, ident: str) -> str:
    found = re.search(rf'<section class="carte" id="{ident}".*?</section>', html, re.S)
    assert found, html[:3000]
    return found.group(0)


async def _org(client, factory, db):
    org, treasurer, _, member = await org_avec_encaissement(client, factory, db, "20000")
    caisse = (await client.post("/api/tresoreries", headers=treasurer.headers,
                                json=declarer(org, "CAISSE", "Caisse", "571"))).json()
    bank = (await client.post("/api/tresoreries", headers=treasurer.headers,
                              json=declarer(org, "BANQUE", "CBAO", "5211", decouvertAutorise="50000"))).json()
    return org, treasurer, member, caisse["id"], bank["id"]


async def test_a_treasury_is_edited_and_its_refused_deactivation_comes_back_beside_its_row(client, factory, db):
    org, treasurer, _, caisse, bank = await _org(client, factory, db)
    csrf = await sign_in(client, treasurer, db)
    url = f"/console/organisations/{org.id}/tresoreries"
    page = await client.get(url)
    assert page.status_code == 200 and f"{url}/{bank}/modifier" in page.text
    assert f"{url}/{caisse}/desactiver" in page.text

    edited = await client.post(f"{url}/{bank}/modifier", data={"csrf": csrf, "nom": "CBAO Plateau",
                                                               "decouvert": "75 000", "par_defaut": "oui"})
    assert edited.status_code == 303, edited.text
    row = await db.get(Tresorerie, uuid.UUID(bank))
    await db.refresh(row)
    assert row.nom == "CBAO Plateau" and row.decouvert_autorise == 75000 and row.par_defaut

    refused = await client.post(f"{url}/{caisse}/desactiver", data={"csrf": csrf})
    assert refused.status_code == 400
    mine, other = _section(refused.text, f"tresorerie-{caisse}"), _section(refused.text, f"tresorerie-{bank}")
    reason = f'id="raison-actif-{caisse}-desactiver"'
    assert reason in mine and "a un solde de 20" in mine and "virez-le" in mine
    assert f'aria-describedby="raison-actif-{caisse}-desactiver"' in mine
    assert "raison" not in other and "aria-invalid" not in other
    assert (await db.get(Tresorerie, uuid.UUID(caisse))).actif

    wrong = await client.post(f"{url}/{bank}/modifier", data={"csrf": csrf, "nom": "CBAO Plateau",
                                                              "decouvert": "beaucoup"})
    assert wrong.status_code == 400
    mine = _section(wrong.text, f"tresorerie-{bank}")
    assert f'aria-invalid="true" aria-describedby="raison-decouvert-{bank}-modifier"' in mine
    assert 'value="beaucoup"' in mine and 'value="beaucoup"' not in _section(wrong.text, f"tresorerie-{caisse}")

    off = await client.post(f"{url}/{bank}/desactiver", data={"csrf": csrf})
    assert off.status_code == 303 and "fait=desactiver" in off.headers["location"]
    payouts = await client.get("/console/versements")
    assert payouts.status_code == 200 and "Caisse (571)" in payouts.text and "CBAO Plateau" not in payouts.text
    assert (await client.post(f"{url}/{bank}/reactiver", data={"csrf": csrf})).status_code == 303
    await db.refresh(row)
    assert row.actif and "CBAO Plateau" in (await client.get("/console/versements")).text
    actions = list((await db.execute(select(AuditLog.type_action).where(AuditLog.entite_id == bank))).scalars())
    assert actions.count("MODIFIER") == 3
    assert (await client.post(f"{url}/{bank}/supprimer", data={"csrf": csrf})).status_code == 404


async def test_the_wave_account_is_edited_deactivated_and_reactivated(client, factory, db):
    org, treasurer, member, _, _ = await _org(client, factory, db)
    csrf = await sign_in(client, treasurer, db)
    url = f"/console/organisations/{org.id}/wave"
    assert (await client.post(url, data={"csrf": csrf, "libelle": "Wave Business", "numero_telephone": "+221771112233",
                                         "cle_api": "wave_sn_prod_KEY12345678"})).status_code == 303
    compte = (await db.execute(select(CompteWave).where(CompteWave.organisation_id == org.id))).scalar_one()
    base = f"{url}/{compte.id}"
    edited = await client.post(f"{base}/modifier", data={"csrf": csrf, "libelle": "Wave de la mutuelle",
                                                         "numero_telephone": "+221 77 111 22 33",
                                                         "cle_api": "", "secret_webhook": "whsec_NEWSECRET99"})
    assert edited.status_code == 303, edited.text
    await db.refresh(compte)
    assert compte.libelle == "Wave de la mutuelle" and compte.cle_api == "wave_sn_prod_KEY12345678"
    assert compte.secret_webhook == "whsec_NEWSECRET99"
    wrong = await client.post(f"{base}/modifier", data={"csrf": csrf, "libelle": "X", "numero_telephone": "+22177"})
    assert wrong.status_code == 400
    mine = _section(wrong.text, f"compte-{compte.id}")
    assert f'aria-describedby="raison-libelle-{compte.id}-modifier"' in mine and "whsec" not in wrong.text
    assert (await client.post(f"{base}/desactiver", data={"csrf": csrf})).status_code == 303
    await db.refresh(compte)
    assert compte.statut == "INACTIF" and "Réactiver « Wave de la mutuelle »" in (await client.get(url)).text
    assert (await client.post(f"{base}/reactiver", data={"csrf": csrf})).status_code == 303
    await db.refresh(compte)
    assert compte.statut == "ACTIF"

    client.cookies.clear()
    csrf_member = await sign_in(client, member, db)
    assert (await client.post(f"{base}/desactiver", data={"csrf": csrf_member})).status_code == 403
    other = await factory.organisation()
    stranger = await factory.actor(["USER"], organisation=other, org_roles=["MEMBRE", "TRESORIER"])
    client.cookies.clear()
    csrf_stranger = await sign_in(client, stranger, db)
    foreign = await client.post(f"/console/organisations/{other.id}/wave/{compte.id}/desactiver",
                                data={"csrf": csrf_stranger})
    assert foreign.status_code == 404
    await db.refresh(compte)
    assert compte.statut == "ACTIF"
