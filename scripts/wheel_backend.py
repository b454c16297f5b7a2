"""The project's PEP 517 build backend: ``pip install .`` builds a pure-Python wheel from here.

Why our own: building must work offline and fast, in CI, on Spark worker hosts and in the
Docker image, and the standard backends are not installed anywhere (Python 3.11's venvs
carry setuptools 65 without ``wheel``; build isolation would fetch both from PyPI on every
build). A wheel of pure-Python packages is a zip with three metadata files, so this module
writes it from ``pyproject.toml``'s ``[project]`` table and ``[tool.wheel_backend]``
(``packages``: the top-level packages to ship; every file under them goes in, caches aside).

Supported: ``build_wheel``, ``build_editable`` and ``build_sdist`` (what pip and ``python -m build`` call), the
metadata fields the project uses (name, version, description, requires-python,
dependencies, optional-dependencies, scripts).
"""
from __future__ import annotations

import base64
import hashlib
import io
import tarfile
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKIPPED_PARTS = {"__pycache__", ".pytest_cache", "node_modules"}
SKIPPED_SUFFIXES = {".pyc", ".pyo"}
ZIP_EPOCH = (2020, 1, 1, 0, 0, 0)
"""Fixed timestamps: the same sources build the same wheel, byte for byte."""


def _project() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as file:
        return tomllib.load(file)


def _distribution_name(project: dict) -> str:
    return project["name"].replace("-", "_")


def _metadata(project: dict) -> str:
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}", f"Version: {project['version']}"]
    if "description" in project:
        lines.append(f"Summary: {project['description']}")
    if "requires-python" in project:
        lines.append(f"Requires-Python: {project['requires-python']}")
    lines += [f"Requires-Dist: {requirement}" for requirement in project.get("dependencies", [])]
    for extra, requirements in project.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        lines += [f'Requires-Dist: {requirement}; extra == "{extra}"' for requirement in requirements]
    return "\n".join(lines) + "\n"


def _entry_points(project: dict) -> str:
    scripts = project.get("scripts", {})
    return "[console_scripts]\n" + "".join(f"{name} = {target}\n" for name, target in scripts.items())


def _package_files(pyproject: dict) -> list[Path]:
    files = []
    for package in pyproject["tool"]["wheel_backend"]["packages"]:
        for path in sorted((ROOT / package).rglob("*")):
            relative = path.relative_to(ROOT)
            if path.is_file() and not SKIPPED_PARTS & set(relative.parts) and path.suffix not in SKIPPED_SUFFIXES:
                files.append(relative)
    return files


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _write(archive: zipfile.ZipFile, name: str, data: bytes, record: list[str]) -> None:
    info = zipfile.ZipInfo(name, ZIP_EPOCH)
    info.external_attr = 0o644 << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(info, data)
    record.append(_record_line(name, data))


def build_wheel(wheel_directory: str, config_settings: dict | None = None,
                metadata_directory: str | None = None) -> str:
    """Write ``<name>-<version>-py3-none-any.whl`` into ``wheel_directory``; return its file name."""
    pyproject = _project()
    return _build(wheel_directory, pyproject, {relative.as_posix(): (ROOT / relative).read_bytes()
                                               for relative in _package_files(pyproject)})


def build_editable(wheel_directory: str, config_settings: dict | None = None,
                   metadata_directory: str | None = None) -> str:
    """PEP 660 (``pip install -e .``): a wheel whose ``.pth`` puts this source tree on ``sys.path``.

    The Docker image installs the studio so: its processes import the tree where the built
    frontend is (``studio.settings.FRONTEND_DIST`` is relative to the package)."""
    pyproject = _project()
    name = _distribution_name(pyproject["project"])
    return _build(wheel_directory, pyproject, {f"__editable__.{name}.pth": f"{ROOT}\n".encode()})


def _build(wheel_directory: str, pyproject: dict, files: dict[str, bytes]) -> str:
    project = pyproject["project"]
    name = f"{_distribution_name(project)}-{project['version']}"
    wheel_name = f"{name}-py3-none-any.whl"
    dist_info = f"{name}.dist-info"
    record: list[str] = []
    with zipfile.ZipFile(Path(wheel_directory) / wheel_name, "w") as archive:
        for file_name, data in files.items():
            _write(archive, file_name, data, record)
        _write(archive, f"{dist_info}/METADATA", _metadata(project).encode(), record)
        _write(archive, f"{dist_info}/entry_points.txt", _entry_points(project).encode(), record)
        _write(archive, f"{dist_info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: scripts/wheel_backend.py\n"
                                              b"Root-Is-Purelib: true\nTag: py3-none-any\n", record)
        record.append(f"{dist_info}/RECORD,,")
        info = zipfile.ZipInfo(f"{dist_info}/RECORD", ZIP_EPOCH)
        info.external_attr = 0o644 << 16
        archive.writestr(info, "\n".join(record) + "\n")
    return wheel_name


def build_sdist(sdist_directory: str, config_settings: dict | None = None) -> str:
    """Write ``<name>-<version>.tar.gz``: the packages, this backend and ``pyproject.toml``."""
    pyproject = _project()
    project = pyproject["project"]
    name = f"{_distribution_name(project)}-{project['version']}"
    files = [Path("pyproject.toml"), Path("scripts/wheel_backend.py"), *_package_files(pyproject)]
    with tarfile.open(Path(sdist_directory) / f"{name}.tar.gz", "w:gz") as archive:
        for relative in files:
            data = (ROOT / relative).read_bytes()
            info = tarfile.TarInfo(f"{name}/{relative.as_posix()}")
            info.size, info.mode, info.mtime = len(data), 0o644, 1577836800
            archive.addfile(info, io.BytesIO(data))
        metadata = _metadata(project).encode()
        info = tarfile.TarInfo(f"{name}/PKG-INFO")
        info.size, info.mode, info.mtime = len(metadata), 0o644, 1577836800
        archive.addfile(info, io.BytesIO(metadata))
    return f"{name}.tar.gz"


def get_requires_for_build_wheel(config_settings: dict | None = None) -> list[str]:
    """Nothing: the standard library builds the wheel (no download, even with build isolation)."""
    return []


def get_requires_for_build_editable(config_settings: dict | None = None) -> list[str]:
    return []


def get_requires_for_build_sdist(config_settings: dict | None = None) -> list[str]:
    return []
