from __future__ import annotations

import uuid

from sqlalchemy import select

from tests.factories.donnees_personnelles import consentement
from unionflow.models import AuditLog

URL = "/api/demandes-aide"


def _body(org_id, **extra):
    return {"organisationId": str(org_id), "type": "DECES", "titre": "Décès de mon père",
            "description": "Frais d'obsèques à Kaolack", "montantDemande": "150000", **extra}


async def _setup(client, factory):
    org = await factory.organisation()
    membre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    admin_org = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    created = await client.post(URL, headers=membre.headers, json=_body(org.id))
    assert created.status_code == 200, created.text
    return org, membre, admin_org, created.json()


async def test_member_submits_and_reads_own_request(client, factory, db):
    _org, membre, _, demande = await _setup(client, factory)
    assert demande["statut"] == "SOUMISE" and demande["urgence"] == "NORMALE" and demande["devise"] == "XOF"
    assert demande["membreId"] == str(membre.membre.id) and demande["numeroReference"].startswith("AIDE-")
    assert demande["montantDemande"] == "150000.00" and demande["montantAccorde"] is None
    mine = await client.get(f"{URL}/mes", headers=membre.headers)
    assert [d["id"] for d in mine.json()] == [demande["id"]] and mine.headers["X-Total-Count"] == "1"
    assert (await client.get(f"{URL}/{demande['id']}", headers=membre.headers)).status_code == 200
    entry = (await db.execute(select(AuditLog).where(AuditLog.entite_id == demande["id"]))).scalar_one()
    assert entry.type_action == "CREER" and entry.module == "DEMANDES_AIDE"


async def test_creation_rules(client, factory):
    org = await factory.organisation()
    membre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    h = membre.headers
    for bad in (_body(org.id, montantDemande="-1"), _body(org.id, type="VOYAGE"), _body(org.id, urgence="URGENT"),
                _body(org.id, statut="APPROUVEE"), _body(org.id, titre=""), {"organisationId": str(org.id)}):
        assert (await client.post(URL, headers=h, json=bad)).status_code == 400, bad
    other = await factory.organisation()
    assert (await client.post(URL, headers=h, json=_body(other.id))).status_code == 400
    assert (await client.post(URL, headers=h, json=_body(uuid.uuid4()))).status_code == 404
    no_member = await factory.actor(["USER"], with_membre=False)
    assert (await client.post(URL, headers=no_member.headers, json=_body(org.id))).status_code == 400
    tresorier = await factory.actor(["TRESORIER"], with_membre=False)
    assert (await client.post(URL, headers=tresorier.headers, json=_body(org.id))).status_code == 403
    assert (await client.get(URL)).status_code == 401
    free = await client.post(URL, headers=h, json=_body(org.id, montantDemande="0", urgence="CRITIQUE"))
    assert free.status_code == 200 and free.json()["urgence"] == "CRITIQUE"


