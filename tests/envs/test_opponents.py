"""The envs' captain resolver (naval_env/envs/opponents.py): names through the installed resolver, objects as given."""

from __future__ import annotations

from typing import Any

import pytest

import naval_agents.captains.registry
from naval_env.core.captain import Captain, RandomCaptain
from naval_env.core.ruleset import get_ruleset
from naval_env.envs import opponents
from naval_env.envs.gym_env import NavalEnv


@pytest.fixture
def no_resolver(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if no captain package were installed: nothing registered, no entry points to load."""
    monkeypatch.setattr(opponents, "_resolvers", {})
    monkeypatch.setattr(opponents, "_entry_points_loaded", True)


def pantheon_spec() -> Any:
    ruleset = get_ruleset("pantheon")
    return ruleset.action_spec(ruleset.load_config())


def test_the_installed_resolver_is_agents_registry() -> None:
    assert opponents.resolver() is naval_agents.captains.registry
    assert opponents.default_opponent("pantheon") == naval_agents.captains.registry.default_opponent("pantheon") == "rammer"


def test_names_resolve_as_the_registry_resolves_them() -> None:
    captain = opponents.make_captain("gunner", "pantheon", pantheon_spec())
    assert type(captain) is type(naval_agents.captains.registry.make_captain("gunner", "pantheon", pantheon_spec()))
    assert captain.name == "gunner"


def test_a_captain_object_is_played_as_given(no_resolver: None) -> None:
    captain = RandomCaptain(pantheon_spec(), seed=3)
    assert opponents.make_captain(captain, "pantheon", pantheon_spec()) is captain


def test_without_a_resolver_only_random_and_objects_are_allowed(no_resolver: None) -> None:
    assert isinstance(opponents.make_captain("random", "pantheon", pantheon_spec()), RandomCaptain)
    assert opponents.default_opponent("pantheon") == "random"
    with pytest.raises(ValueError, match=r"captain 'zoo': no captain package is installed .*'naval_env.captains'"):
        opponents.make_captain("zoo", "pantheon", pantheon_spec())
    env = NavalEnv("pantheon")   # the default opponent falls back to random
    assert [type(c) for c in env._opponent_pool] == [RandomCaptain]


def test_two_resolvers_are_refused_rather_than_one_chosen_silently(no_resolver: None) -> None:
    class Other:
        def make_captain(self, spec: Any, ruleset_id: str, action_spec: Any, seed: Any = None,
                         config: Any = None) -> Captain:
            raise AssertionError("not asked")

        def default_opponent(self, ruleset_id: str) -> str:
            return "random"

    opponents.register_resolver("naval_agents", naval_agents.captains.registry)  # type: ignore[arg-type]
    opponents.register_resolver("naval_agents", naval_agents.captains.registry)  # type: ignore[arg-type]  # again: the same one
    assert opponents.resolver() is naval_agents.captains.registry
    opponents.register_resolver("other", Other())
    with pytest.raises(RuntimeError, match=r"several captain resolvers are installed \(naval_agents, other"):
        opponents.resolver()
