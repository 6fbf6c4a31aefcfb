"""Cross-field rules of a request, declared once (``regles`` on an ``InputModel``): the model checks them (400
``regle-metier`` with the rule's French message) and its JSON Schema states them (``oneOf``, ``if``/``then``), so
that what the schema calls valid is what the server accepts. A rule JSON Schema cannot state (dates in order,
a reference-table code, the record's state) stays a validator or a service check, written in the operation's
description.

A field is *given* when it is present and not null, not ``false`` (a flag), not an empty list and not a blank text
once trimmed; the schema says the same: ``{"not": {"type": "null"}}``, ``{"const": true}``, ``{"minItems": 1}``,
a trimmed-length pattern."""

from __future__ import annotations

import re
import types
from dataclasses import dataclass
from enum import Enum
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from unionflow.core.texte import trimmed_length_pattern

# Conditions of ``Si`` besides a value: the field is given, or it is not.
DONNE = "<donné>"
ABSENT = "<absent>"


@dataclass(frozen=True)
class UnSeul:
    """Exactly one of ``champs`` is given (``facultatif``: at most one)."""

    champs: tuple[str, ...]
    message: str
    facultatif: bool = False


@dataclass(frozen=True)
class Si:
    """When ``champ`` has ``valeur`` (or is ``DONNE``/``ABSENT``), the ``requis`` fields are given (matching
    ``forme``, a pattern both Python and ECMA-262 read alike, when there is one), the ``exclus`` ones are not, each
    ``fixes`` field has its value (left out, its default must be that value), each ``entiers`` amount is whole and
    at least one of ``un_de`` is given."""

    champ: str
    valeur: Any
    message: str
    requis: tuple[str, ...] = ()
    exclus: tuple[str, ...] = ()
    forme: str | None = None
    # When the required field is given but not of ``forme``: this message, ``{valeur}`` replaced by the value.
    message_forme: str | None = None
    fixes: tuple[tuple[str, Any], ...] = ()
    entiers: tuple[str, ...] = ()
    un_de: tuple[str, ...] = ()


@dataclass(frozen=True)
class UneFois:
    """In the list ``champ``, no two items share the same ``cle`` (a field of an enum type of the items)."""

    champ: str
    cle: str
    message: str


Regle = UnSeul | Si | UneFois


def donne(value: Any) -> bool:
    return value is not None and value is not False and value != [] and value != ""


def _holds(regle: Regle, model: BaseModel) -> bool:
    value = {name: getattr(model, name) for name in type(model).model_fields}
    if isinstance(regle, UneFois):
        keys = [getattr(item, regle.cle) for item in value[regle.champ] or []]
        return len(set(keys)) == len(keys)
    if isinstance(regle, UnSeul):
        count = sum(donne(value[c]) for c in regle.champs)
        return count == 1 or (regle.facultatif and count == 0)
    if regle.valeur in (DONNE, ABSENT):
        applies = donne(value[regle.champ]) == (regle.valeur == DONNE)
    else:
        applies = value[regle.champ] == regle.valeur
    return not applies or (all(donne(value[r]) and (regle.forme is None or re.search(regle.forme, value[r]))
                               for r in regle.requis)
                           and not any(donne(value[e]) for e in regle.exclus)
                           and all(value[f] == v for f, v in regle.fixes)
                           and all(value[e] is None or value[e] == value[e].to_integral_value()
                                   for e in regle.entiers)
                           and (not regle.un_de or any(donne(value[u]) for u in regle.un_de)))


def violee(model: BaseModel, regles: tuple[Regle, ...]) -> str | None:
    """The message of the first rule ``model`` breaks, None when it keeps them all."""
    regle = next((r for r in regles if not _holds(r, model)), None)
    if regle is None:
        return None
    if isinstance(regle, Si) and regle.message_forme is not None:
        given = [getattr(model, r) for r in regle.requis if donne(getattr(model, r))]
        if given:
            return regle.message_forme.format(valeur=given[0])
    return regle.message


def _kinds(annotation: Any) -> set[Any]:
    origin = get_origin(annotation)
    if origin is Union or origin is types.UnionType:
        return set().union(*(_kinds(arg) for arg in get_args(annotation)))
    return {origin or annotation}


def _given(field: FieldInfo) -> dict[str, Any]:
    kinds = _kinds(field.annotation)
    if bool in kinds:
        return {"const": True}
    if list in kinds:  # no "type": the property's own schema says array (and linters want its items beside it)
        return {"not": {"type": "null"}, "minItems": 1}
    if str in kinds:  # trimmed first: "  " is an empty text
        return {"type": "string", "pattern": trimmed_length_pattern(1)}
    return {"not": {"type": "null"}}


def _absent(field: FieldInfo) -> dict[str, Any]:
    kinds = _kinds(field.annotation)
    if bool in kinds:
        return {"const": False}
    if list in kinds:
        return {"anyOf": [{"type": "null"}, {"maxItems": 0}]}
    return {"type": "null"}


def _alias(model: type[BaseModel], name: str) -> str:
    return model.model_fields[name].alias or name


def _given_schema(model: type[BaseModel], name: str, forme: str | None = None) -> dict[str, Any]:
    alias = _alias(model, name)
    given = _given(model.model_fields[name])
    return {"required": [alias], "properties": {alias: {**given, "pattern": forme} if forme else given}}


def _absent_schema(model: type[BaseModel], name: str) -> dict[str, Any]:
    # ``properties`` binds only a present field: absent or null/false/empty both match.
    return {"properties": {_alias(model, name): _absent(model.model_fields[name])}}


