"""Single-agent Gymnasium environment: one captain learns, the other ships have opponent captains."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, SupportsFloat

import gymnasium as gym
import numpy as np

from naval_env.core.captain import Captain
from naval_env.envs.joint import DEFAULT_MAX_JOINT_ACTIONS, JointActions, check_action_space
from naval_env.envs.match import Match
from naval_env.envs.opponents import CaptainSpec, default_opponent, make_captain
from naval_env.envs.spaces import (
    MaskedDiscrete,
    MaskedMultiDiscrete,
    masked_observation_space,
    observation_box,
)
from naval_env.envs.spaces import action_space as multidiscrete_space

#: What the learner captains: one ship (its other ships get the ally captain) or every ship of its side.
COMMANDS = ("ship", "side")

#: Games a reset may start before one gives the learner a decision (see ``reset``).
MAX_GAMES_PER_RESET = 100


#: ``info["outcome"]`` while the game goes on; at its end ``"win"``, ``"loss"`` or ``"draw"`` for the learner.
PLAYING = "playing"


def learner_points(info: Mapping[str, Any]) -> float:
    """The learner's score from the ``info`` of a game's last step: 1 for a win, 0.5 for a draw, 0 for a loss."""
    if info["learner_won"]:
        return 1.0
    return 0.5 if not info["winner"] else 0.0


class NavalEnv(gym.Env[np.ndarray, np.ndarray]):
    """One ship captain of a naval battle, under any registered ruleset.

    ## Action space
    ``MultiDiscrete``: the ruleset's named components (``env.unwrapped.action_spec``).
    A turn is a sequence of decisions; components outside the current phase are
    masked to value 0. ``action_masks()`` and ``info["action_mask"]`` give the flat
    mask (components one after another, True = allowed) for sb3-contrib MaskablePPO.
    An action outside the mask is handled by ``illegal_action`` (the same in every
    env of the toolkit): ``"noop"`` (default) replaces each forbidden component by
    its value 0, always legal, applies the ``illegal_action`` reward and explains
    which component and why in ``info["illegal_action"]``; ``"raise"`` raises
    :class:`naval_env.IllegalActionError` with that message, the game untouched.
    ``action_space.sample()`` draws a legal action for the current decision.

    With ``action_space="discrete"``: ``Discrete(max_joint_actions)``, one index per legal joint action
    of the current decision in lexicographic order (:mod:`naval_env.envs.joint`), for DQN-family learners;
    the mask (``action_masks()``, ``info["action_mask"]``) is then over the indices, True for ``0 .. count - 1``.
    An index past them is illegal and ``illegal_action`` handles it as above: ``"noop"`` plays index 0 (every
    component's no-op value where allowed), charges the ``illegal_action`` reward and explains in
    ``info["illegal_action"]``; ``"raise"`` raises. ``joint_action(index)`` and ``joint_index(action)``
    translate for the current decision. A decision with more legal joint actions than
    ``max_joint_actions`` raises :class:`naval_env.envs.joint.JointActionsOverflow`.

    ## Observation space
    ``Box(-10, 10, (n,), float32)`` from the learner's point of view; the named
    slices are ``env.unwrapped.observation_spec``. With ``mask_in_obs=True`` it is
    ``Dict({"observation": that Box, "action_mask": Box(0, 1, (flat mask,), bool)})``,
    as in the PettingZoo envs (there int8), for libraries that read the mask from the observation
    (TorchRL's ``ActionMask``, Tianshou, CleanRL-style loops).

    ## Info
    The same keys at every step, each always of one type (vector envs and replay buffers batch them):
    ``action_mask`` (flat bool), ``learner`` (agent id), ``illegal_action`` (what was refused, ``""``
    when nothing was), ``winner`` (the winning side, ``""`` while playing and on a draw), ``outcome``
    (``"playing"``, then ``"win"``, ``"loss"`` or ``"draw"`` for the learner) and ``learner_won`` (numpy bool).

    ## Rewards
    From the ruleset config's ``rewards``: win / loss / draw at the end, plus
    ``damage_dealt`` per point of damage this captain's ship deals and minus
    ``damage_taken`` per point it takes, read from the step's events.
    ``env.unwrapped.events`` holds the typed events of the last step.

    ## Episode start
    ``reset`` plays the other captains up to the learner's first decision. If they end the
    battle before it (the learner's ship sunk on the opening move), that game is dropped
    and another is drawn from the same seeded stream, so every episode holds a decision.

    ## Episode end
    Terminated when the battle ends by the rules, or when the learner's ship is out
    of the fight (the rest of the battle is then played out by the captains so the
    result is known). Truncated when the ruleset's round limit is reached.

    ## Arguments
    - ``ruleset``: ruleset id (``"pantheon"``); ``config``: path or loaded config;
      ``scenario``: scenario name (default: the config's default).
    - ``learner``: agent id (``"red_0"``), ``"random"`` to draw a first-ship
      captain of either side at each reset, so a learner plays both sides, or a list of
      agent ids drawn from at each reset (repeat one to weight its seat).
    - ``opponent``: captain name (``"rammer"``, ``"random"``...; names are resolved by the installed
      captain package, see :mod:`naval_env.envs.opponents`), Captain object, or a
      list of them to draw from at each reset (default: the ruleset's first scripted captain); ``ally``: captain for the learner's
      own other ships (default: the same as the opponent).
    - ``render_mode``: ``"ansi"`` (board and the step's events) or ``"rgb_array"`` (the board
      picture the HTML replay viewer shows: ships, bars, wind, ranges; one size per scenario, so
      ``gymnasium.wrappers.RecordVideo`` records it as it is).
    - ``illegal_action``: ``"noop"`` or ``"raise"`` (see Action space).
    - ``mask_in_obs``: put the action mask in the observation (see Observation space).
    - ``action_space``: ``"multidiscrete"`` (default) or ``"discrete"``, with ``max_joint_actions`` (default
      256) its size (see Action space).
    - ``command``: ``"ship"`` (default): the learner captains one ship, ``ally`` the rest of its
      side; ``"side"``: the learner captains every ship of its side, each decision seen from the
      ship that holds it (``info["learner"]``), and its reward counts the whole side's damage.
      A trained captain commands its whole side in a game, as ``"side"`` trains it to.

    ## Starts
    ``set_start(scenario, position)`` picks the next reset's scenario (one of the ruleset's; the
    spaces are the same in all of them) and, optionally, a mid-game position (``Game.position()``
    data) to play on from instead of the scenario's set-up, rolling the game's own seeded dice.

    ## Version history
    - v0: first release.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2}  # noqa: RUF012 - the base class declares it this way

    def __init__(
        self,
        ruleset: str = "pantheon",
        config: str | Path | Any = None,
        scenario: str | None = None,
        learner: str | Sequence[str] | None = None,
        opponent: CaptainSpec | list[CaptainSpec] | None = None,
        ally: CaptainSpec | None = None,
        render_mode: str | None = None,
        illegal_action: str = "noop",
        command: Literal["ship", "side"] = "ship",
        mask_in_obs: bool = False,
        action_space: Literal["multidiscrete", "discrete"] = "multidiscrete",
        max_joint_actions: int = DEFAULT_MAX_JOINT_ACTIONS,
    ) -> None:
        check_action_space(action_space, max_joint_actions)
        if command not in COMMANDS:
            raise ValueError(f"command {command!r} is not one of {COMMANDS}")
        self.command = command
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']}")
        self.match = Match(ruleset, config, scenario, illegal_action)
        self._matches: dict[str | None, Match] = {scenario: self.match}
        self._position: dict[str, Any] | None = None
        self._learner_spec = learner
        self.ruleset_id = self.match.ruleset.id
        self.action_spec = self.match.action_spec
        self.observation_spec = self.match.observation_spec
        #: The Discrete space's translation (``action_space="discrete"``), else None.
        self.joint = (JointActions(self.action_spec, max_joint_actions, self.ruleset_id)
                      if action_space == "discrete" else None)
        self.action_space: gym.Space[Any] = (  # type: ignore[assignment]  # Discrete or MultiDiscrete
            multidiscrete_space(self.action_spec, mask_source=self.action_masks) if self.joint is None
            else MaskedDiscrete(self.joint, mask_source=self.action_masks))
        self.mask_in_obs = mask_in_obs
        self.observation_space: gym.Space[Any] = (  # type: ignore[assignment]  # a Dict with mask_in_obs
            masked_observation_space(self.observation_spec, self.action_spec, self.joint) if mask_in_obs
            else observation_box(self.observation_spec))
        self.render_mode = render_mode
        self._learner_choices = self._learner_seats(learner)
        if opponent is None:
            opponent = default_opponent(self.ruleset_id)
        self.set_opponents(opponent if isinstance(opponent, list) else [opponent])
        self.set_ally(ally)
        self.learner = self._learner_choices[0]
        self.captains: dict[str, Captain] = {}
        self._mask = self._action_mask(self.action_spec.noop_mask())

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        # The action space pickles without its mask source (see MaskedMultiDiscrete.__reduce__): bind it again.
        if isinstance(self.action_space, (MaskedMultiDiscrete, MaskedDiscrete)):
            self.action_space.mask_source = self.action_masks

    def _learner_seats(self, learner: str | Sequence[str] | None) -> list[str]:
        """The agent ids a reset draws the learner from, in the current match's scenario."""
        agents = self.match.agents
        if learner == "random":
            return self._first_ships()
        if learner is None or isinstance(learner, str):
            choices = [learner or agents[0]]
        else:
            choices = list(learner)
            if not choices:
                raise ValueError(f"learner list is empty; list agent ids from {agents}")
        for choice in choices:
            if choice not in agents:
                where = "this scenario" if self.match.scenario is None else f"scenario {self.match.scenario!r}"
                raise ValueError(f"learner {choice!r} is not a captain of {where}; choose one of {agents}")
        return choices

    def _first_ships(self) -> list[str]:
        firsts: dict[str, str] = {}
        for agent in self.match.agents:
            firsts.setdefault(self.match.game.side_of(agent), agent)
        return list(firsts.values())

    def set_start(self, scenario: str | None, position: Mapping[str, Any] | None = None) -> None:
        """Where the next reset starts: ``scenario``'s set-up, or ``position`` (of that scenario) played on."""
        if scenario not in self._matches:
            current = self.match
            self._matches[scenario] = Match(current.ruleset, current.config, scenario, current.illegal_action)
        self.match = self._matches[scenario]
        self._learner_choices = self._learner_seats(self._learner_spec)
        self._position = None if position is None else dict(position)

    def set_opponents(self, pool: Sequence[CaptainSpec]) -> None:
        """Replace the opponent pool; takes effect at the next reset (self-play swaps snapshots in)."""
        if not pool:
            raise ValueError("opponent pool is empty; give at least one captain")
        self._opponent_pool = [make_captain(c, self.ruleset_id, self.action_spec) for c in pool]

    def set_ally(self, ally: CaptainSpec | None) -> None:
        """Captain of the learner's other ships (None: the opponent's); takes effect at the next reset."""
        self._ally = None if ally is None else make_captain(ally, self.ruleset_id, self.action_spec)

    # -------------------------------------------------------------- gym API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        for _ in range(MAX_GAMES_PER_RESET):
            events = self._start_game(self.np_random)
            if not self.match.game.is_over:
                break
            # The other captains ended the battle before the learner's first decision (its
            # ship was sunk on the opening move): an episode with no decision, so draw another.
        else:
            raise RuntimeError(f"{MAX_GAMES_PER_RESET} games in a row ended before {self.learner!r} could "
                               "act; check the scenario's set-up")
        self._events = events
        return self._observe(), self._info()

    def _start_game(self, rng: np.random.Generator) -> list[Any]:
        """A new game played by the other captains up to the learner's first decision (or its end)."""
        game_seed = int(rng.integers(2**31 - 1))
        self.learner = self._learner_choices[int(rng.integers(len(self._learner_choices)))]
        opponent = self._opponent_pool[int(rng.integers(len(self._opponent_pool)))]
        if self._position is None:
            events = self.match.reset(game_seed)
        else:
            events = self.match.start_from(self._position, game_seed)
            # In a mid-game position the drawn seat's ship may be out of the fight: its side's first
            # ship still fighting takes the seat (a position in play has one on each side).
            side = self.match.game.side_of(self.learner)
            self.learner = next((a for a in self.match.agents if self.match.game.side_of(a) == side
                                 and self.match.game.is_active(a)), self.learner)
        self.match.last_illegal = None
        game = self.match.game
        learner_side = game.side_of(self.learner)
        if self.command == "side":
            self.captains = {agent: opponent for agent in game.agents if game.side_of(agent) != learner_side}
        else:
            self.captains = {
                agent: (self._ally or opponent) if game.side_of(agent) == learner_side else opponent
                for agent in game.agents if agent != self.learner
            }
        for captain in {id(c): c for c in self.captains.values()}.values():
            captain.reset(int(rng.integers(2**31 - 1)))
        return events + self._play_others()

    def _play_others(self) -> list[Any]:
        """The other captains' moves up to the learner's next decision (or the game's end)."""
        game = self.match.game
        if self.command == "side":
            side = game.side_of(self.learner)
            events = self.match.play_until(self.captains, stop_at=self._side_agents(side))
            if not game.is_over and game.current_agent is not None:
                self.learner = game.current_agent
            return events
        stop_at = self.learner if game.is_active(self.learner) else None
        return self.match.play_until(self.captains, stop_at=stop_at)

    def _side_agents(self, side: str) -> frozenset[str]:
        game = self.match.game
        return frozenset(agent for agent in game.agents if game.side_of(agent) == side)

    def step(self, action: np.ndarray) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        game = self.match.game
        if game.is_over:
            raise RuntimeError("step() called after the episode ended; call reset()")
        actor = self.learner
        if self.joint is None:
            events = self.match.apply(actor, action)
        else:
            events = self.match.apply_index(actor, action, self.joint)
        events += self._play_others()
        self._events = events
        if self.command == "side":
            reward = self.match.side_reward(self._side_agents(game.side_of(actor)), events)
        else:
            reward = self.match.reward(actor, events)
        truncated = game.truncated
        terminated = game.is_over and not truncated
        return self._observe(), reward, terminated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """Flat boolean mask of the learner's current decision (sb3-contrib MaskablePPO hook); over the
        Discrete indices with ``action_space="discrete"``."""
        return self._mask

    def joint_action(self, index: int) -> np.ndarray:
        """The MultiDiscrete action that Discrete ``index`` stands for in the learner's current decision."""
        return self._require_joint().decode(int(index), self.match.game.legal_mask(self.learner))

    def joint_index(self, action: Any) -> int:
        """The Discrete index of the legal MultiDiscrete ``action`` in the learner's current decision."""
        return self._require_joint().encode(action, self.match.game.legal_mask(self.learner))

    def _require_joint(self) -> JointActions:
        if self.joint is None:
            raise ValueError("joint_action/joint_index translate Discrete indices; this env was made with "
                             "action_space='multidiscrete' (make it with action_space='discrete')")
        return self.joint

    def _action_mask(self, flat_mask: np.ndarray) -> np.ndarray:
        """The mask the learner sees: the flat component mask, or over the Discrete indices."""
        return flat_mask if self.joint is None else self.joint.mask(flat_mask)

    # Gymnasium types render() with a TypeVar no Env subclass can bind, so the narrower return is flagged.
    def render(self) -> str | np.ndarray | None:  # type: ignore[override]
        if self.render_mode == "ansi":
            return self.match.game.render_ansi(self._events)
        if self.render_mode == "rgb_array":
            return self.match.game.render_rgb()
        return None

    # ------------------------------------------------------------- helpers
    def _observe(self) -> Any:
        game = self.match.game
        self._mask = self._action_mask(game.legal_mask(self.learner) if not game.is_over
                                       else self.action_spec.noop_mask())
        observation = game.observe(self.learner)
        if self.mask_in_obs:
            return {"observation": observation, "action_mask": self._mask}
        return observation

    def _info(self) -> dict[str, Any]:
        game = self.match.game
        winner = game.winner if game.is_over else None
        learner_won = winner is not None and winner == game.side_of(self.learner)
        if not game.is_over:
            outcome = PLAYING
        else:
            outcome = "win" if learner_won else "draw" if winner is None else "loss"
        return {"action_mask": self._mask, "learner": self.learner,
                "illegal_action": self.match.last_illegal or "", "winner": winner or "", "outcome": outcome,
                # numpy's bool, as array-minded readers (TorchRL's info reader) expect a dtype
                "learner_won": np.bool_(learner_won)}

    @property
    def game(self) -> Any:
        return self.match.game

    @property
    def events(self) -> list[Any]:
        """Events of the last reset or step (the learner's action and the other captains' replies).

        Kept out of ``info`` because vector envs deep-copy infos every step."""
        return self._events

    def captain_map(self) -> Mapping[str, Captain]:
        return dict(self.captains)
