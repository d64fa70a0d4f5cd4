"""Installs the locked development environment: requirements/lock.txt, exactly.

`make dev` runs this with the virtualenv's interpreter. pyproject.toml says which libraries
qdsim needs (ranges: the wheel's metadata, its extras and the dev group);
requirements/lock.txt pins the one combination that is tested, everything they pull in
included, so every checkout and CI installs the same versions. Before installing, the lock
is checked to pin every requirement of pyproject.toml (a requirement added there without a
pin here would otherwise install whatever is newest).
"""

import re
import subprocess
import sys
import tomllib
from pathlib import Path

LOCK = Path("requirements/lock.txt")


def _name(requirement: str) -> str:
    """Returns a requirement's distribution name, normalised (PEP 503)."""
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    if match is None:
        raise SystemExit(f"install_deps: cannot read the requirement {requirement!r}")
    return re.sub(r"[-_.]+", "-", match.group(1)).lower()


def requirements(pyproject: dict) -> list[str]:
    """Returns every requirement pyproject.toml lists: dependencies, every extra's (not the
    package's own, as in `all`) and the dependency groups'."""
    project = pyproject["project"]
    found = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        found += [r for r in extra if _name(r) != _name(project["name"])]
    for group in pyproject.get("dependency-groups", {}).values():
        found += [r for r in group if isinstance(r, str)]  # {include-group = ...} adds nothing new
    return found


def pins(lock: str) -> dict[str, str]:
    """Returns the lock's pins: normalised name → version."""
    out = {}
    for line in lock.splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, sep, version = line.partition("==")
            if not sep:
                raise SystemExit(f"install_deps: {LOCK} must pin exact versions (name==version), not {line!r}")
            out[_name(name)] = version.strip()
    return out


def main() -> None:
    pinned = pins(LOCK.read_text())
    missing = sorted({_name(r) for r in requirements(tomllib.loads(Path("pyproject.toml").read_text()))} - set(pinned))
    if missing:
        raise SystemExit(f"install_deps: {LOCK} pins no version of {', '.join(missing)} (pyproject.toml requires it): add name==version")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "-r", str(LOCK)], check=True)


if __name__ == "__main__":
    main()