def _condition(model: type[BaseModel], regle: Si) -> dict[str, Any]:
    if regle.valeur == DONNE:
        return _given_schema(model, regle.champ)
    if regle.valeur == ABSENT:
        return _absent_schema(model, regle.champ)
    value = regle.valeur.value if isinstance(regle.valeur, Enum) else regle.valeur
    field = model.model_fields[regle.champ]
    condition: dict[str, Any] = {"properties": {_alias(model, regle.champ): {"const": value}}}
    # Left out, the field takes its default: the rule applies to an absent field when the default is the value.
    if field.is_required() or field.get_default(call_default_factory=True) != regle.valeur:
        condition["required"] = [_alias(model, regle.champ)]
    return condition


def _une_fois(model: type[BaseModel], regle: UneFois) -> dict[str, Any]:
    # One "at most one item with this key" per value of the key's enum (JSON Schema 2020-12 maxContains).
    item = next(k for k in _item_kinds(model.model_fields[regle.champ].annotation)
                if isinstance(k, type) and issubclass(k, BaseModel))
    field = item.model_fields[regle.cle]
    enum = next(k for k in _kinds(field.annotation) if isinstance(k, type) and issubclass(k, Enum))
    key, alias = field.alias or regle.cle, _alias(model, regle.champ)
    # As if/then ("when the list is given"): client generators merge an allOf entry's properties into the model's.
    once = [{"contains": {"required": [key], "properties": {key: {"const": member.value}}}, "minContains": 0,
             "maxContains": 1} for member in enum]
    return {"description": regle.message, "if": {"required": [alias], "properties": {alias: {"not": {"type": "null"}}}},
            "then": {"properties": {alias: {"allOf": once}}}}


def _item_kinds(annotation: Any) -> set[Any]:
    return set().union(*(set(get_args(a)) for a in _annotations(annotation)))


def _annotations(annotation: Any) -> list[Any]:
    origin = get_origin(annotation)
    if origin is Union or origin is types.UnionType:
        return [a for arg in get_args(annotation) for a in _annotations(arg)]
    return [annotation]


def schema(model: type[BaseModel], regle: Regle) -> dict[str, Any]:
    """The rule in JSON Schema, with its message as description."""
    if isinstance(regle, UneFois):
        return _une_fois(model, regle)
    if isinstance(regle, UnSeul):
        branches = [_given_schema(model, c) for c in regle.champs]
        if regle.facultatif:
            branches.append({"allOf": [_absent_schema(model, c) for c in regle.champs]})
        return {"description": regle.message, "oneOf": branches}
    parts = [*(_given_schema(model, r, regle.forme) for r in regle.requis),
             *(_absent_schema(model, e) for e in regle.exclus),
             *({"properties": {_alias(model, f): {"const": v.value if isinstance(v, Enum) else v}}}
               for f, v in regle.fixes),
             *({"properties": {_alias(model, e): ENTIER}} for e in regle.entiers),
             *([{"anyOf": [_given_schema(model, u) for u in regle.un_de]}] if regle.un_de else [])]
    then = parts[0] if len(parts) == 1 else {"allOf": parts}
    return {"description": regle.message, "if": _condition(model, regle), "then": then}


# A whole amount, as the money fields take it (core.schemas.money_branches): a decimal string without cents, or
# a JSON number that is a multiple of 1.
ENTIER = {"anyOf": [{"type": "string", "pattern": r"^-?0*\d{1,16}(\.0{1,2})?$"}, {"type": "number", "multipleOf": 1},
                    {"type": "null"}]}


REGLES_NOTE = "Règles entre champs (sinon 400 `regle-metier`):"


def state(model: type[BaseModel], regles: tuple[Regle, ...], target: dict[str, Any]) -> None:
    """Write ``regles`` into the model's JSON Schema ``target``: one ``allOf`` entry each, and the list in the
    description."""
    if not regles:
        return
    target.setdefault("allOf", []).extend(schema(model, r) for r in regles)
    listed = " ".join(f"{r.message}." if not r.message.endswith(".") else r.message for r in regles)
    description = target.get("description", "")
    target["description"] = f"{description}\n\n{REGLES_NOTE} {listed}".strip()


# A form body has no InputModel to declare its rules on: the route states them in its ``openapi_extra`` under this
# key (``requis_si``), and the OpenAPI moves them into the form's schema (``state_form_rules``).
FORM_RULES = "x-regles-formulaire"


def requis_si(champ: str, valeur: str, requis: tuple[str, ...], message: str) -> dict[str, Any]:
    """A form rule: when ``champ`` is ``valeur``, the ``requis`` fields are given (an empty form field is absent)."""
    return {"description": message, "if": {"required": [champ], "properties": {champ: {"const": valeur}}},
            "then": {"required": list(requis), "properties": {r: {"type": "string", "minLength": 1} for r in requis}}}


def state_form_rules(op: dict[str, Any], schemas: dict[str, Any]) -> None:
    """Move an operation's form rules (``FORM_RULES``) into its form body's schema, listed in its description."""
    regles = op.pop(FORM_RULES, None)
    if not regles:
        return
    for content in op.get("requestBody", {}).get("content", {}).values():
        ref = content.get("schema", {}).get("$ref", "")
        if ref.startswith("#/components/schemas/"):
            target = schemas[ref.rsplit("/", 1)[1]]
            target.setdefault("allOf", []).extend(regles)
            listed = " ".join(f"{r['description']}." for r in regles)
            target["description"] = f"{target.get('description', '')}\n\n{REGLES_NOTE} {listed}".strip()
