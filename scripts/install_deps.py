"""Installs the pinned runtime and dev dependencies listed in pyproject.toml.

`make dev` runs this with the virtualenv's interpreter, so the pins live in one place
(pyproject.toml) and nothing has to be installed by hand.
"""

import subprocess
import sys
import tomllib
from pathlib import Path


def main() -> None:
    project = tomllib.loads(Path("pyproject.toml").read_text())["project"]
    requirements = list(project["dependencies"])
    for extra in sys.argv[1:]:
        requirements += project["optional-dependencies"][extra]
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", *requirements], check=True)


if __name__ == "__main__":
    main()
