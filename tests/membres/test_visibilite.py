"""One member-visibility rule (membres/repository.py, docs/decisions.md "One member-visibility rule"), asked
through every route that names a member by id: the register, his adhesions and his dues. The caller holds
several roles in several organisations."""

from __future__ import annotations

from datetime import date

from sqlalchemy import select

from tests.factories import Factory
from tests.factories.cotisations import adhesion
from unionflow.models import MembreOrganisation

ROUTES = ("/api/membres/{id}", "/api/adhesions/membre/{id}", "/api/cotisations/membre/{id}")


async def _statuses(client, headers, membre_id) -> list[int]:
    return [(await client.get(route.format(id=membre_id), headers=headers)).status_code for route in ROUTES]


async def test_one_rule_for_a_caller_with_roles_in_three_organisations(client, db, factory: Factory):
    org_a = await factory.organisation()
    org_b = await factory.organisation()
    org_c = await factory.organisation()
    # Secretary (register keeper) in A, event organiser in B, plain member in C.
    caller = await factory.actor(["USER"], organisation=org_a, org_roles=["MEMBRE", "SECRETAIRE"])
    assert caller.membre is not None
    db.add_all([MembreOrganisation(membre_id=caller.membre.id, organisation_id=org_b.id,
                                   roles=["MEMBRE", "ORGANISATEUR_EVENEMENT"], date_debut=date.today()),
                MembreOrganisation(membre_id=caller.membre.id, organisation_id=org_c.id, roles=["MEMBRE"],
                                   date_debut=date.today())])
    await db.flush()
    member_of_a = await factory.membre(org_a)
    former_of_a = await factory.membre(org_a)
    former = (await db.execute(select(MembreOrganisation).where(MembreOrganisation.membre_id == former_of_a.id))
              ).scalar_one()
    former.statut = "INACTIF"
    applicant_to_a = await factory.membre()
    await adhesion(db, applicant_to_a, org_a, statut="EN_ATTENTE")
    member_of_b = await factory.membre(org_b)
    member_of_c = await factory.membre(org_c)
    await db.flush()

    # Acting for A (secretary, a register keeper): A's members, former members and applicants, and himself.
    in_a = caller.in_org(org_a.id)
    for seen in (member_of_a, former_of_a, applicant_to_a, caller.membre):
        assert await _statuses(client, in_a, seen.id) == [200, 200, 200], seen
    for hidden in (member_of_b, member_of_c):
        assert await _statuses(client, in_a, hidden.id) == [404, 404, 404], hidden
    # Acting for B (event organiser: he does not keep B's register) or for C (member): only himself.
    for acting in (caller.in_org(org_b.id), caller.in_org(org_c.id), caller.headers):
        for hidden in (member_of_a, applicant_to_a, member_of_b, member_of_c):
            assert await _statuses(client, acting, hidden.id) == [404, 404, 404], hidden
        assert await _statuses(client, acting, caller.membre.id) == [200, 200, 200]


async def test_treasurer_in_one_and_president_in_another_sees_both_registers(client, db, factory: Factory):
    org_a = await factory.organisation()
    org_b = await factory.organisation()
    caller = await factory.actor(["USER"], organisation=org_a, org_roles=["MEMBRE", "TRESORIER"])
    assert caller.membre is not None
    db.add(MembreOrganisation(membre_id=caller.membre.id, organisation_id=org_b.id, roles=["PRESIDENT"],
                              date_debut=date.today()))
    await db.flush()
    of_a, of_b, elsewhere = await factory.membre(org_a), await factory.membre(org_b), await factory.membre()
    in_a, in_b = caller.in_org(org_a.id), caller.in_org(org_b.id)
    assert await _statuses(client, in_a, of_a.id) == [200, 200, 200]
    assert await _statuses(client, in_a, of_b.id) == [404, 404, 404]
    assert await _statuses(client, in_b, of_b.id) == [200, 200, 200]
    assert await _statuses(client, in_b, of_a.id) == [404, 404, 404]
    for acting in (in_a, in_b):
        assert await _statuses(client, acting, elsewhere.id) == [404, 404, 404]
    global_admin = await factory.actor(["ADMIN"], with_membre=False)
    assert await _statuses(client, global_admin.headers, elsewhere.id) == [200, 200, 200]

