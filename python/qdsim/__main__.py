"""Allows ``python -m qdsim``."""

import sys

from .cli import main

sys.exit(main())
