"""The import contracts of ``.importlinter``: the studio's one door into the engine, the
engine's floors (a module never imports from a floor above its own), the rooms of its
runtime and the groups of its operators, the studio's layers (every module of studio/ has
one, and none imports from a layer above its own) and no import cycle in the studio;
every contract in the file is kept."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_import_contract_is_kept():
    linter = Path(sys.executable).parent / "lint-imports"
    done = subprocess.run([str(linter), "--config", ".importlinter", "--no-cache"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    contracts = (ROOT / ".importlinter").read_text().count("[importlinter:contract:")
    assert f"{contracts} kept, 0 broken" in done.stdout, done.stdout[-4000:]
