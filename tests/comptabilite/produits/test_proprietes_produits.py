"""Property of the payment's credit lines (issue 20, item 5): whatever the mix of kinds and the organisation's
choices, every franc is credited once, each kind's allocations land in its account, and the remainder goes to the
payment's own kind (donation, event fee) or to members' advances (4191)."""

from __future__ import annotations

import uuid
from collections import defaultdict
from decimal import Decimal

from hypothesis import given, note, settings
from hypothesis import strategies as st

from unionflow.comptabilite.ecritures.service import _repartition
from unionflow.comptabilite.produits.comptes import compte_produit
from unionflow.models import Paiement, PaiementAllocation
from unionflow.models.recette import NatureRecette

DUES_KINDS = [NatureRecette.COTISATION, NatureRecette.COTISATION_EXCEPTIONNELLE, NatureRecette.SOLIDARITE,
              NatureRecette.ADHESION]
montants = st.integers(1, 2_000_000).map(Decimal)
allocation = st.tuples(st.sampled_from(DUES_KINDS), montants)
# An organisation's choices: some kinds mapped to one of a few accounts (two kinds may share one).
choix = st.dictionaries(st.sampled_from(list(NatureRecette)), st.sampled_from(["7061", "7068", "7588", "7069"]))


@settings(max_examples=200, deadline=None)
@given(allocations=st.lists(allocation, max_size=8), reste=st.integers(0, 50_000).map(Decimal),
       nature=st.sampled_from([None, NatureRecette.DON, NatureRecette.EVENEMENT]), produits=choix)
def test_every_franc_is_credited_once_to_its_kind(allocations, reste, nature, produits):
    if not allocations and reste == 0:
        reste = Decimal(1)
    note(f"allocations={allocations!r} reste={reste} nature={nature} produits={produits!r}")
    paiement = Paiement(id=uuid.uuid4(), montant=sum((m for _, m in allocations), Decimal(0)) + reste,
                        nature=nature)
    rows = [PaiementAllocation(id=uuid.uuid4(), paiement_id=paiement.id, montant=m,
                               cotisation_id=None if kind == NatureRecette.ADHESION else uuid.uuid4(),
                               adhesion_id=uuid.uuid4() if kind == NatureRecette.ADHESION else None)
            for kind, m in allocations]
    natures = {row.id: kind.value for row, (kind, _) in zip(rows, allocations, strict=True)}
    lignes = _repartition(paiement, rows, produits, natures)
    note(f"lignes={lignes!r}")

    attendu: dict[str, Decimal] = defaultdict(Decimal)
    for kind, m in allocations:
        attendu[compte_produit(produits, kind)] += m
    if reste:
        attendu[compte_produit(produits, nature) if nature else "4191"] += reste
    assert {numero: montant for numero, montant, _ in lignes} == dict(attendu)
    assert len({numero for numero, _, _ in lignes}) == len(lignes)
    assert sum((montant for _, montant, _ in lignes), Decimal(0)) == paiement.montant
    assert all(montant > 0 and libelle for _, montant, libelle in lignes)
