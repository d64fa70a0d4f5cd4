"""Allows ``python -m qdsim``."""

from .cli import command

command()
