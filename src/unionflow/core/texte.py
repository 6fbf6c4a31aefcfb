"""What the server does to input text before it counts it, stated as JSON Schema patterns: the spaces Python's
``str.strip`` removes are trimmed (``InputModel``: ``str_strip_whitespace``) and the control characters
``core.middleware.CONTROL_CHARACTERS`` forbids are refused (400 ``caractere-controle``)."""

from __future__ import annotations

from typing import Any

# What the server does before counting, as a pattern for a string with a minimum length and no pattern of its own:
# the forbidden control characters (core.middleware.CONTROL_CHARACTERS, 400 `caractere-controle`) are absent, and
# what is left once the spaces ``str.strip`` removes are trimmed is at least ``minLength`` characters long. Without
# it "\f~😀" (3 characters on the wire, 2 once trimmed) matched the schema and was refused. Explicit classes, not
# \s: ECMA-262's \s and Python's differ (U+0085, U+FEFF). The spaces listed are Python's less the control ones.
_SPACES = r"\t\n\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
_CONTROLS = r"\x00-\x08\x0b\x0c\x0e-\x1f\x7f"


def trimmed_length_pattern(min_length: int) -> str:
    """A pattern matching exactly the texts of at least ``min_length`` characters once trimmed, without control
    characters (a character is a code point, as for ``minLength``)."""
    space, visible, allowed = f"[{_SPACES}]", f"[^{_SPACES}{_CONTROLS}]", f"[^{_CONTROLS}]"
    if min_length <= 1:
        return f"^{space}*{visible}{allowed}*$"
    return f"^{space}*{visible}{allowed}{{{min_length - 2},}}{visible}{space}*$"


# Any text without a forbidden control character: the pattern of an input string that has none of its own.
SANS_CONTROLE = f"^[^{_CONTROLS}]*$"


def trimmed_pattern(body: str) -> str:
    """A pattern matching the texts that match ``body`` once trimmed: the server checks a text after ``str.strip``
    (dictionary keys included), so " nom" is read as "nom"."""
    return f"^[{_SPACES}]*(?:{body})[{_SPACES}]*$"


def state_parameter_controls(op: dict[str, Any]) -> None:
    """A text path or query parameter without a pattern of its own says it refuses control characters (400
    `caractere-controle`, core.routing), as request bodies do (core.schemas)."""
    for parameter in op.get("parameters", []):
        if parameter.get("in") not in ("path", "query"):
            continue
        schema = parameter.get("schema", {})
        for branch in schema.get("anyOf", [schema]):
            texts = [branch.get("items", {}), branch] if branch.get("type") == "array" else [branch]
            for text in texts:
                if text.get("type") == "string" and not {"pattern", "format", "enum", "const"} & text.keys():
                    text["pattern"] = SANS_CONTROLE


_FORMS = ("multipart/form-data", "application/x-www-form-urlencoded")


def state_form_controls(op: dict[str, Any], schemas: dict[str, Any]) -> None:
    """A form body's field names and text values refuse control characters too (core.middleware
    ``form_control_location``); a form accepts fields it does not name, so the names are stated by
    ``propertyNames``."""
    for media, content in op.get("requestBody", {}).get("content", {}).items():
        ref = content.get("schema", {}).get("$ref", "")
        if media not in _FORMS or not ref.startswith("#/components/schemas/"):
            continue
        body = schemas[ref.rsplit("/", 1)[1]]
        body["propertyNames"] = {"pattern": SANS_CONTROLE}
        for prop in body.get("properties", {}).values():
            for branch in prop.get("anyOf", [prop]):
                if branch.get("type") == "string" and not {"pattern", "format", "enum", "const",
                                                           "contentMediaType"} & branch.keys():
                    branch["pattern"] = SANS_CONTROLE
