"""System settings by key: built-in typed defaults, overridden by stored entries.

Only the keys defined here exist: each is read by the code named in its description, typed, bounded (whole
numbers refuse fractions, amounts take at most two decimals), so readers (LCB-FT thresholds, dues due day,
currency of new organisations, approval thresholds) can trust what they get and no setting is without effect.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from pydantic import JsonValue
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.configuration.repository import ConfigurationEntryRepository
from unionflow.configuration.schemas import CLE_PATTERN, ConfigurationResponse, UpdateConfigurationRequest
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import InvalidInput, NotFound, RegleMetier
from unionflow.core.permissions import Permission
from unionflow.models import ConfigurationEntry
from unionflow.models.configuration import TypeValeur

MODULE = "CONFIGURATION"
MAX_TEXT = 10_000


@dataclass(frozen=True)
class Definition:
    type: TypeValeur
    defaut: JsonValue
    description: str
    minimum: Decimal | None = None
    maximum: Decimal | None = None
    pattern: str | None = None
    # NUMBER only: 0 for counts and days, 2 for amounts.
    decimales: int | None = None
    # an organisation may hold its own value (``valeur_organisation``).
    par_organisation: bool = False


# The periodic dues types that may have a scale amount (an exceptional or solidarity call is set each time).
BAREME = ("MENSUELLE", "TRIMESTRIELLE", "SEMESTRIELLE", "ANNUELLE")


def _montant(defaut: int, description: str) -> Definition:
    return Definition(TypeValeur.NUMBER, defaut, description, Decimal(0), Decimal("9999999999999999.99"),
                      decimales=2)


DEFAUTS: dict[str, Definition] = {
    "devise.defaut": Definition(TypeValeur.STRING, "XOF", "Devise (ISO 4217) d'une organisation créée sans devise",
                                pattern=r"^[A-Z]{3}$"),
    "cotisation.jour_echeance": Definition(
        TypeValeur.NUMBER, 5, "Jour du mois de l'échéance d'une cotisation créée ou générée sans dateEcheance",
        Decimal(1), Decimal(28), decimales=0),
    "lcbft.seuil_declaration": _montant(5_000_000, "LCB-FT: montant d'une opération unique déclenchant une "
                                                   "alerte (XOF)"),
    "lcbft.seuil_cumul": _montant(10_000_000, "LCB-FT: montant cumulé d'un membre sur la période déclenchant une "
                                              "alerte (XOF)"),
    "lcbft.periode_cumul_jours": Definition(TypeValeur.NUMBER, 30, "LCB-FT: période du cumul, en jours",
                                            Decimal(1), Decimal(366), decimales=0),
    "lcbft.seuil_especes": _montant(1_000_000, "LCB-FT: montant d'un versement en espèces déclenchant une "
                                               "alerte (XOF)"),
    # Finance - Approvals (docs/finance.md).
    "finance.approbation.seuil_versement": _montant(
        500_000, "Approbations: montant à partir duquel un versement doit être approuvé avant sa confirmation "
        "(XOF)"),
    "finance.approbation.seuil_double": _montant(
        2_000_000, "Approbations: montant à partir duquel deux approbateurs distincts sont requis (XOF)"),
    "finance.approbation.seuil_annulation": _montant(
        500_000, "Annulations: montant à partir duquel l'annulation, le remboursement ou la contrepassation doit "
        "d'abord être approuvé par le circuit d'approbation de l'organisation (XOF)"),
    # Monthly closing (docs/comptabilite-lcbft.md).
    # Members' credit (docs/adhesions-cotisations.md "Avoir"): per organisation.
    "cotisations.avoir.imputation_automatique": Definition(
        TypeValeur.BOOLEAN, False, "Avoir: imputé automatiquement sur les cotisations échues (à leur génération et "
        "chaque jour), les plus anciennes d'abord; sinon par la trésorerie seulement", par_organisation=True),
    # Dues scale (docs/decisions.md, "Barème des cotisations"): an organisation's amount per member for each
    # periodic type, offered by the generation form; 0 = not set.
    **{f"cotisations.bareme.{periode.lower()}": Definition(
        TypeValeur.NUMBER, 0, f"Barème: montant d'une cotisation {periode.lower()} par membre, proposé à la "
        "génération (0 = pas de barème)", Decimal(0), Decimal("9999999999999999.99"), decimales=2,
        par_organisation=True) for periode in BAREME},
    # SYCEBNL système minimal de trésorerie (docs/decisions.md "Référentiel comptable et SMT"): the act's
    # thresholds were not read (docs/conformite.md S6); these are settings, their defaults a prudent placeholder.
    "comptabilite.smt.seuil_ressources": _montant(
        30_000_000, "SMT (NON VÉRIFIÉ, à confirmer sur le texte SYCEBNL): total des ressources annuelles (classe 7) "
        "au-delà duquel le système minimal de trésorerie n'est pas ouvert (XOF); défaut 30 000 000, le plus bas "
        "des seuils de l'AUDCIF art. 13 (services), faute du texte"),
    **{f"comptabilite.smt.seuil_{categorie}": _montant(
        0, f"SMT (NON VÉRIFIÉ): seuil propre aux ressources « {categorie} » de l'exercice (XOF); 0 = pas de seuil "
        "propre") for categorie in ("cotisations", "dons", "subventions", "autres")},
    "comptabilite.cloture.delai_declarations_jours": Definition(
        TypeValeur.NUMBER, 7, "Clôture mensuelle: un paiement déclaré (en attente) depuis plus de ce nombre de jours "
        "empêche la clôture du mois", Decimal(0), Decimal(90), decimales=0),
}


def _number(value: JsonValue) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise RegleMetier("valeur: un nombre est attendu")
    try:
        number = Decimal(str(value).strip())
    except InvalidOperation as exc:
        raise RegleMetier("valeur: un nombre est attendu") from exc
    if not number.is_finite():
        raise RegleMetier("valeur: un nombre fini est attendu")
    return number


def encode(type_valeur: TypeValeur, value: JsonValue, definition: Definition | None = None) -> str:
    """Validate ``value`` against the key's type (and built-in bounds) and give its stored text."""
    if value is None:
        raise RegleMetier("valeur: obligatoire")
    if type_valeur is TypeValeur.STRING:
        if not isinstance(value, str):
            raise RegleMetier("valeur: une chaîne est attendue")
        if definition and definition.pattern and not re.fullmatch(definition.pattern, value):
            raise RegleMetier(f"valeur: format attendu {definition.pattern}")
        text = value
    elif type_valeur is TypeValeur.NUMBER:
        number = _number(value)
        if definition and definition.minimum is not None and number < definition.minimum:
            raise RegleMetier(f"valeur: minimum {definition.minimum}")
        if definition and definition.maximum is not None and number > definition.maximum:
            raise RegleMetier(f"valeur: maximum {definition.maximum}")
        if definition and definition.decimales is not None and number != round(number, definition.decimales):
            raise RegleMetier("valeur: un nombre entier est attendu" if definition.decimales == 0
                               else f"valeur: {definition.decimales} décimales au plus")
        text = format(number.normalize(), "f")
    elif type_valeur is TypeValeur.BOOLEAN:
        if isinstance(value, str) and value.lower() in {"true", "false"}:
            value = value.lower() == "true"
        if not isinstance(value, bool):
            raise RegleMetier("valeur: un booléen est attendu")
        text = "true" if value else "false"
    else:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if len(text) > MAX_TEXT:
        raise RegleMetier(f"valeur: {MAX_TEXT} caractères au plus")
    return text


