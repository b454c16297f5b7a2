"""The Python client (``clients/python/studio_client``) is generated from the OpenAPI schema
(openapi-python-client): regenerate it and compare, so a schema change the client has not seen fails
here (fix: ``make api-client``, or ``make api-types``, which renews the frontend's types too)."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "clients" / "python" / "studio_client"


def files(directory: Path) -> dict[str, str]:
    return {str(path.relative_to(directory)): path.read_text() for path in sorted(directory.rglob("*"))
            if path.is_file() and "__pycache__" not in path.parts}


def test_the_generated_client_matches_the_schema(tmp_path):
    subprocess.run([sys.executable, str(ROOT / "scripts" / "generate_api_client.py"), str(tmp_path / "fresh")],
                   cwd=ROOT, check=True, capture_output=True, timeout=600)
    committed, fresh = files(PACKAGE), files(tmp_path / "fresh")
    differing = sorted(name for name in committed.keys() | fresh.keys() if committed.get(name) != fresh.get(name))
    assert not differing, (f"clients/python/studio_client is not what the API's schema generates ({len(differing)} "
                           f"files differ, e.g. {differing[:5]}): run `make api-client`")
    assert "api/runs/runs_checkpoints_overview.py" in committed  # a GET whose answer is one object, not a list
