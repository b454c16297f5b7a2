"""The studio's OpenAPI schema as the tests hold answers against it: the schema (from the WSGI application),
the checks an answer must pass (schemathesis': status code, content type, headers, body), and
``mismatches``, which checks one answer however it was got (a WSGI call, the test client, an ASGI
middleware's own answer)."""
from __future__ import annotations

import datetime

import httpx
import schemathesis
from django.core.wsgi import get_wsgi_application
from schemathesis.core.failures import FailureGroup

schemathesis.checks.load_all_checks()
CHECKS = [getattr(schemathesis.checks, name) for name in (
    "status_code_conformance", "content_type_conformance", "response_headers_conformance",
    "response_schema_conformance")]
METHODS = ("get", "put", "post", "patch", "delete")

schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application())


def operations() -> set[tuple[str, str]]:
    """Every operation of the schema: ``(METHOD, /schema/path/{name}/)``."""
    return {(method.upper(), path) for path, item in schema.raw_schema["paths"].items() for method in item
            if method in METHODS}


def documented_statuses(method: str, path: str) -> set[int]:
    return {int(code) for code in schema.raw_schema["paths"][path][method.lower()]["responses"] if code.isdigit()}


def case_of(method: str, path: str, path_parameters: dict | None = None, **kwargs):
    """A schemathesis case of the operation ``method path``; path parameters not given are 1."""
    operation = schema[path][method]
    names = [parameter.name for parameter in operation.path_parameters]
    return operation.Case(path_parameters={name: 1 for name in names} | (path_parameters or {}), **kwargs)


def answer(method: str, url: str, status: int, headers: list[tuple[str, str]], body: bytes) -> httpx.Response:
    """An answer got some other way than through schemathesis, as the httpx response it checks."""
    response = httpx.Response(status, headers=headers, content=body, request=httpx.Request(method,
                                                                                          f"http://testserver{url}"))
    response.elapsed = datetime.timedelta(0)
    return response


def as_httpx(method: str, url: str, response) -> httpx.Response:
    """A Django (test client) response as the httpx response schemathesis checks."""
    return answer(method, url, response.status_code, list(response.items()), response.content)


def mismatches(case, response, headers: dict | None = None) -> list[str]:
    """What in ``response`` (to ``case``) the schema does not document; empty when it conforms."""
    try:
        case.validate_response(response, checks=CHECKS, headers=headers)
    except (FailureGroup, AssertionError) as failure:
        return [f"{case.operation.label} -> {response.status_code}: {failure}"]
    return []
