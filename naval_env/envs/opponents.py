"""Captains by name for the environments, through a resolver the captain package provides.

The envs play :class:`~naval_env.core.captain.Captain` objects and know no captain by name but
``random``: names (``"rammer"``, ``"zoo"``, ``"search:64"``, a model path) belong to the package that
writes the captains, which sits above the envs and may not be imported by them. That package
offers a *resolver* (anything with this module's :class:`CaptainResolver` methods) in the entry
point group ``naval_env.captains`` of its distribution metadata, the way Gymnasium finds
third-party environments (group ``gymnasium.envs``) and pytest its plugins (``pytest11``). The
toolkit's own ``pyproject.toml`` declares ``agents = "naval_agents.captains.registry"``, so
``gym.make("naval/Pantheon-v0", opponent="zoo")`` works without importing ``agents`` first, while
nothing under ``naval_env`` names it. A resolver may also register itself in code
(:func:`register_resolver`); ``naval_agents.captains.registry`` does on import, so a source tree run without being
installed still resolves names once ``agents`` is imported.
"""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Any, Protocol

from naval_env.core.captain import Captain, RandomCaptain
from naval_env.core.spaces import ActionSpec

ENTRY_POINT_GROUP = "naval_env.captains"

CaptainSpec = str | Captain


class CaptainResolver(Protocol):
    """Turns captain names into captains (``naval_agents.captains.registry`` is one, as a module)."""

    def make_captain(self, spec: str | Captain, ruleset_id: str, action_spec: ActionSpec,
                     seed: int | None = None, config: Any = None) -> Captain: ...

    def default_opponent(self, ruleset_id: str) -> str: ...


_resolvers: dict[str, CaptainResolver] = {}
_entry_points_loaded = False


def register_resolver(name: str, resolver: CaptainResolver) -> None:
    """Make ``resolver`` the one that turns names into captains (registering the same one again is a no-op)."""
    _resolvers[name] = resolver


def _load_entry_points() -> None:
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    for point in entry_points(group=ENTRY_POINT_GROUP):
        if point.name not in _resolvers:
            _resolvers[point.name] = point.load()


def resolver() -> CaptainResolver | None:
    """The installed resolver, or None when no captain package provides one."""
    _load_entry_points()
    found = {id(r): r for r in _resolvers.values()}
    if len(found) > 1:
        raise RuntimeError(f"several captain resolvers are installed ({', '.join(sorted(_resolvers))}, entry point "
                           f"group {ENTRY_POINT_GROUP!r}); keep one, so a captain's name means one captain")
    return next(iter(found.values()), None)


def make_captain(spec: CaptainSpec, ruleset_id: str, action_spec: ActionSpec) -> Captain:
    """``spec`` itself when it is a Captain, else the captain its name gives."""
    if isinstance(spec, Captain):
        return spec
    names = resolver()
    if names is not None:
        return names.make_captain(spec, ruleset_id, action_spec)
    if spec == "random":
        return RandomCaptain(action_spec)
    raise ValueError(f"captain {spec!r}: no captain package is installed to resolve names (entry point group "
                     f"{ENTRY_POINT_GROUP!r}; naval-tactics's agents provide one), so only 'random' or a Captain "
                     "object is allowed")


def default_opponent(ruleset_id: str) -> str:
    """The resolver's reference opponent for the ruleset (its first scripted captain), else ``random``."""
    names = resolver()
    return "random" if names is None else names.default_opponent(ruleset_id)
