"""Base models: camelCase on the wire, unknown input fields refused, strict JSON types for booleans and dates,
money as two-decimal strings (``Montant``), and update requests that say which fields may be cleared."""

from __future__ import annotations

import re
import types
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from enum import StrEnum
from typing import Annotated, Any, ClassVar, Union, get_args, get_origin

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    FutureDate,
    FutureDatetime,
    NaiveDatetime,
    PastDate,
    PastDatetime,
    PlainSerializer,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic.alias_generators import to_camel
from pydantic_core import PydanticCustomError

from unionflow.core import regles as regles_entre_champs
from unionflow.core.texte import SANS_CONTROLE, trimmed_length_pattern

# Leading zeros are harmless ("0002500.00" is 2500.00): the server reads them, so every pattern states them.
MONEY_PATTERN = r"^-?0*\d{1,16}(\.\d{1,2})?$"
_MONEY_RE = re.compile(MONEY_PATTERN)
# Every amount is below 10^16: the Numeric(18, 2) columns hold 16 digits before the point.
MONEY_BOUND = Decimal("1e16")
_CENT = Decimal("0.01")
# ISO 8601 calendar date at the start: a bare number ("0", 1700000000) is not a date on this API.
ISO_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}")


def regle_metier(message: str) -> PydanticCustomError:
    """Raised by a model validator for a cross-field rule JSON Schema cannot state (``dateFin`` before
    ``dateDebut``, one of two fields): answered 400 with the problem type ``regle-metier``
    (``core.errors.RegleMetier``), not ``invalid-input``, since each field matches the published schema. The rule
    is also written in the operation's description."""
    return PydanticCustomError("regle_metier", message)


def _parse_decimal(value: Any) -> Any:
    """Accept a JSON number or a decimal string; leave anything else to the Decimal validator's error."""
    if isinstance(value, bool):
        raise PydanticCustomError("decimal_type", "doit être un montant décimal, pas un booléen")
    if isinstance(value, str) and not _MONEY_RE.match(value.strip()):
        raise PydanticCustomError("decimal_parsing", "doit être un nombre décimal, au plus 16 chiffres avant la "
                                                     "virgule et deux décimales (ex. \"2500.00\")")
    if isinstance(value, int | float | str):
        try:
            parsed = Decimal(str(value).strip())
        except InvalidOperation:
            raise PydanticCustomError("decimal_parsing", "doit être un nombre décimal (ex. \"2500.00\")") from None
        if not parsed.is_finite():
            raise PydanticCustomError("decimal_parsing", "doit être un nombre décimal fini")
        # The bound first: quantizing 6.59e307 to the cent overflows the decimal context (InvalidOperation, a 500).
        if abs(parsed) >= MONEY_BOUND:
            raise PydanticCustomError("decimal_max_digits", "montant trop grand (au plus 16 chiffres avant la virgule)")
        if parsed != parsed.quantize(_CENT, rounding=ROUND_HALF_UP):
            raise PydanticCustomError("decimal_max_places", "au plus deux décimales")
        return parsed
    return value


def _two_decimals(value: Decimal | None) -> str | None:
    # None is a field's default (``Montant = Field(default=None)``): the JSON schema shows that default through
    # this serializer, which warned (PydanticJsonSchemaWarning) and left the default out.
    return None if value is None else str(value.quantize(_CENT, rounding=ROUND_HALF_UP))


# Patterns for the bounds money fields declare (``ge=0``, ``gt=0``): a string schema cannot carry ``minimum``.
# Exactly what the parser takes within the bound: "-0" is zero, hence not negative.
_NON_NEGATIVE = r"^(0*\d{1,16}(\.\d{1,2})?|-0+(\.0{1,2})?)$"
POSITIVE_MONEY_PATTERN = r"^(0*[1-9]\d{0,15}(\.\d{1,2})?|0+\.(0[1-9]|[1-9]\d?))$"


NUMBER_NOTE = ("En entrée: une chaîne décimale ou un nombre JSON (deux décimales au plus, lu sans passer par un "
               "flottant), en valeur absolue moins de 10^16 (16 chiffres avant la virgule, colonnes Numeric(18, 2)); "
               "en sortie toujours une chaîne.")


class _DecimalString:
    """JSON schema of a two-decimal string, with the field's lower bound turned into the pattern."""

    def __init__(self, description: str, pattern: str | None = None) -> None:
        self.description = description
        self.pattern = pattern

    def __get_pydantic_json_schema__(self, core_schema: Any, handler: Any) -> dict[str, Any]:
        bounds = core_schema
        while bounds.get("type") != "decimal" and "schema" in bounds:
            bounds = bounds["schema"]
        pattern = self.pattern or money_pattern(bounds)
        string = {"type": "string", "format": "decimal", "pattern": pattern}
        if handler.mode == "serialization":  # answers always carry the string
            return {**string, "examples": ["2500.00"], "description": self.description}
        return {"oneOf": money_branches(pattern), "examples": ["2500.00"],
                "description": f"{self.description} {NUMBER_NOTE}"}


