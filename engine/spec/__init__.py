"""Pipeline definitions: the contract between browser, studio and engine.

``catalog`` lists the operator types with their parameter JSON Schemas, ``validation``
checks a definition and returns every problem at once as data.
"""
from engine.spec.catalog import OPERATOR_CATALOG, operator_spec
from engine.spec.validation import ValidationError, validate_definition, normalise_definition

__all__ = ["OPERATOR_CATALOG", "operator_spec", "ValidationError", "validate_definition", "normalise_definition"]
