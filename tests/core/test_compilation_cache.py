"""Hot paths are compiled once per worker: in the steady state every statement they send is a SQLAlchemy
compiled-cache hit. A statement without a cache key (a multi-row ``VALUES``, a dialect ``ON CONFLICT``) is
compiled again at each request; on the payment that was a quarter of its CPU (docs/performance.md, issue 12).
The write paths are checked in tests/paiements/encaissement/test_allers_retours.py."""

from __future__ import annotations

import contextlib

from tests.allers_retours import allers_retours
from tests.factories.cotisations import cotisation_a_venir


async def test_hot_reads_compile_nothing_once_warm(app, client, committed_factory):
    org = await committed_factory.organisation()
    treasurer = await committed_factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    member = await committed_factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    dues = [await cotisation_a_venir(committed_factory, member.membre, org, montant="5000") for _ in range(3)]
    requests = [
        (treasurer, "/api/status"),
        (treasurer, "/api/cotisations/{}"),
        (treasurer, "/api/cotisations?page=0&size=20"),
        (treasurer, f"/api/organisations/{org.id}"),
        (member, "/api/cotisations/mes-cotisations"),
        (member, "/api/organisations/mes-organisations"),
    ]
    engines = {id(e): e for e in (app.state.engine, getattr(app.state, "principal_engine", app.state.engine))}
    for round_, due in enumerate(dues):
        with contextlib.ExitStack() as stack:
            recorders = [stack.enter_context(allers_retours(e, exclure_principal=False)) for e in engines.values()]
            for actor, path in requests:
                response = await client.get(path.format(due.id), headers=actor.headers)
                assert response.status_code == 200, (path, response.text)
        assert sum(r.count for r in recorders) >= len(requests)  # the recorders saw the statements
        if round_ > 0:  # the first round fills the caches
            assert [s for r in recorders for s in r.compiles] == []
