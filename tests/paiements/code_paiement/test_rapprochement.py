"""A Wave transfer whose message (or client reference) carries a dues' payment code is, at reconciliation, that
dues' payment: recorded, applied, receipted to the member and told to the sender. A code with a typo, unknown, or
of another organisation leaves the line in the list to assign. Property: a line carrying a code is applied to that
code's member or left to assign, never to another member."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from decimal import Decimal

from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st
from sqlalchemy import select

from tests.factories.code_paiement import dues_avec_code
from unionflow.core.code_paiement import afficher, est_valide
from unionflow.models import Cotisation, Notification, Paiement

EN_TETE = "Horodatage;Identifiant de transaction;Type de transaction;Montant;Frais;Devise;Référence client;" \
          "Mobile de la contrepartie;Message\n"


def _key() -> dict[str, str]:
    return {"Idempotency-Key": str(uuid.uuid4())}


async def _reconcile(client, treasurer, org, lignes: list[tuple[str, int, int, str, str, str]]) -> dict[str, dict]:
    """Import a CSV statement of ``lignes`` (transaction id, net, fee, client reference, sender, message) and
    reconcile it; the lines by transaction id."""
    now = datetime.now(UTC).isoformat().replace("+00:00", "Z")
    csv_text = EN_TETE + "".join(f"{now};{tx};merchant_payment;{net};{fee};XOF;{ref};{mobile};{message}\n"
                                 for tx, net, fee, ref, mobile, message in lignes)
    uploaded = await client.post("/api/wave/releves", headers=treasurer.headers, data={"organisationId": str(org.id)},
                                 files={"fichier": ("releve.csv", csv_text.encode(), "text/csv")})
    assert uploaded.status_code == 201, uploaded.text
    releve = uploaded.json()["id"]
    done = await client.post(f"/api/wave/releves/{releve}/rapprocher", headers={**treasurer.headers, **_key()})
    assert done.status_code == 200, done.text
    rows = (await client.get(f"/api/wave/releves/{releve}/lignes?size=200", headers=treasurer.headers)).json()
    return {row["transactionId"]: row for row in rows["content"]}


async def _world(factory, db, n: int = 2):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    members = [await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"]) for _ in range(n)]
    dues = [await dues_avec_code(db, m.membre, org, 3000) for m in members]
    return org, treasurer, members, dues


async def test_a_transfer_with_a_code_pays_that_dues(client, factory, db, wave):
    org, treasurer, members, dues = await _world(factory, db)
    other_org, _, _, foreign = await _world(factory, db, 1)
    code = dues[0].code_paiement
    typo = code[:5] + str((int(code[5]) + 3) % 10) + code[6:]
    lines = await _reconcile(client, treasurer, org, [
        ("T_CODE0001", 2970, 30, "", "+33611223344", f"cotisation maman {afficher(code)}"),
        ("T_CODE0002", 1000, 0, dues[1].code_paiement, "", ""),
        ("T_CODE0003", 500, 0, "", "", f"cotis {typo}"),
        ("T_CODE0004", 500, 0, "", "", f"cotis {foreign[0].code_paiement}"),
    ])
    assert {tx: row["statut"] for tx, row in lines.items()} == {
        "T_CODE0001": "RAPPROCHEE", "T_CODE0002": "RAPPROCHEE", "T_CODE0003": "INCONNUE", "T_CODE0004": "INCONNUE"}
    await db.refresh(dues[0])
    await db.refresh(dues[1])
    assert (dues[0].statut, dues[0].montant_paye) == ("PAYEE", Decimal("3000"))
    assert (dues[1].statut, dues[1].montant_paye) == ("PARTIELLEMENT_PAYEE", Decimal("1000"))
    first = (await db.execute(select(Paiement).where(Paiement.reference_externe == "T_CODE0001"))).scalar_one()
    assert (first.membre_id, first.methode, first.montant) == (members[0].membre.id, "WAVE_TRANSFERT", 3000)
    assert str(first.id) == lines["T_CODE0001"]["paiementId"] and first.numero_recu.startswith("REC-")
    notes = (await db.execute(select(Notification).where(Notification.source_id == first.id))).scalars().all()
    assert {n.membre_id for n in notes} == {members[0].membre.id, None}
    assert [n.adresse for n in notes if n.membre_id is None] == ["+33611223344"]
    assert not (await db.execute(select(Paiement).where(Paiement.reference_externe.in_(
        ["T_CODE0003", "T_CODE0004"])))).scalars().all()
    await db.refresh(foreign[0])
    assert foreign[0].montant_paye == 0 and other_org.id != org.id

    # Reconciled again, and a second transfer for the dues now paid: credit of the same member.
    again = await _reconcile(client, treasurer, org, [("T_CODE0005", 800, 0, "", "", f"{code}")])
    assert again["T_CODE0005"]["statut"] == "RAPPROCHEE"
    credit = (await db.execute(select(Paiement).where(Paiement.reference_externe == "T_CODE0005"))).scalar_one()
    assert credit.membre_id == members[0].membre.id and credit.montant_non_affecte == 800
    assert len((await db.execute(select(Paiement).where(Paiement.membre_id == members[0].membre.id))
                ).scalars().all()) == 2


def _typo(code: str, data: st.DataObject) -> str:
    i = data.draw(st.integers(0, 10))
    d = data.draw(st.sampled_from([c for c in "0123456789" if c != code[i]]))
    return code[:i] + d + code[i + 1:]


def _swap(code: str, data: st.DataObject) -> str:
    i, j = data.draw(st.lists(st.integers(0, 10), min_size=2, max_size=2, unique=True))
    chars = list(code)
    chars[i], chars[j] = chars[j], chars[i]
    return "".join(chars)


MUTATIONS = ("exact", "typo", "swap", "other", "two_typos", "random")
line = st.tuples(st.integers(0, 2), st.sampled_from(MUTATIONS), st.integers(1, 12).map(lambda n: n * 500),
                 st.sampled_from(("message", "reference")), st.booleans())
PROPERTY = settings(max_examples=20, deadline=None, phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@PROPERTY
@given(data=st.data(), drawn=st.lists(line, min_size=1, max_size=5))
async def test_a_code_pays_its_own_member_or_waits_to_be_assigned(client, factory, db, wave, data, drawn):
    org, treasurer, _members, dues = await _world(factory, db, 3)
    owner = {d.code_paiement: d.membre_id for d in dues}
    lignes, typed = [], {}
    for n, (who, mutation, amount, where, spaced) in enumerate(drawn):
        code = dues[who].code_paiement
        variant = {"exact": lambda c: c, "typo": lambda c: _typo(c, data), "swap": lambda c: _swap(c, data),
                   "other": lambda c: dues[(who + 1) % 3].code_paiement,
                   "two_typos": lambda c: _typo(_typo(c, data), data),
                   "random": lambda c: "".join(data.draw(st.lists(st.sampled_from("0123456789"), min_size=11,
                                                                  max_size=11)))}[mutation](code)
        shown = afficher(variant) if spaced else variant
        tx = f"T_P{uuid.uuid4().hex[:10].upper()}{n}"
        typed[tx] = variant
        lignes.append((tx, amount, 0, shown if where == "reference" else "", "",
                       f"pour {shown} merci" if where == "message" else ""))
    note(f"codes: {[d.code_paiement for d in dues]}; lines: {lignes}")
    lines = await _reconcile(client, treasurer, org, lignes)
    for tx, variant in typed.items():
        expected = owner.get(variant) if est_valide(variant) else None
        paid = (await db.execute(select(Paiement).where(Paiement.reference_externe == tx))).scalars().all()
        if expected is None:
            assert lines[tx]["statut"] == "INCONNUE" and not paid, (tx, variant, lines[tx])
        else:
            assert lines[tx]["statut"] == "RAPPROCHEE" and [p.membre_id for p in paid] == [expected], (tx, variant)
    for d in dues:
        refreshed = (await db.execute(select(Cotisation).where(Cotisation.id == d.id)
                                      .execution_options(populate_existing=True))).scalar_one()
        mine = sum((p.montant - p.montant_non_affecte for p in (await db.execute(select(Paiement).where(
            Paiement.membre_id == d.membre_id))).scalars()), Decimal(0))
        assert refreshed.montant_paye == mine
