"""The frontend's API types are generated from the OpenAPI schema (openapi-typescript): regenerate them and
compare, so a serializer change that the frontend has not seen fails here (fix: ``make api-types``)."""
import shutil
import subprocess
from pathlib import Path

import pytest
from django.core.management import call_command

ROOT = Path(__file__).resolve().parent.parent
FRONTEND = ROOT / "frontend"
GENERATED = FRONTEND / "src" / "api" / "schema.gen.ts"


def test_the_generated_api_types_match_the_schema(tmp_path):
    if not (FRONTEND / "node_modules" / ".bin" / "openapi-typescript").exists() or shutil.which("npx") is None:
        pytest.fail("the frontend's packages are not installed: `make test` installs them (npm ci)")
    schema = tmp_path / "openapi.json"
    call_command("spectacular", "--format", "openapi-json", "--file", str(schema))
    fresh = tmp_path / "schema.gen.ts"
    subprocess.run(["npx", "--no-install", "openapi-typescript", str(schema), "-o", str(fresh)], cwd=FRONTEND,
                   check=True, capture_output=True, timeout=120)
    assert fresh.read_text() == GENERATED.read_text(), (
        "frontend/src/api/schema.gen.ts is not what the API's schema generates: run `make api-types`")
