"""Property of the register's seal: whatever the chain, changing any one sealed field of any one line is detected
at that line, and an untouched chain always verifies."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from hypothesis import given, note, settings
from hypothesis import strategies as st

from unionflow.dons import scellement
from unionflow.models.don import FormeDon, LigneRegistreDon, TypeDonateur

ORG = uuid.UUID("00000000-0000-0000-0000-0000000000aa")
DEBUT = datetime(2026, 1, 1, tzinfo=UTC)
textes = st.text(min_size=1, max_size=20)
montants = st.decimals(min_value=Decimal("0.01"), max_value=Decimal("999999999"), places=2)


@st.composite
def ligne(draw: st.DrawFn, numero: int) -> LigneRegistreDon:
    return LigneRegistreDon(
        id=uuid.uuid4(), organisation_id=ORG, numero=numero,
        date_don=DEBUT + timedelta(minutes=draw(st.integers(0, 500_000))),
        type_donateur=draw(st.sampled_from(list(TypeDonateur))).value, donateur_nom=draw(st.none() | textes),
        donateur_telephone=draw(st.none() | textes), donateur_piece_identite=draw(st.none() | textes),
        donateur_rccm=draw(st.none() | textes), donateur_ninea=draw(st.none() | textes),
        membre_id=draw(st.none() | st.uuids()), montant=draw(montants), devise="XOF",
        forme=draw(st.sampled_from(list(FormeDon))).value, description_nature=draw(st.none() | textes),
        base_evaluation=draw(st.none() | textes), affectation=draw(st.none() | textes),
        fonds_id=draw(st.none() | st.uuids()), paiement_id=draw(st.none() | st.uuids()), reference=draw(textes),
        seuil_lcbft_atteint=draw(st.booleans()), enregistre_par=draw(textes))


@st.composite
def chaine(draw: st.DrawFn) -> list[LigneRegistreDon]:
    lignes = [draw(ligne(n)) for n in range(1, draw(st.integers(1, 6)) + 1)]
    precedent = scellement.GENESE
    for x in lignes:
        scellement.sceller(x, precedent)
        precedent = x.hash
    return lignes


def _autre(valeur: object, draw: st.DrawFn) -> object:
    """A different value of the same kind (None becomes a value, a value may become None)."""
    if isinstance(valeur, bool):
        return not valeur
    if isinstance(valeur, int):
        return valeur + draw(st.integers(1, 5))
    if isinstance(valeur, Decimal):
        return valeur + draw(st.sampled_from([Decimal("0.01"), Decimal("1"), Decimal("-0.01")]))
    if isinstance(valeur, datetime):
        return valeur + timedelta(microseconds=draw(st.integers(1, 10**9)))
    if isinstance(valeur, uuid.UUID):
        return draw(st.uuids().filter(lambda u: u != valeur))
    if valeur is None:
        return draw(textes)
    return draw(st.none() | textes.filter(lambda t: t != valeur))


@settings(max_examples=300, deadline=None)
@given(lignes=chaine(), data=st.data())
def test_any_single_field_change_of_any_line_is_detected(lignes, data):
    assert scellement.verifier(lignes).intact
    cible = data.draw(st.sampled_from(lignes))
    champ = data.draw(st.sampled_from(scellement.CHAMPS))
    avant = getattr(cible, champ)
    apres = _autre(avant, data.draw)
    if champ in ("membre_id", "fonds_id", "paiement_id") and avant is None:
        apres = data.draw(st.uuids())
    numero = cible.numero  # the line's place in the chain, even when its number is the field changed
    note(f"ligne {numero}, {champ}: {avant!r} -> {apres!r}")
    setattr(cible, champ, apres)
    v = scellement.verifier(lignes)
    assert not v.intact and v.premiere_ligne_rompue == numero, v


@settings(max_examples=100, deadline=None)
@given(lignes=chaine(), data=st.data())
def test_a_rewritten_hash_breaks_the_next_link(lignes, data):
    """Re-sealing an edited line is not enough: the next line still points at the old hash."""
    if len(lignes) < 2:
        return
    cible = data.draw(st.sampled_from(lignes[:-1]))
    cible.reference += "x"
    scellement.sceller(cible, cible.hash_precedent)
    v = scellement.verifier(lignes)
    assert not v.intact and v.premiere_ligne_rompue == cible.numero + 1, v