def decode(type_valeur: TypeValeur, text: str) -> JsonValue:
    if type_valeur is TypeValeur.NUMBER:
        number = Decimal(text)
        return int(number) if number == number.to_integral_value() else float(number)
    if type_valeur is TypeValeur.BOOLEAN:
        return text == "true"
    if type_valeur is TypeValeur.JSON:
        decoded: JsonValue = json.loads(text)
        return decoded
    return text


def _definition(cle: str) -> Definition:
    definition = DEFAUTS.get(cle)
    if definition is None:
        raise NotFound(f"Clé de configuration inconnue: {cle} (clés: {', '.join(sorted(DEFAUTS))})")
    return definition


def _response(cle: str, entry: ConfigurationEntry | None) -> ConfigurationResponse:
    definition = _definition(cle)
    if entry is None:
        return ConfigurationResponse(cle=cle, valeur=definition.defaut, type=definition.type,
                                     description=definition.description, par_defaut=True)
    type_valeur = TypeValeur(entry.type_valeur)
    return ConfigurationResponse(cle=cle, valeur=decode(type_valeur, entry.valeur), type=type_valeur,
                                 description=entry.description, par_defaut=False, modifie_par=entry.modifie_par,
                                 date_modification=entry.updated_at)


async def _entry(session: AsyncSession, cle: str, *, for_update: bool = False) -> ConfigurationEntry | None:
    return await ConfigurationEntryRepository(session).get_by_cle(cle, for_update=for_update)


