"""Generate the Python client (``clients/python/studio_client``) from the studio's OpenAPI schema.

``make api-client`` runs it; ``tests/test_api_client.py`` runs it into a temporary directory and
compares, so a schema change without a regenerated client fails there. The generator is
openapi-python-client (pinned in requirements.txt, with the ruff it formats with), configured by
``clients/python/generator.yaml``.

usage: python scripts/generate_api_client.py [OUTPUT_DIRECTORY]   (default: clients/python/studio_client)
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLIENT = ROOT / "clients" / "python"
PACKAGE = "studio_client"


def generate(output: Path) -> None:
    """Write the client package generated from the current schema to ``output`` (replaced if it exists)."""
    bin_dir = Path(sys.executable).parent  # the venv's openapi-python-client and ruff
    with tempfile.TemporaryDirectory(prefix="api-client-") as work:
        schema = Path(work) / "openapi.json"
        subprocess.run([sys.executable, str(ROOT / "manage.py"), "spectacular", "--format", "openapi-json",
                        "--file", str(schema)], cwd=ROOT, check=True)
        generated = Path(work) / PACKAGE
        subprocess.run([str(bin_dir / "openapi-python-client"), "generate", "--path", str(schema), "--meta", "none",
                        "--config", str(CLIENT / "generator.yaml"), "--output-path", str(generated),
                        "--fail-on-warning"],
                       cwd=work, check=True, env={**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"},
                       stdout=subprocess.DEVNULL)
        shutil.rmtree(output, ignore_errors=True)
        shutil.copytree(generated, output, ignore=shutil.ignore_patterns("__pycache__", ".ruff_cache"))


if __name__ == "__main__":
    generate(Path(sys.argv[1]) if len(sys.argv) > 1 else CLIENT / PACKAGE)