def money_branches(pattern: str) -> list[dict[str, Any]]:
    """What an input money field accepts: the decimal string of ``pattern``, or a JSON number (finding
    10: clients written against the spec, whose amounts are numbers, send them) within the same bounds."""
    number: dict[str, Any] = {"type": "number", "multipleOf": 0.01, "exclusiveMaximum": float(MONEY_BOUND)}
    if pattern == POSITIVE_MONEY_PATTERN:
        number["exclusiveMinimum"] = 0
    elif pattern == _NON_NEGATIVE:
        number["minimum"] = 0
    else:
        number["exclusiveMinimum"] = -float(MONEY_BOUND)
    return [{"type": "string", "format": "decimal", "pattern": pattern}, number]


def money_pattern(bounds: dict[str, Any]) -> str:
    # The patterns state 16 digits before the point (the Numeric(18, 2) columns): another max_digits would be a
    # bound the schema does not say (fuzz finding on an event's price), so it is refused when the schema is built.
    if bounds.get("max_digits") is not None and \
            int(bounds["max_digits"]) - int(bounds.get("decimal_places") or 0) != 16:
        raise ValueError(f"money bound max_digits={bounds['max_digits']} is not what the pattern states (18, 2)")
    if bounds.get("gt") is not None and Decimal(str(bounds["gt"])) == 0:
        return POSITIVE_MONEY_PATTERN
    if bounds.get("ge") is not None and Decimal(str(bounds["ge"])) == 0:
        return _NON_NEGATIVE
    return MONEY_PATTERN


def _positive(value: Decimal) -> Decimal:
    if value <= 0:
        raise PydanticCustomError("greater_than", "doit être supérieur à 0", {"gt": 0})
    return value


def _decimal_string(description: str, positive: bool = False) -> Any:
    return Annotated[
        Decimal,
        BeforeValidator(_parse_decimal),
        *([AfterValidator(_positive)] if positive else []),
        PlainSerializer(_two_decimals, return_type=str, when_used="json"),
        _DecimalString(description, POSITIVE_MONEY_PATTERN if positive else None),
    ]


# Every money field on the wire: always "2500.00" on output; on input a decimal string or a JSON number
# (clients written against the first API send numbers), at most two decimals.
Montant = _decimal_string("Montant décimal, deux décimales, en chaîne (ex. \"2500.00\").")
# For parameters, where a bound on ``Montant`` cannot reach the schema's pattern.
MontantPositif = _decimal_string("Montant strictement positif, deux décimales au plus (ex. \"2500.00\")",
                                 positive=True)
# Rates and averages share the wire format of money so clients parse every decimal the same way.
Taux = _decimal_string("Valeur décimale à deux décimales, en chaîne (ex. \"87.50\")")


class EtatSante(StrEnum):
    """Health of the service or of one of its dependencies (status and connectivity probes)."""

    UP = "UP"
    DEGRADED = "DEGRADED"
    DOWN = "DOWN"


class OutputModel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, from_attributes=True)


_DATETIME_ALIASES = (AwareDatetime, NaiveDatetime, FutureDatetime, PastDatetime)
_DATE_ALIASES = (FutureDate, PastDate)


