"""Property: over random sequences of postings (payments through POST /api/paiements, manual entries through the
entry route, approved when they touch money) spread over the previous and the current year, the SYCEBNL
statements hold, for N and N−1:
(a) the cash-flow table's closing cash = opening + flows = the class-5 balances at the year end (as tracked by the
    test, independently of the statement);
(b) the balance sheet balances;
(c) the N−1 column of every statement of year N equals the N column of the same statement of year N−1;
(d) with no closing entry, the balance sheet's result of the year is the income statement's, and the results of
    the earlier years never closed are N−1's.
Through the real app; no shrinking (each step is HTTP), a failing example is printed with its steps (``note``)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any

from hypothesis import HealthCheck, Phase, example, given, note, settings
from hypothesis import strategies as st

from tests.factories.comptabilite import compte, ecriture, journal, passer
from tests.factories.paiements import encaisser

ZERO = Decimal("0")
PROPERTY = settings(max_examples=8, deadline=None, phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
# Manual entries: (debit account, credit account); "T" is the treasury account drawn with the step.
OPERATIONS = {
    "subvention": ("T", "711"), "don": ("T", "7581"), "emprunt": ("T", "182"), "achat": ("605", "T"),
    "aide": ("6581", "T"), "salaire": ("661", "T"), "materiel": ("244", "T"), "facture": ("605", "401"),
    "reglement": ("401", "T"), "virement": ("521", "571"),
}
COMPTES = {"571": "Caisse", "521": "Banque", "711": "Subventions d'exploitation", "7581": "Dons et libéralités reçus",
           "182": "Emprunts et dettes auprès des établissements de crédit", "605": "Autres achats",
           "6581": "Aides et secours accordés", "661": "Rémunérations directes", "244": "Matériel et mobilier",
           "401": "Fournisseurs"}
step = st.one_of(
    st.tuples(st.just("payer"), st.just(0), st.integers(1, 40), st.sampled_from(("571", "521"))),
    st.tuples(st.sampled_from(sorted(OPERATIONS)), st.integers(0, 1), st.integers(1, 40),
              st.sampled_from(("571", "521"))),
)


def _d(value: Any) -> Decimal:
    return Decimal(str(value))


def _par_rubrique(rubriques: list[dict[str, Any]], colonne: str) -> dict[tuple[str, str | None], Decimal]:
    return {(r["code"], p["numeroCompte"] or p["libelle"]): _d(p[colonne]) for r in rubriques for p in r["postes"]
            if _d(p[colonne]) != ZERO}


async def _etat(client: Any, headers: dict[str, str], org_id: Any, nom: str, annee: int) -> dict[str, Any]:
    response = await client.get(f"/api/comptabilite/etats/sycebnl/{nom}", headers=headers,
                                params={"organisationId": str(org_id), "exercice": annee})
    assert response.status_code == 200, response.text
    return dict(response.json())


# Every kind of operation in both years, so that each run covers them whatever is drawn.
TOUT = [("subvention", 1, 30, "521"), ("don", 1, 20, "571"), ("emprunt", 1, 40, "521"), ("achat", 1, 5, "571"),
        ("aide", 1, 4, "571"), ("salaire", 1, 6, "521"), ("materiel", 1, 10, "521"), ("facture", 1, 8, "571"),
        ("reglement", 1, 3, "521"), ("virement", 1, 2, "571"), ("payer", 0, 12, "571"), ("payer", 0, 7, "521"),
        ("aide", 0, 3, "571"), ("reglement", 0, 5, "521"), ("materiel", 0, 20, "521"), ("don", 0, 9, "571")]


@PROPERTY
@example(steps=TOUT)
@given(steps=st.lists(step, min_size=1, max_size=8))
async def test_sycebnl_statements_tie_to_the_books(client, factory, db, steps):
    today = datetime.now(UTC).date()
    n = today.year
    org = await factory.organisation()
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    membre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    comptes = {numero: (await compte(client, tresorier.headers, org.id, numero, libelle))["id"]
               for numero, libelle in COMPTES.items()}
    od = await journal(client, tresorier.headers, org.id, "OD", "OPERATIONS_DIVERSES")
    # Previous year first, in date order, so that no entry takes a treasury below zero at its date.
    ordered = sorted(steps, key=lambda s: -s[1])
    caisse = {n - 1: {"571": ZERO, "521": ZERO}, n: {"571": ZERO, "521": ZERO}}
    for k, (kind, recul, montant, tresor) in enumerate(ordered):
        annee, somme = n - recul, Decimal(montant * 500)
        jour = date(annee, 1, 1) + timedelta(days=k) if recul else today
        if kind == "payer":
            await encaisser(client, db, org, tresorier, membre, str(somme),
                            "ESPECES" if tresor == "571" else "VIREMENT")
            debit, credit = tresor, "7061"
        else:
            debit, credit = (tresor if c == "T" else c for c in OPERATIONS[kind])
            solde = caisse[n - 1][credit] + (caisse[n][credit] if not recul else ZERO) if credit in ("571", "521") \
                else None
            if solde is not None:
                somme = min(somme, solde)
            if somme <= ZERO or debit == credit:
                continue
            posted = await passer(client, factory, org, tresorier.headers, ecriture(
                od["id"], [(comptes[debit], str(somme), "0"), (comptes[credit], "0", str(somme))], jour.isoformat()))
            assert posted.status_code == 200, posted.text
        for numero, signe in ((debit, 1), (credit, -1)):
            if numero in ("571", "521"):
                caisse[annee][numero] += signe * somme
        note(f"{kind} {jour} {debit}/{credit} {somme}")

    fin = {annee: sum(caisse[n - 1].values(), ZERO) + (sum(caisse[n].values(), ZERO) if annee == n else ZERO)
           for annee in (n - 1, n)}
    etats = {(nom, annee): await _etat(client, tresorier.headers, org.id, nom, annee)
             for nom in ("bilan", "compte-resultat", "flux-tresorerie") for annee in (n - 1, n)}
    for annee in (n - 1, n):
        flux = etats["flux-tresorerie", annee]
        assert flux["concordance"] is True
        assert _d(flux["tresorerieClotureN"]) == _d(flux["soldesClasse5N"]) == fin[annee]
        assert _d(flux["tresorerieOuvertureN"]) + _d(flux["variationN"]) == fin[annee]
        bilan = etats["bilan", annee]
        assert bilan["equilibre"] is True and _d(bilan["totalActifN"]) == _d(bilan["totalPassifN"])
    # (c) the N−1 column of year N is year N−1's N column, statement by statement.
    for nom, cles in (("bilan", ("actif", "passif")), ("compte-resultat", ("charges", "produits")),
                      ("flux-tresorerie", ("sections",))):
        for cle in cles:
            assert _par_rubrique(etats[nom, n][cle], "montantN1") == _par_rubrique(etats[nom, n - 1][cle],
                                                                                   "montantN"), (nom, cle)
    flux_n, flux_n1 = etats["flux-tresorerie", n], etats["flux-tresorerie", n - 1]
    assert _d(flux_n["tresorerieClotureN1"]) == _d(flux_n1["tresorerieClotureN"]) == _d(flux_n["tresorerieOuvertureN"])
    # (d) nothing closed: the year's result is the income statement's, N−1's is among the earlier ones.
    passif = {r["code"]: r for r in etats["bilan", n]["passif"]}
    cr = etats["compte-resultat", n]
    assert _d(passif["RESULTAT_EXERCICE"]["totalN"]) == _d(cr["resultatN"])
    assert _d(passif["RESULTAT_EXERCICE"]["totalN1"]) == _d(cr["resultatN1"])
    assert _d(passif.get("RESULTATS_ANTERIEURS", {"totalN": 0})["totalN"]) == _d(cr["resultatN1"])
