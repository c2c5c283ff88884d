"""A trained MlpPolicy's actor and critic (and slot network) as numpy arrays: one decision in microseconds, not milliseconds.

``policy.predict`` converts the observation to a tensor, runs three torch layers, builds the masked
distribution and converts back: about 2.7 ms a decision in a training run's quick evaluation (profiled,
2 busy cores), where the same matrix products in numpy take tens of microseconds. Quick evaluations
and the search captain's policy rollouts and proposals play through this copy. It is a snapshot: it
holds the weights as they were when it was made.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from torch import nn

from naval_agents.captains.base import Captain, Decision

ACTIVATIONS = {nn.Tanh: np.tanh, nn.ReLU: lambda x: np.maximum(x, 0.0)}


def _layers(net: nn.Module, where: str) -> list[tuple[np.ndarray, np.ndarray, Any]]:
    """(weight transposed, bias, activation or None) per Linear of a Sequential of Linear and activations."""
    modules = list(net) if isinstance(net, nn.Sequential) else [net]
    layers: list[tuple[np.ndarray, np.ndarray, Any]] = []
    for module in modules:
        if isinstance(module, nn.Linear):
            weight = module.weight.detach().cpu().numpy().astype(np.float32).T.copy()
            layers.append((weight, module.bias.detach().cpu().numpy().astype(np.float32).copy(), None))
        elif type(module) in ACTIVATIONS and layers:
            weight, bias, _ = layers[-1]
            layers[-1] = (weight, bias, ACTIVATIONS[type(module)])
        else:
            raise ValueError(f"{where}: a {type(module).__name__} layer has no numpy copy here; only Linear "
                             f"layers with {', '.join(a.__name__ for a in ACTIVATIONS)} activations")
    return layers


def _forward(layers: list[tuple[np.ndarray, np.ndarray, Any]], x: np.ndarray) -> np.ndarray:
    for weight, bias, activation in layers:
        x = x @ weight + bias
        if activation is not None:
            x = activation(x)
    return x


class NumpyPolicy:
    """The actor (``logits``) and critic (``values``) of an SB3 ``MaskableActorCriticPolicy`` with a flat
    observation (``MlpPolicy``), copied out of torch."""

    def __init__(self, policy: Any) -> None:
        from stable_baselines3.common.torch_layers import FlattenExtractor

        from naval_agents.captains.networks.slot_network import (
            NumpySlotFeatures,
            SlotAttentionExtractor,
        )

        features = policy.features_extractor
        if not isinstance(features, (FlattenExtractor, SlotAttentionExtractor)) \
                or not policy.share_features_extractor:
            raise ValueError(f"{type(policy).__name__}: only a flat observation with one shared "
                             "FlattenExtractor (SB3's MlpPolicy) or slot network has a numpy copy here")
        self.features = NumpySlotFeatures(features) if isinstance(features, SlotAttentionExtractor) else None
        extractor = policy.mlp_extractor
        self.actor = _layers(extractor.policy_net, "policy_net") + _layers(policy.action_net, "action_net")
        self.critic = _layers(extractor.value_net, "value_net") + _layers(policy.value_net, "value_net head")
        self.sizes = [int(n) for n in policy.action_space.nvec]
        self.offsets = np.concatenate([[0], np.cumsum(self.sizes)[:-1]]).astype(int).tolist()

    def logits(self, observations: np.ndarray) -> np.ndarray:
        """Unmasked flat logits, ``[batch, sum(sizes)]`` (or ``[sum(sizes)]`` for one observation)."""
        return _forward(self.actor, self._inputs(observations))

    def _inputs(self, observations: np.ndarray) -> np.ndarray:
        observations = np.asarray(observations, dtype=np.float32)
        return observations if self.features is None else self.features(observations)

    def values(self, observations: np.ndarray) -> np.ndarray:
        """The critic's value of each observation, ``[batch]``."""
        return _forward(self.critic, np.atleast_2d(self._inputs(observations)))[:, 0]

    def mode(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The most likely legal value of each component (ties: the first), as ``policy.predict(...,
        deterministic=True)`` chooses."""
        masked = np.where(mask, self.logits(observation), -np.inf)
        return np.array([int(np.argmax(masked[offset:offset + size]))
                         for offset, size in zip(self.offsets, self.sizes, strict=True)], dtype=np.int64)


class NumpyPolicyCaptain(Captain):
    """Plays a policy's most likely legal action through its :class:`NumpyPolicy` copy."""

    def __init__(self, policy: Any, name: str = "ppo") -> None:
        self.network = policy if isinstance(policy, NumpyPolicy) else NumpyPolicy(policy)
        self.name = name

    def act(self, decision: Decision) -> np.ndarray:
        return self.network.mode(decision.observation, decision.action_mask)
