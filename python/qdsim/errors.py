"""The one error type users see: a key path, the value found there and what is allowed.

Every mistake in an experiment file, a ``--set`` override or a command-line option ends up
as a :class:`SpecError`; the CLI prints it as one line, ``error: <key>: <value> is not
allowed; <allowed>``, and exits with status 2.
"""

from __future__ import annotations

import json

__all__ = ["SpecError", "render_value"]


def render_value(value: object) -> str:
    """Returns ``value`` as it would be written in a TOML/JSON file (strings quoted)."""
    if value is _MISSING:
        return "(missing)"
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):  # pragma: no cover - default=str handles the rest
        return repr(value)


class _Missing:
    def __repr__(self) -> str:
        return "(missing)"

    def __reduce__(self) -> str:
        return "_MISSING"  # unpickles to the module's singleton


#: Marks a required key that is absent.
_MISSING = _Missing()


class SpecError(ValueError):
    """An experiment-file value that is not allowed.

    Attributes: ``key`` (dotted path such as ``flows.0.cc``), ``value`` (the rejected value)
    and ``allowed`` (what would be accepted, as a sentence fragment).
    """

    MISSING = _MISSING

    def __init__(self, key: str, value: object, allowed: str):
        self.key = key
        self.value = value
        self.allowed = allowed
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.value is _MISSING:
            return f"{self.key}: missing; {self.allowed}"
        return f"{self.key}: {render_value(self.value)} is not allowed; {self.allowed}"

    def __reduce__(self):
        # Keeps the three fields when the error crosses a process boundary (sweep workers).
        return (SpecError, (self.key, self.value, self.allowed))

    def within(self, prefix: str) -> SpecError:
        """Returns the same error with ``prefix`` prepended to its key path."""
        key = f"{prefix}.{self.key}" if self.key else prefix
        return SpecError(key, self.value, self.allowed)
