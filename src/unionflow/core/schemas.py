"""Base models: camelCase on the wire, unknown input fields refused."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class OutputModel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, from_attributes=True)


class InputModel(BaseModel):
    """Client input. Server-managed fields (status, numbers, paid amounts, approver, timestamps) are
    simply absent from input models, and ``extra='forbid'`` turns any attempt to send them into 400."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", str_strip_whitespace=True
    )