async def test_visibility(client, factory):
    org, _membre, admin_org, demande = await _setup(client, factory)
    other_member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    assert (await client.get(f"{URL}/{demande['id']}", headers=other_member.headers)).status_code == 404
    assert (await client.get(URL, headers=other_member.headers)).json() == []
    assert (await client.put(f"{URL}/{demande['id']}", headers=other_member.headers,
                             json={"titre": "Piraté"})).status_code == 404
    assert (await client.get(f"{URL}/{demande['id']}", headers=admin_org.headers)).status_code == 200
    staff_list = await client.get(URL, headers=admin_org.headers)
    assert [d["id"] for d in staff_list.json()] == [demande["id"]]
    assert (await client.get(f"{URL}/mes", headers=admin_org.headers)).json() == []
    stranger_org = await factory.organisation()
    stranger = await factory.actor(["USER"], organisation=stranger_org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    assert (await client.get(f"{URL}/{demande['id']}", headers=stranger.headers)).status_code == 404
    admin = await factory.actor(["ADMIN"], with_membre=False)
    assert (await client.get(f"{URL}/{demande['id']}", headers=admin.headers)).status_code == 200
    assert (await client.get(f"{URL}/{uuid.uuid4()}", headers=admin.headers)).status_code == 404
    assert (await client.get(f"{URL}/pas-un-uuid", headers=admin.headers)).status_code == 400


async def test_search_and_paging(client, factory, db):
    org, membre, admin_org, first = await _setup(client, factory)
    h = membre.headers
    await consentement(db, membre.membre.id, org.id)  # MALADIE states health: SANTE_AIDE consent
    await client.post(URL, headers=h, json=_body(org.id, type="SCOLARITE", urgence="ELEVEE"))
    await client.post(URL, headers=h, json=_body(org.id, type="MALADIE", urgence="ELEVEE"))
    found = await client.get(f"{URL}/search", headers=admin_org.headers, params={"urgence": "ELEVEE"})
    assert {d["type"] for d in found.json()} == {"SCOLARITE", "MALADIE"} and found.headers["X-Total-Count"] == "2"
    typed = await client.get(f"{URL}/search", headers=h, params={"type": "DECES", "statut": "SOUMISE"})
    assert [d["id"] for d in typed.json()] == [first["id"]]
    for bad in ({"statut": "INCONNU"}, {"type": "x"}, {"urgence": "HAUTE"}, {"size": 0}, {"page": -1}):
        assert (await client.get(f"{URL}/search", headers=h, params=bad)).status_code == 400, bad
    page = await client.get(URL, headers=h, params={"size": 2, "page": 1})
    assert len(page.json()) == 1 and page.headers["X-Total-Count"] == "3"
    newest_first = await client.get(f"{URL}/mes", headers=h)
    assert newest_first.json()[-1]["id"] == first["id"]


async def test_update_while_submitted_only(client, factory, db):
    org, membre, admin_org, demande = await _setup(client, factory)
    await consentement(db, membre.membre.id, org.id)  # MALADIE states health: SANTE_AIDE consent
    url = f"{URL}/{demande['id']}"
    updated = await client.put(url, headers=membre.headers, json={"montantDemande": "200000", "urgence": "ELEVEE"})
    assert updated.status_code == 200
    assert updated.json()["montantDemande"] == "200000.00" and updated.json()["urgence"] == "ELEVEE"
    assert (await client.put(url, headers=membre.headers, json={"titre": None})).status_code == 400
    assert (await client.put(url, headers=membre.headers, json={"organisationId": str(org.id)})).status_code == 400
    by_staff = await client.put(url, headers=admin_org.headers, json={"type": "MALADIE"})
    assert by_staff.status_code == 200 and by_staff.json()["type"] == "MALADIE"
    assert (await client.put(f"{url}/rejeter", headers=admin_org.headers)).status_code == 200
    assert (await client.put(url, headers=membre.headers, json={"titre": "Trop tard"})).status_code == 400


async def test_approval(client, factory, db):
    org, membre, admin_org, demande = await _setup(client, factory)
    url = f"{URL}/{demande['id']}"
    assert (await client.put(f"{url}/approuver", headers=membre.headers)).status_code == 403
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    assert (await client.put(f"{url}/approuver", headers=tresorier.headers)).status_code == 403
    too_much = await client.put(f"{url}/approuver", headers=admin_org.headers, params={"montantAccorde": "150000.01"})
    assert too_much.status_code == 400
    assert (await client.put(f"{url}/approuver", headers=admin_org.headers,
                             params={"montantAccorde": "abc"})).status_code == 400
    approved = await client.put(f"{url}/approuver", headers=admin_org.headers,
                                params={"montantAccorde": "100000", "motif": "Barème décès"})
    assert approved.status_code == 200, approved.text
    body = approved.json()
    assert body["statut"] == "APPROUVEE" and body["montantAccorde"] == "100000.00" and body["motif"] == "Barème décès"
    assert body["decidePar"] == admin_org.user.email and body["dateDecision"]
    assert (await client.put(f"{url}/approuver", headers=admin_org.headers)).status_code == 400
    assert (await client.put(f"{url}/rejeter", headers=admin_org.headers)).status_code == 400
    entry = (await db.execute(select(AuditLog).where(AuditLog.entite_id == demande["id"],
                                                     AuditLog.type_action == "APPROUVER"))).scalar_one()
    assert entry.details["avant"]["statut"] == "SOUMISE" and entry.details["apres"]["statut"] == "APPROUVEE"
    assert entry.details["avant"]["montant_accorde"] is None

    second = (await client.post(URL, headers=membre.headers, json=_body(org.id, montantDemande="50000"))).json()
    admin = await factory.actor(["ADMIN"], with_membre=False)
    full = await client.put(f"{URL}/{second['id']}/approuver", headers=admin.headers)
    assert full.json()["montantAccorde"] == "50000.00"


async def test_rejection_and_no_self_decision(client, factory):
    org, _membre, admin_org, demande = await _setup(client, factory)
    rejected = await client.put(f"{URL}/{demande['id']}/rejeter", headers=admin_org.headers,
                                params={"motif": "Hors statuts"})
    assert rejected.json()["statut"] == "REJETEE" and rejected.json()["montantAccorde"] is None
    own = (await client.post(URL, headers=admin_org.headers, json=_body(org.id))).json()
    assert (await client.put(f"{URL}/{own['id']}/approuver", headers=admin_org.headers)).status_code == 403
    other_org = await factory.organisation()
    foreign_admin = await factory.actor(["USER"], organisation=other_org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    assert (await client.put(f"{URL}/{own['id']}/rejeter", headers=foreign_admin.headers)).status_code == 404
    sa = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    assert (await client.put(f"{URL}/{own['id']}/rejeter", headers=sa.headers)).json()["statut"] == "REJETEE"


async def test_aid_types_come_from_the_reference_table(client, factory):
    org = await factory.organisation()
    membre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    admin = await factory.actor(["ADMIN"], with_membre=False)
    # A code longer than the former 20-character column fits like any reference code.
    code = "CATASTROPHE_NATURELLE_INONDATION"
    refused = await client.post(URL, headers=membre.headers, json=_body(org.id, type=code))
    assert refused.status_code == 400 and "type inconnu" in refused.json()["detail"]
    entry = await client.post("/api/types-reference", headers=admin.headers,
                              json={"domaine": "TYPE_AIDE", "code": code, "libelle": "Inondation"})
    assert entry.status_code == 201, entry.text
    created = await client.post(URL, headers=membre.headers, json=_body(org.id, type=code))
    assert created.status_code == 200, created.text
    assert created.json()["type"] == code
    assert (await client.put(f"/api/types-reference/{entry.json()['id']}", headers=admin.headers,
                             json={"actif": False})).status_code == 200
    inactive = await client.post(URL, headers=membre.headers, json=_body(org.id, type=code))
    assert inactive.status_code == 400 and "type désactivé" in inactive.json()["detail"]
    assert "DECES" in inactive.json()["detail"]
    # The request filed before stays readable and searchable by its (now inactive) type.
    found = await client.get(f"{URL}/search", headers=membre.headers, params={"type": code})
    assert [d["id"] for d in found.json()] == [created.json()["id"]]
    # Editing the request without changing its type is still allowed; switching to the inactive type is not.
    kept = await client.put(f"{URL}/{created.json()['id']}", headers=membre.headers, json={"type": code})
    assert kept.status_code == 200
    other = await client.post(URL, headers=membre.headers, json=_body(org.id))
    assert (await client.put(f"{URL}/{other.json()['id']}", headers=membre.headers,
                             json={"type": code})).status_code == 400
