"""The bench scenario of issue 19 (S5_pay_pg_orgs): payments spread round-robin over the organisations.

The bench itself is run by hand (make bench, docs/performance.md); here only its request builder is checked,
so that the scenario measures what it says."""

from __future__ import annotations

import json

from bench.fixtures import Pools, spread_over_organisations
from bench.run import _pay_orgs_requests, parse


def test_payments_of_the_scenario_alternate_between_organisations():
    unpaid = [(f"dues-{org}-{n}", "1000.00") for org in "ABC" for n in range(3)] + [("dues-D-0", "500.00")]
    organisation_of = {cid: cid.split("-")[1] for cid, _ in unpaid}
    pools = Pools(cotisations=[], organisations=[], unpaid=unpaid, pending_adhesions=[],
                  organisation_of=organisation_of)
    requests = _pay_orgs_requests(pools, unpaid, {"Authorization": "Bearer t"})

    order = [path.split("/")[3] for _, path, _, _ in requests]
    assert [organisation_of[cid] for cid in order] == list("ABCDABCABC"), order
    assert sorted(order) == sorted(cid for cid, _ in unpaid)  # each dues paid once
    method, path, headers, body = requests[0]
    assert method == "PUT" and path == "/api/cotisations/dues-A-0/payer"
    assert headers == {"Authorization": "Bearer t", "Idempotency-Key": "bench-dues-A-0"}
    assert json.loads(body) == {"montant": "1000.00"}


def test_spread_keeps_unknown_organisations_together_and_the_only_group_parses():
    assert spread_over_organisations([("x", "1"), ("y", "2")], {}) == [("x", "1"), ("y", "2")]
    assert parse(["--only", "s5", "--scale", "tiny"]).only == "s5"
