"""Texts of a dues reminder: one SMS — the number of dues, the total as "2 500 FCFA" and a
short link to the member's page — and the details (each dues, its due date, what remains) for e-mail and the
in-app inbox."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from decimal import Decimal

from unionflow.core import code_paiement
from unionflow.core.libelles import STATUT_COTISATION, libelle
from unionflow.core.montants import format_montant, montant_texte
from unionflow.cotisations.repository import statut_effectif
from unionflow.cotisations.service import restant
from unionflow.models import Cotisation
from unionflow.notifications.gsm import tient_en_un_sms

LIEN_MEMBRE = "/console/moi"  # the member's page: his dues, what he owes and how to pay


def montant_sms(value: Decimal, devise: str) -> str:
    # The formatter of receipts and statements; its no-break spaces are not in GSM-7, plain spaces are.
    return montant_texte(value, devise)


def _cotisations(nombre: int) -> str:
    return f"{nombre} cotisation{'s' if nombre > 1 else ''} à régler"


def texte_sms(nombre: int, total: Decimal, devise: str, lien: str, code: str | None = None) -> str:
    """The dues reminder as members without e-mail receive it, built here only. At most 160 GSM-7 characters, one
    segment: the first wording that fits. ``code``: the payment code of the one dues reminded (anyone may pay it
    with it, a relative abroad by Wave), kept before the link; several dues have several codes, which the link
    and the member's screens show."""
    debut = f"Rappel: {_cotisations(nombre)}, {montant_sms(total, devise)} au total."
    avec_code = [f"{debut} {code_paiement.mention(code)}."] if code else []
    # The code comes before the link: it is what lets anyone pay; the link only shows the details.
    formes = [f"{d} Détails et paiement: {lien}" for d in avec_code] + [f"{d} {lien}" for d in avec_code] + \
        avec_code + [f"{debut} Détails et paiement: {lien}", f"{debut} Détails: {lien}", f"{debut} {lien}",
                     f"{debut} Détails dans l'application."]
    for texte in formes:
        if tient_en_un_sms(texte):
            return texte
    return f"Rappel: {_cotisations(nombre)}."[:160]


def texte_detaille(prenom: str, nom: str, dues: Sequence[Cotisation], total: Decimal, devise: str, today: date,
                   lien: str) -> str:
    lignes = "\n".join(
        f"- {c.numero_reference} ({c.libelle or c.type_cotisation}): échéance {c.date_echeance:%d/%m/%Y}, reste "
        f"{format_montant(restant(c.statut, c.montant_du, c.montant_paye or Decimal(0)), c.devise)}, "
        f"{(libelle(STATUT_COTISATION, statut_effectif(c.statut, c.date_echeance, today)) or '').lower()}"
        + (f"; {code_paiement.mention(c.code_paiement)}" if c.code_paiement else "")
        for c in dues)
    return (f"Bonjour {prenom} {nom},\n{_cotisations(len(dues)).capitalize()} pour un total de "
            f"{format_montant(total, devise)}:\n{lignes}\nDétails et paiement: {lien}")
