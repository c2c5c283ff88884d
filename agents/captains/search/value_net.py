"""A ruleset's value network as numpy matrices, and the search leaf that reads it.

The shipped zoo captains are actors only (their ONNX graphs have no value head), so a search over
them had only hull fractions to judge a position where a rollout stops: a proxy that cannot see a
win that is not hull (a ship about to flee, to board, to be cornered) and that, in pantheon and
flotilla, kept the search level with its prior (docs/search.md). A value network, trained on the
outcomes of games from positions the captains reach (``agents/zoo/value_build.py``), is the leaf
AlphaZero and MuZero use; this module plays it.

The file is a numpy ``.npz`` of plain float32 arrays, read with ``allow_pickle=False`` (never a
pickle), beside a JSON card that names the ruleset, its version and the observation size it reads;
a file that does not match the ruleset is refused with what it found.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from naval_agents.captains.search.evaluators import Values, netted_side_values, result_values
from naval_env.core.game import Game

#: Hidden activations a value file may name (``activation`` in its card).
_ACTIVATIONS = {"tanh": np.tanh, "relu": lambda x: np.maximum(x, 0.0)}


class ValueFileError(ValueError):
    """A value network file that is missing, malformed or made for another ruleset."""


@dataclass(frozen=True)
class ValueNet:
    """An MLP from a captain's observation to the expected result of its side, in [-1, 1]."""

    weights: tuple[np.ndarray, ...]
    biases: tuple[np.ndarray, ...]
    activation: str = "tanh"

    def __post_init__(self) -> None:
        if not self.weights or len(self.weights) != len(self.biases):
            raise ValueFileError(f"a value network needs as many biases as weights, at least one layer; got "
                                 f"{len(self.weights)} weights and {len(self.biases)} biases")
        if self.activation not in _ACTIVATIONS:
            raise ValueFileError(f"activation {self.activation!r} is not one of {', '.join(_ACTIVATIONS)}")
        for i, (weight, bias) in enumerate(zip(self.weights, self.biases)):
            if weight.ndim != 2 or bias.shape != (weight.shape[1],):
                raise ValueFileError(f"layer {i}: weight {weight.shape} and bias {bias.shape} do not fit")
            if i and weight.shape[0] != self.weights[i - 1].shape[1]:
                raise ValueFileError(f"layer {i} takes {weight.shape[0]} inputs but layer {i - 1} gives "
                                     f"{self.weights[i - 1].shape[1]}")
        if self.weights[-1].shape[1] != 1:
            raise ValueFileError(f"the last layer must give one value, gives {self.weights[-1].shape[1]}")

    @property
    def observation_size(self) -> int:
        return int(self.weights[0].shape[0])

    def __call__(self, observations: np.ndarray) -> np.ndarray:
        """Values ``[batch]`` in [-1, 1] for observations ``[batch, observation_size]``."""
        x = np.asarray(observations, dtype=np.float32)
        hidden = _ACTIVATIONS[self.activation]
        last = len(self.weights) - 1
        for i, (weight, bias) in enumerate(zip(self.weights, self.biases)):
            x = x @ weight + bias
            x = np.tanh(x) if i == last else hidden(x)   # type: ignore[operator]
        return x[:, 0]

    def save(self, path: Path, card: dict[str, object]) -> None:
        """Write ``path`` (.npz) and its card beside it (``.json``): ``card`` plus the shapes."""
        arrays: dict[str, Any] = {f"weight_{i}": w.astype(np.float32) for i, w in enumerate(self.weights)}
        arrays |= {f"bias_{i}": b.astype(np.float32) for i, b in enumerate(self.biases)}
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as handle:
            np.savez(handle, **arrays)
        full = dict(card, activation=self.activation, layers=len(self.weights),
                    observation_size=self.observation_size)
        card_path(path).write_text(json.dumps(full, indent=2) + "\n")

    @classmethod
    def load(cls, path: Path, ruleset_id: str, ruleset_version: str, observation_size: int) -> ValueNet:
        """Read a value file made for ``ruleset_id`` at ``ruleset_version`` reading ``observation_size`` values."""
        card = read_card(path)
        found = (card.get("ruleset"), card.get("ruleset_version"), card.get("observation_size"))
        if found != (ruleset_id, ruleset_version, observation_size):
            raise ValueFileError(f"{path}: made for ruleset {found[0]!r} version {found[1]!r} reading {found[2]} "
                                 f"values; this game is {ruleset_id!r} version {ruleset_version!r} with "
                                 f"{observation_size}: rebuild it (naval-tactics zoo value --ruleset "
                                 f"{ruleset_id})")
        layers = card.get("layers")
        if not isinstance(layers, int) or not 1 <= layers <= 8:
            raise ValueFileError(f"{path}: its card's 'layers' must be 1 to 8, got {layers!r}")
        try:
            with np.load(path, allow_pickle=False) as arrays:
                weights = tuple(np.asarray(arrays[f"weight_{i}"], dtype=np.float32) for i in range(layers))
                biases = tuple(np.asarray(arrays[f"bias_{i}"], dtype=np.float32) for i in range(layers))
        except (OSError, KeyError, ValueError) as exc:
            raise ValueFileError(f"{path}: not a value network file ({exc}); expected an .npz of "
                                 f"weight_0..weight_{layers - 1} and bias_0..bias_{layers - 1}") from None
        net = cls(weights, biases, str(card.get("activation", "tanh")))
        if net.observation_size != observation_size:
            raise ValueFileError(f"{path}: its first layer reads {net.observation_size} values, its card says "
                                 f"{observation_size}")
        return net


def card_path(path: Path) -> Path:
    return path.with_suffix(".json")


def read_card(path: Path) -> dict[str, object]:
    where = card_path(path)
    if not path.is_file() or not where.is_file():
        raise ValueFileError(f"no value network at {path} (with its card {where.name})")
    try:
        card = json.loads(where.read_text())
    except (OSError, ValueError) as exc:
        raise ValueFileError(f"{where}: not a JSON card ({exc})") from None
    if not isinstance(card, dict):
        raise ValueFileError(f"{where}: the card must be a JSON object, got {type(card).__name__}")
    return card


@dataclass(frozen=True)
class ValueLeaf:
    """The search's leaf from a value network: each side's mean value over its ships still fighting.

    A side's value is half its own estimate minus the mean of the others' (so both sides' estimates
    count and the values stay in [-1, 1]); a finished game gives its result. A side with no ship
    fighting counts as -1.
    """

    net: ValueNet

    def __call__(self, game: Game) -> Values:
        if game.is_over:
            return result_values(game)
        agents = [agent for agent in game.agents if game.is_active(agent)]
        if not agents:
            return netted_side_values(game, [], np.zeros(0, np.float32))
        return netted_side_values(game, agents, self.net(np.stack([game.observe(agent) for agent in agents])))
