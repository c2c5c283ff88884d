"""A faster ``__init__`` for frozen, slotted dataclasses built in the engines' hot loops (events, hulls)."""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")


def init_through_slots(cls: type[T]) -> type[T]:
    """Give a frozen, slotted dataclass an ``__init__`` that sets each slot through its descriptor; returns
    the class (so it also serves as a decorator, above ``@dataclass``).

    The ``__init__`` that ``dataclass`` writes for a frozen class calls ``object.__setattr__`` per
    field, about twice as slow. The new one is generated the way ``dataclass`` generates its own, takes
    the same parameters and builds the same instance; a class with field defaults keeps the original.
    """
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    if any(f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING for f in fields):
        return cls
    names = [f.name for f in fields]
    namespace: dict[str, Any] = {f"_set_{name}": getattr(cls, name).__set__ for name in names}
    source = (f"def __init__(self, {', '.join(names)}):\n"
              + "".join(f"    _set_{name}(self, {name})\n" for name in names) if names
              else "def __init__(self):\n    pass\n")
    exec(source, namespace)  # noqa: S102 - source built from the dataclass's own field names
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = init  # type: ignore[method-assign]
    return cls
