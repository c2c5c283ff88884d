"""What keys a pydantic model allows at a place in its input, for the "unknown key" messages of configs
and positions alike."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


def allowed_keys(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    """The keys the mapping at ``loc`` (a validation error's location) of ``model`` may have, sorted;
    empty where ``loc`` leads to no model."""
    current: Any = model
    for part in loc:
        if isinstance(part, int):
            continue
        fields = getattr(current, "model_fields", None)
        if fields is None:
            return []
        if part not in fields:
            continue  # a key of a dict[str, Model]: the model stays the same
        current = _model_in(fields[part].annotation)
    fields = getattr(current, "model_fields", None)
    return sorted(fields) if fields else []


def _model_in(annotation: Any) -> Any:
    """From ``list[X]``, ``dict[str, X]`` or ``X | None`` return X, if X is a model (else None)."""
    for arg in reversed(getattr(annotation, "__args__", ()) or ()):
        if isinstance(arg, type) and issubclass(arg, BaseModel):
            return arg
        inner = _model_in(arg)
        if inner is not None:
            return inner
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return None