def scalar_kinds(annotation: Any) -> set[type]:
    """The plain types a field accepts, through Optional/Union/Annotated (containers are not looked into)."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return scalar_kinds(get_args(annotation)[0])
    if origin is Union or origin is types.UnionType:
        return set().union(*(scalar_kinds(arg) for arg in get_args(annotation)))
    if annotation in _DATETIME_ALIASES:
        return {datetime}
    if annotation in _DATE_ALIASES:
        return {date}
    return {annotation} if isinstance(annotation, type) else set()


# Input strings are trimmed (``str_strip_whitespace``: Python's ``str.strip``, every Unicode space, no-break space
# included) before their length and pattern are checked: "SN " is "SN", "ab\u00a0" is "ab" (too short for
# minLength 3). JSON Schema cannot say so; each constrained string states it (finding 9).
TRIM_NOTE = "Espaces de début et de fin (insécables compris) retirés avant validation et enregistrement."
TRIM_EXTENSION = "x-trimmed"


_TEXT_CONSTRAINTS = frozenset({"minLength", "maxLength", "pattern", "format"})


def _state_dictionary_controls(branches: list[dict[str, Any]]) -> None:
    # A JSON object of free keys (dict[str, ...]): its keys and text values refuse control characters too
    # (core.routing._control_location), stated like every other text's.
    for branch in branches:
        values = branch.get("additionalProperties")
        if branch.get("type") != "object" or not isinstance(values, dict):
            continue
        branch.setdefault("propertyNames", {"pattern": SANS_CONTROLE})
        if values.get("type") == "string" and not {"pattern", "format", "enum", "const"} & values.keys():
            values["pattern"] = SANS_CONTROLE


def _state_trimming(target: dict[str, Any]) -> None:
    for prop in target.get("properties", {}).values():
        branches = prop.get("anyOf", [prop])
        _state_dictionary_controls(branches)
        if prop.get("format") == "decimal" or any(b.get("format") == "decimal" for b in branches):
            continue  # money: its own parser and description (_parse_decimal)
        constrained = any(b.get("type") == "string" and _TEXT_CONSTRAINTS & b.keys() for b in branches)
        texts = [b.get("items", b) if b.get("type") == "array" else b for b in branches]
        for branch in texts:
            # Control characters are refused in every text (400 `caractere-controle`): a string without a pattern
            # of its own says so, with its trimmed minimum if it has one.
            if branch.get("type") == "string" and not {"pattern", "format", "enum", "const"} & branch.keys():
                minimum = int(branch.get("minLength", 0))
                branch["pattern"] = trimmed_length_pattern(minimum) if minimum > 0 else SANS_CONTROLE
                constrained = True
        if not constrained:
            continue
        prop[TRIM_EXTENSION] = True
        description = prop.get("description", "")
        if TRIM_NOTE not in description:
            separator = "" if not description else " " if description.endswith(".") else ". "
            prop["description"] = f"{description}{separator}{TRIM_NOTE}"


class InputModel(BaseModel):
    """Client input. Server-managed fields (status, numbers, paid amounts, approver, timestamps) are
    simply absent from input models, and ``extra='forbid'`` turns any attempt to send them into 400.

    JSON has real booleans, numbers and ISO dates: ``"actif": 0``, ``"ordre": false``, ``"ordre": "3"`` or
    ``"dateFin": 0`` are refused rather than read as false, 0, 3 or 1970-01-01 (pydantic's lax mode accepts
    them all)."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", str_strip_whitespace=True
    )
    # Cross-field rules (core.regles): checked here and stated in the model's JSON Schema, from one declaration.
    regles: ClassVar[tuple[regles_entre_champs.Regle, ...]] = ()

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema: Any, handler: Any) -> dict[str, Any]:
        schema: dict[str, Any] = handler(core_schema)
        target = handler.resolve_ref_schema(schema)
        _state_trimming(target)
        regles_entre_champs.state(cls, cls.regles, target)
        return schema

    @model_validator(mode="after")
    def _regles_entre_champs(self) -> Any:
        if (message := regles_entre_champs.violee(self, type(self).regles)) is not None:
            raise regle_metier(message)
        return self

    @field_validator("*", mode="before")
    @classmethod
    def _strict_json_types(cls, value: Any, info: ValidationInfo) -> Any:
        if value is None or info.field_name is None:
            return value
        field = cls.model_fields.get(info.field_name)
        if field is None:
            return value
        kinds = scalar_kinds(field.annotation)
        if bool in kinds and not isinstance(value, bool) and kinds & {bool, str} == {bool}:
            raise PydanticCustomError("bool_type", "doit être un booléen JSON (true ou false)")
        if kinds & {int, float} and not kinds & {bool, str, Decimal} and isinstance(value, bool | str):
            raise PydanticCustomError("int_type" if float not in kinds else "float_type", "doit être un nombre JSON")
        iso = isinstance(value, date | datetime) or (isinstance(value, str) and ISO_DATE_RE.match(value))
        if kinds & {date, datetime} and not kinds - {date, datetime, type(None)} and not iso:
            raise PydanticCustomError("date_type", "doit être une date ISO 8601 en chaîne (AAAA-MM-JJ)")
        return value


class UpdateModel(InputModel):
    """Partial update: a field left out keeps its value. ``null`` clears a field only where the record may be
    empty (``nullable_fields``); elsewhere it is refused with 400 instead of reaching a NOT NULL column, and
    the OpenAPI schema drops ``null`` from those fields."""

    nullable_fields: ClassVar[frozenset[str]] = frozenset()

    @field_validator("*", mode="after")
    @classmethod
    def _null_only_where_clearable(cls, value: Any, info: ValidationInfo) -> Any:
        if value is None and info.field_name not in cls.nullable_fields:
            raise PydanticCustomError("null_refuse", "ne peut pas être null (omettre le champ pour le garder)")
        return value

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema: Any, handler: Any) -> dict[str, Any]:
        schema: dict[str, Any] = super().__get_pydantic_json_schema__(core_schema, handler)
        target = handler.resolve_ref_schema(schema)
        for name, field in cls.model_fields.items():
            if name in cls.nullable_fields:
                continue
            prop = target.get("properties", {}).get(field.alias or name)
            if not prop or "anyOf" not in prop:
                continue
            branches = [b for b in prop["anyOf"] if b.get("type") != "null"]
            if len(branches) == 1:
                del prop["anyOf"]
                prop.update(branches[0])
            else:
                prop["anyOf"] = branches
            if prop.get("default", 0) is None:
                del prop["default"]
        return schema