async def valeurs(session: AsyncSession, *cles: str) -> dict[str, Any]:
    """Several settings in one query (hot paths: every payment reads the LCB-FT thresholds)."""
    stored = await ConfigurationEntryRepository(session).by_cles(cles)
    result: dict[str, Any] = {}
    for cle in cles:
        definition = _definition(cle)
        result[cle] = decode(TypeValeur(stored[cle].type_valeur), stored[cle].valeur) if cle in stored \
            else definition.defaut
    return result


async def valeur(session: AsyncSession, cle: str) -> Any:
    """The effective value of a setting, typed (for other areas: thresholds, defaults)."""
    return (await valeurs(session, cle))[cle]


class ConfigurationService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth

    async def lister(self) -> list[ConfigurationResponse]:
        entries = await ConfigurationEntryRepository(self.session).by_cles(DEFAUTS)
        return [_response(cle, entries.get(cle)) for cle in sorted(DEFAUTS)]

    async def obtenir(self, cle: str) -> ConfigurationResponse:
        _definition(cle)
        return _response(cle, await _entry(self.session, cle))

    async def definir(self, cle: str, data: UpdateConfigurationRequest) -> ConfigurationResponse:
        self.auth.require(Permission.CONFIGURATION_GERER, None,
                          "Seuls les administrateurs de l'union modifient la configuration")
        if len(cle) > 100 or not re.fullmatch(CLE_PATTERN, cle):
            raise InvalidInput("cle: minuscules, chiffres et _ en segments séparés par des points (100 max.)")
        definition = _definition(cle)
        entry = await _entry(self.session, cle, for_update=True)
        type_valeur = definition.type
        if data.type is not None and data.type is not type_valeur:
            raise RegleMetier(f"type: la clé {cle} est de type {type_valeur.value}, il ne change pas")
        text = encode(type_valeur, data.valeur, definition)
        before = _response(cle, entry).model_dump(mode="json", by_alias=True)
        if entry is None:
            entry = ConfigurationEntry(cle=cle, type_valeur=type_valeur.value, valeur=text,
                                       description=data.description or definition.description,
                                       modifie_par=self.auth.actor_name)
            self.session.add(entry)
        else:
            entry.valeur = text
            if data.description is not None:
                entry.description = data.description
            entry.modifie_par = self.auth.actor_name
        await self.session.flush()
        response = _response(cle, entry)
        await audit.record(self.session, self.auth, action="MODIFIER", module=MODULE,
                           entite_type="Configuration", entite_id=cle, severite="WARNING",
                           before=before, after=response.model_dump(mode="json", by_alias=True),
                           description=f"Configuration {cle}")
        return response
