"""Validate facade envelopes against schemas/facade (the contract every test uses)."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import jsonschema
from referencing import Registry, Resource

from ragraf import resources

BASE = "https://ragraf.dev/schemas/facade/"


@cache
def _registry() -> Registry:
    reg = Registry()
    for p in (resources.schemas_dir() / "facade").rglob("*.schema.json"):
        data = json.loads(p.read_text())
        reg = reg.with_resource(data["$id"], Resource.from_contents(data))
    return reg


def _validator(uri: str) -> jsonschema.Draft202012Validator:
    schema = _registry().contents(uri)
    return jsonschema.Draft202012Validator(schema, registry=_registry())


def check(env: dict[str, Any]) -> dict[str, Any]:
    """Raise if the envelope or its result breaks the schemas; return the result."""
    _validator(BASE + "envelope.schema.json").validate(env)
    _validator(BASE + f"results/{env['op']}.schema.json").validate(env["result"])
    json.dumps(env)  # serialisable
    return env["result"]
