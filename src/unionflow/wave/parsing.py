"""Reading a Wave statement: the CSV the Wave Business portal exports (English API names or French labels as
headers, ``,`` or ``;``, UTF-8 or Windows-1252) and the items of Wave's ``GET /v1/transactions``, into one shape.

Wave's fields (Balance & Reconciliation API): ``amount`` is the transaction's effect on the wallet, net of the fee
and signed (a payment received 2 500 with a fee of 25 reads ``amount=2475, fee=25``; a payout of 10 000 with a fee
of 100 reads ``amount=-10100, fee=100``), so the gross amount of our payment or payout is ``amount + fee``.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from unionflow.core.errors import RegleMetier
from unionflow.imports.parsing import cle, decoder

MAX_LIGNES = 50_000
# Accepted header spellings (compared without case, accents, spaces or punctuation) → Wave's field.
COLONNES: Mapping[str, str] = {
    "transactionid": "transaction_id", "idtransaction": "transaction_id", "identifiantdetransaction":
    "transaction_id", "identifiantdelatransaction": "transaction_id", "idwave": "transaction_id",
    "timestamp": "timestamp", "horodatage": "timestamp", "date": "timestamp", "dateetheure": "timestamp",
    "transactiontype": "transaction_type", "type": "transaction_type", "typedetransaction": "transaction_type",
    "amount": "amount", "montant": "amount", "montantnet": "amount",
    "fee": "fee", "frais": "fee",
    "balance": "balance", "solde": "balance", "soldeapres": "balance",
    "currency": "currency", "devise": "currency",
    "counterpartyname": "counterparty_name", "nomdelacontrepartie": "counterparty_name",
    "contrepartie": "counterparty_name", "nomcontrepartie": "counterparty_name",
    "counterpartymobile": "counterparty_mobile", "mobiledelacontrepartie": "counterparty_mobile",
    "numerodelacontrepartie": "counterparty_mobile", "telephonecontrepartie": "counterparty_mobile",
    "clientreference": "client_reference", "referenceclient": "client_reference",
    "checkoutapisessionid": "checkout_api_session_id", "identifiantdesessionapi": "checkout_api_session_id",
    "sessioncheckout": "checkout_api_session_id",
    "message": "message", "motif": "message", "paymentreason": "message", "note": "message",
    "isreversal": "is_reversal", "annulation": "is_reversal", "estuneannulation": "is_reversal",
}
OBLIGATOIRES = ("transaction_id", "timestamp", "amount")
VRAI = frozenset({"true", "1", "oui", "yes", "vrai", "x"})


@dataclass(frozen=True)
class LigneWave:
    transaction_id: str
    horodatage: datetime
    type_transaction: str | None
    montant: Decimal
    frais: Decimal
    solde: Decimal | None
    devise: str
    contrepartie_nom: str | None
    contrepartie_mobile: str | None
    client_reference: str | None
    session_checkout_id: str | None
    est_annulation: bool
    message: str | None = None  # what the sender typed with a transfer (may carry a dues' payment code)


def montant(value: Any, champ: str) -> Decimal:
    texte = str(value).replace("\u202f", "").replace("\xa0", "").replace(" ", "")
    texte = texte.upper().replace("XOF", "").replace("FCFA", "")
    if "," in texte and "." not in texte:
        texte = texte.replace(",", ".")
    try:
        result = Decimal(texte)
    except InvalidOperation as exc:
        raise RegleMetier(f"{champ}: montant illisible « {value} »") from exc
    if not result.is_finite():
        raise RegleMetier(f"{champ}: montant illisible « {value} »")
    return result


def horodatage(value: Any, champ: str) -> datetime:
    texte = str(value).strip()
    formats = ("%d/%m/%Y %H:%M:%S", "%d/%m/%Y %H:%M", "%d/%m/%Y", "%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M")
    try:
        parsed = datetime.fromisoformat(texte.replace("Z", "+00:00"))
    except ValueError:
        for fmt in formats:
            try:
                parsed = datetime.strptime(texte, fmt)
                break
            except ValueError:
                continue
        else:
            raise RegleMetier(f"{champ}: date illisible « {value} » (ISO 8601 ou JJ/MM/AAAA HH:MM)") from None
    return parsed.astimezone(UTC) if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _texte(value: Any, longueur: int) -> str | None:
    texte = str(value).strip() if value is not None else ""
    return texte[:longueur] or None


def ligne(fields: Mapping[str, Any], ou: str) -> LigneWave:
    """One transaction from Wave's field names (an API item, or a CSV row once its headers are mapped)."""
    transaction_id = _texte(fields.get("transaction_id"), 100)
    if transaction_id is None:
        raise RegleMetier(f"{ou}: transaction_id manquant")
    if not fields.get("timestamp") or fields.get("amount") in (None, ""):
        raise RegleMetier(f"{ou}: horodatage et montant obligatoires")
    frais = fields.get("fee")
    solde = fields.get("balance")
    reversal = fields.get("is_reversal")
    return LigneWave(
        transaction_id=transaction_id, horodatage=horodatage(fields["timestamp"], f"{ou}, horodatage"),
        type_transaction=_texte(fields.get("transaction_type"), 40),
        montant=montant(fields["amount"], f"{ou}, montant"),
        frais=montant(frais, f"{ou}, frais") if frais not in (None, "") else Decimal("0"),
        solde=montant(solde, f"{ou}, solde") if solde not in (None, "") else None,
        devise=(_texte(fields.get("currency"), 3) or "XOF").upper(),
        contrepartie_nom=_texte(fields.get("counterparty_name"), 200),
        contrepartie_mobile=_texte(fields.get("counterparty_mobile"), 30),
        client_reference=_texte(fields.get("client_reference"), 255),
        session_checkout_id=_texte(fields.get("checkout_api_session_id"), 100),
        message=_texte(fields.get("message") or fields.get("payment_reason"), 255),
        # A refund or reversal is its own line, even under the transaction id of the payment it undoes.
        est_annulation=(reversal is True or str(reversal).strip().lower() in VRAI
                        or str(fields.get("transaction_type") or "").endswith(("_refund", "_reversal"))))


def lire_csv(contenu: bytes) -> list[LigneWave]:
    """The statement's lines, in file order; 400 (règle métier) naming the line and the field that is wrong."""
    texte = decoder(contenu)
    premiere = texte.split("\n", 1)[0]
    rows = list(csv.reader(io.StringIO(texte), delimiter=";" if premiere.count(";") > premiere.count(",") else ","))
    if not rows:
        raise RegleMetier("Fichier vide: la première ligne porte les en-têtes du relevé Wave")
    champs = [COLONNES.get(cle(entete)) for entete in rows[0]]
    manquants = [c for c in OBLIGATOIRES if c not in champs]
    if manquants:
        raise RegleMetier(f"Colonnes obligatoires absentes: {', '.join(manquants)} (en-têtes du relevé Wave)")
    if len(rows) - 1 > MAX_LIGNES:
        raise RegleMetier(f"Relevé limité à {MAX_LIGNES} lignes: importez-le par période")
    lignes = []
    for numero, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        fields = {champ: cell for champ, cell in zip(champs, row, strict=False) if champ is not None}
        lignes.append(ligne(fields, f"ligne {numero}"))
    return lignes
