"""The fields and base classes every serializer of the API uses: strict strings, booleans and numbers,
definitions as drafts or as documented definitions, JSON objects."""
from __future__ import annotations

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.plumbing import ResolvedComponent
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from engine.api import DEFINITION_SCHEMA

MAX_INT32 = 2**31 - 1
MAX_BIGINT = 2**63 - 1


class StrictCharField(serializers.CharField):
    """A string, and only a string: DRF's CharField would take the number 0 for "0", which the schema refuses."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class RelatedNameField(StrictCharField):
    """A read-only string read through a relation that may be empty (``source="team.name"``): null when it is,
    in every answer. DRF's ``default=None`` stands in for the missing relation except in a partial update's
    answer, where it leaves the field out, and the schema says the field is always there."""

    def __init__(self, **kwargs):
        super().__init__(read_only=True, allow_null=True, default=None, **kwargs)

    def get_attribute(self, instance):
        try:
            return super().get_attribute(instance)
        except serializers.SkipField:
            return None


class StrictBooleanField(serializers.BooleanField):
    """true or false, and only those: DRF's BooleanField would take 0, 1 and "yes", which the schema refuses."""

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class StrictIntegerField(serializers.IntegerField):
    """A JSON integer, and only that: DRF's IntegerField would take the string "2", the number 2.0 and true
    (as 1), which the schema (``type: integer``) refuses."""

    default_error_messages = {"invalid": "A valid integer is required: a JSON number without a fraction or an "
                                         "exponent, not a string or a boolean."}

    def to_internal_value(self, data):
        if not isinstance(data, int) or isinstance(data, bool):
            self.fail("invalid")
        return data


class StrictBigIntegerField(StrictIntegerField, serializers.BigIntegerField):
    """A JSON integer, and only that, for a 64-bit model field (documented as ``int64``, as DRF's is)."""


class StrictFloatField(serializers.FloatField):
    """A finite JSON number (an integer or not), and only that: DRF's FloatField would take the string "2.5"
    and true (as 1.0), which the schema (``type: number``) refuses. NaN and the infinities are no JSON and
    no number here either."""

    default_error_messages = {"invalid": "A valid number is required: a finite JSON number, not a string or a "
                                         "boolean."}

    def to_internal_value(self, data):
        if not isinstance(data, (int, float)) or isinstance(data, bool):
            self.fail("invalid")
        return super().to_internal_value(data)  # a float, finite (NaN and infinities fail "invalid"), in range


class StrictPrimaryKeyRelatedField(serializers.PrimaryKeyRelatedField):
    """An object named by its integer id, and only by that: DRF's PrimaryKeyRelatedField would look the
    string "2" (or true, as 1) up as the id 2. Every model here has an integer primary key."""

    def to_internal_value(self, data):
        if not isinstance(data, int) or isinstance(data, bool):
            self.fail("incorrect_type", data_type=type(data).__name__)
        return super().to_internal_value(data)


class StrictRegexField(StrictCharField, serializers.RegexField):
    """A string matching ``regex``, and only a string (DRF's RegexField would take the number 0 for "0")."""


class StrictSlugRelatedField(serializers.SlugRelatedField):
    """An object named by a string, and only a string: DRF's SlugRelatedField would look the number 0 up as
    "0"."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


STRICT_FIELDS = {serializers.CharField: StrictCharField, serializers.BooleanField: StrictBooleanField,
                 serializers.IntegerField: StrictIntegerField, serializers.BigIntegerField: StrictBigIntegerField,
                 serializers.FloatField: StrictFloatField}
"""DRF's field that coerces another JSON type into its own, and the field here that takes only its own."""


class StrictModelSerializer(serializers.ModelSerializer):
    # the fields it builds from the model's take only their own JSON type too (no docstring: drf-spectacular
    # would make it the description of every component built from a subclass)
    serializer_field_mapping = {model_field: STRICT_FIELDS.get(field, field) for model_field, field
                                in serializers.ModelSerializer.serializer_field_mapping.items()}
    serializer_related_field = StrictPrimaryKeyRelatedField


def openapi_dialect(schema):
    """A JSON Schema (2020-12) in the OpenAPI 3.0 dialect the schema is written in: ``const`` as a one-value
    ``enum``, a ``null`` type as ``nullable``, an array of anything with ``items: {}`` (3.0 requires
    ``items``; without it, client generators drop every operation whose body holds a definition)."""
    if isinstance(schema, list):
        return [openapi_dialect(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    converted = {key: openapi_dialect(value) for key, value in schema.items() if key != "const"}
    if "const" in schema:
        converted["enum"] = [schema["const"]]
    kinds = schema.get("type")
    if isinstance(kinds, list) and "null" in kinds:
        [converted["type"]] = [kind for kind in kinds if kind != "null"]
        converted["nullable"] = True
    if converted.get("type") == "array" and "items" not in converted:
        converted["items"] = {}
    if "properties" in schema:
        converted["properties"] = {name: openapi_dialect(value) for name, value in schema["properties"].items()}
    return converted


class DraftField(serializers.JSONField):
    """A draft of a pipeline definition: any JSON object, valid or not (its problems are what is asked for).

    Edges without an ``id`` get one here (``e1``, ``e2``, ... the first free, in order): a hand-written
    definition may leave them out, and validation then reports every other problem instead of stopping at
    the missing ids."""

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if not isinstance(value, dict):
            raise serializers.ValidationError("a pipeline definition is a JSON object")
        return with_edge_ids(value)


def with_edge_ids(definition: dict) -> dict:
    """``definition`` with an id on every edge object that has none (a copy when one was added)."""
    edges = definition.get("edges")
    if not isinstance(edges, list) or all(not isinstance(edge, dict) or "id" in edge for edge in edges):
        return definition
    taken = {str(edge["id"]) for edge in edges if isinstance(edge, dict) and "id" in edge}
    numbers = (f"e{number}" for number in range(1, len(edges) + len(taken) + 2))
    named = []
    for edge in edges:
        if isinstance(edge, dict) and "id" not in edge:
            edge = {"id": next(name for name in numbers if name not in taken), **edge}
        named.append(edge)
    return {**definition, "edges": named}


class DraftFieldSchema(OpenApiSerializerFieldExtension):
    """A draft is any object (an extension, not ``extend_schema_field``: that would be inherited by
    ``DefinitionField``, whose schema is the documented definition)."""

    target_class = DraftField

    def map_serializer_field(self, auto_schema, direction):
        return {"type": "object", "additionalProperties": True, "description": "A draft of a pipeline definition, "
                                                                                "valid or not."}


class DefinitionField(DraftField):
    """A pipeline definition; its schema is documented (the ``Definition`` component), and ``engine.spec``
    checks it in the view, where all errors are known."""


class DefinitionFieldSchema(OpenApiSerializerFieldExtension):
    """Every body holding a definition refers to one schema component, ``Definition``, instead of a copy of
    it each: a generated client gets one model for it, not one set per operation."""

    target_class = DefinitionField

    def map_serializer_field(self, auto_schema, direction):
        component = ResolvedComponent(name="Definition", type=ResolvedComponent.SCHEMA, object="Definition", schema={
            **openapi_dialect(DEFINITION_SCHEMA),
            "description": "A pipeline definition (format 1); see GET /api/operators for node types and the JSON "
                           "Schema of each one's params."})
        auto_schema.registry.register_on_missing(component)
        return component.ref


class JSONObjectField(serializers.JSONField):
    """Any JSON object (documented as such)."""


extend_schema_field({"type": "object", "additionalProperties": True})(JSONObjectField)
