"""The errors users see: a key path, the value found there and what is allowed.

Every mistake in an experiment file, a ``--set`` override or a command-line option ends up
as a :class:`SpecError`; the CLI prints it as one line, ``error: <key>: <value> is not
allowed; <allowed>``, and exits with status 2. :func:`validation_error` turns pydantic's
errors (the experiment file's models) into one. A run that outgrows its memory budget
raises :class:`BudgetError`, also one line and status 2: the input asked for it.
"""

from __future__ import annotations

import json
import types
import typing
from typing import TYPE_CHECKING, Annotated, Any, Union

if TYPE_CHECKING:  # pydantic is imported where an experiment file is read, not for `qdsim --help`
    from pydantic import BaseModel, ValidationError

from .experiment.units import UnitError

__all__ = ["BudgetError", "SpecError", "render_value", "validation_error"]


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


class BudgetError(Exception):
    """A run whose growing parts (queued packets, series rows, ...) went over its memory budget.

    ``what`` names the part that held the most bytes and ``detail`` its count or largest
    contributor; ``used`` and ``limit`` are bytes; ``at_s`` is the simulated time it was found;
    ``before_build``: the network alone exceeded the budget, refused before it was built.
    """

    def __init__(self, what: str, detail: str, used: int, limit: int, at_s: float, before_build: bool = False):
        self.what, self.detail, self.used, self.limit, self.at_s = what, detail, used, limit, at_s
        self.before_build = before_build
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.before_build:
            return (
                f"memory budget: the network needs about {_bytes(self.used)} before it runs ({self.detail}), over its budget of "
                f"{_bytes(self.limit)}; refused before it was built. Use fewer flows or hosts, or raise the budget with --memory-limit"
            )
        return (
            f"memory budget: the run held {_bytes(self.used)} at {self.at_s:.6g} s simulated, over its budget of {_bytes(self.limit)}; "
            f"most of it {self.what} ({self.detail}). Bound what grows (a qdisc limit, a longer sampling interval, a shorter run) "
            "or raise the budget with --memory-limit"
        )

    def __reduce__(self):
        # Keeps the fields when the error crosses a process boundary (sweep workers).
        return (BudgetError, (self.what, self.detail, self.used, self.limit, self.at_s, self.before_build))


def _bytes(n: int) -> str:
    """Returns a byte count for people: ``512 B``, ``3.4 MB``, ``1.2 GB``."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


def validation_error(exc: ValidationError, raw: dict[str, Any], model: type[BaseModel]) -> SpecError:
    """Returns pydantic's first error of validating ``raw`` as ``model`` as a SpecError with a
    dotted key path into ``raw``."""
    error = exc.errors(include_url=False)[0]
    path, _ = _data_path(error["loc"], raw)
    key = ".".join(str(p) for p in path) or "(file)"
    kind = error["type"]
    ctx = error.get("ctx") or {}
    if kind == "extra_forbidden":
        return SpecError(key, error["input"], _known_keys(path[:-1], raw, model))
    if kind == "missing":
        return SpecError(key, SpecError.MISSING, "this key is required")
    if kind in ("union_tag_invalid", "union_tag_not_found"):
        tag_key = f"{key}.kind" if key != "(file)" else "kind"
        expected = ctx.get("expected_tags", "")
        found = ctx.get("tag", SpecError.MISSING)
        return SpecError(tag_key, found, f"one of {expected}")
    if kind == "literal_error":
        return SpecError(key, error["input"], f"one of {ctx.get('expected')}")
    cause = ctx.get("error")
    if isinstance(cause, UnitError):
        return SpecError(key, cause.value, cause.allowed)
    message = error["msg"].removeprefix("Value error, ")
    message = message.replace("Input should be", "must be").replace("String should", "must")
    return SpecError(key, error["input"], message[0].lower() + message[1:])


def _data_path(loc: tuple[Any, ...], raw: Any) -> tuple[list[Any], Any]:
    """Keeps the parts of pydantic's ``loc`` that exist in the data (drops union tags)."""
    path: list[Any] = []
    node = raw
    for i, part in enumerate(loc):
        last = i == len(loc) - 1
        if (isinstance(node, dict) and part in node) or (isinstance(node, list) and isinstance(part, int) and part < len(node)):
            path.append(part)
            node = node[part]
        elif last and isinstance(node, dict):
            path.append(part)
            node = SpecError.MISSING
        # else: a pydantic-internal part (a union member's tag); skip it.
    return path, node


def _known_keys(path: list[Any], raw: dict[str, Any], root: type[BaseModel]) -> str:
    """Describes the keys allowed in the table at ``path`` (walking models with the data)."""
    model: Any = root
    node: Any = raw
    for part in path:
        node = node[part]
        if isinstance(part, int):
            model = _item_type(model)
        else:
            field = _fields_by_alias(model).get(part)
            model = field.annotation if field else None
        model = _pick_model(model, node)
    if not _is_model(model):
        return "a known key"
    names = sorted(_fields_by_alias(model))
    if model.model_config.get("extra") == "allow":
        return f"a known key ({', '.join(names)}, or parameters of that kind)"
    return f"one of the keys {', '.join(names)}"


def _is_model(annotation: Any) -> bool:
    """Returns whether ``annotation`` is a pydantic model class (pydantic is loaded by then: only
    its errors come here)."""
    from pydantic import BaseModel

    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def _fields_by_alias(model: Any) -> dict[str, Any]:
    if not _is_model(model):
        return {}
    return {(f.alias or name): f for name, f in model.model_fields.items()}


def _item_type(annotation: Any) -> Any:
    annotation = _strip(annotation)
    args = typing.get_args(annotation)
    return args[0] if args else None


def _strip(annotation: Any) -> Any:
    while typing.get_origin(annotation) is Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation


def _pick_model(annotation: Any, node: Any) -> Any:
    """Returns the model class of ``annotation`` matching the data ``node`` (for unions)."""
    annotation = _strip(annotation)
    is_union = typing.get_origin(annotation) in (Union, types.UnionType)
    candidates = [_strip(a) for a in typing.get_args(annotation)] if is_union else [annotation]
    models = [c for c in candidates if _is_model(c)]
    if isinstance(node, dict) and len(models) > 1:
        wanted = node.get("kind", "tcp")
        for m in models:
            field = m.model_fields.get("kind")
            if field is not None and wanted in typing.get_args(field.annotation):
                return m
    return models[0] if models else annotation
