"""The masked PPO RL module: SB3's ``MlpPolicy`` layers under SB3's names, and sb3-contrib's masking.

The layers and their state-dict keys are those of sb3-contrib's ``MaskableActorCriticPolicy`` with
``net_arch`` (separate tanh MLPs for policy and value, ``action_net``, ``value_net``), so the trained
weights load into the same policy a train.py run does, and every reader of run folders (evaluate.py,
the ONNX export and its parity check) serves both backends. Masking follows
``MaskableMultiCategorical``: each component's illegal logits become -1e8, each component is its own
categorical, and the log-probability of an action is the sum over components.
"""

from __future__ import annotations

import math
from typing import Any

import torch
from gymnasium import spaces
from ray.rllib.core.columns import Columns
from ray.rllib.core.distribution.torch.torch_distribution import TorchMultiCategorical
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule
from torch import nn

#: sb3-contrib's value for an illegal logit (``MaskableCategorical.apply_masking``).
ILLEGAL_LOGIT = -1e8
OBSERVATION, ACTION_MASK = "observation", "action_mask"


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` with every value the flat mask forbids set to -1e8, as sb3-contrib does."""
    return torch.where(mask.to(torch.bool), logits, torch.tensor(ILLEGAL_LOGIT, dtype=logits.dtype))


def _mlp(inputs: int, widths: list[int]) -> nn.Sequential:
    layers: list[nn.Module] = []
    for width in widths:
        layers += [nn.Linear(inputs, width), nn.Tanh()]
        inputs = width
    return nn.Sequential(*layers)


class _Extractor(nn.Module):
    """SB3's ``MlpExtractor`` (names ``policy_net``/``value_net``) for a list ``net_arch``."""

    def __init__(self, inputs: int, widths: list[int]) -> None:
        super().__init__()
        self.policy_net = _mlp(inputs, widths)
        self.value_net = _mlp(inputs, widths)


class MaskedPPOModule(TorchRLModule, ValueFunctionAPI):
    """Observations ``{"observation": float32[n], "action_mask": 0/1[flat]}``; actions MultiDiscrete.

    ``model_config``: ``{"net_arch": [widths]}``.
    """

    def setup(self) -> None:
        observation = self.observation_space
        if not isinstance(observation, spaces.Dict) or set(observation.spaces) != {OBSERVATION, ACTION_MASK}:
            raise ValueError(f"MaskedPPOModule needs a Dict observation space with keys {OBSERVATION!r} and "
                             f"{ACTION_MASK!r}, got {observation}")
        if not isinstance(self.action_space, spaces.MultiDiscrete):
            raise TypeError(f"MaskedPPOModule needs a MultiDiscrete action space, got {self.action_space}")
        settings = self.model_config if isinstance(self.model_config, dict) else {}
        net_arch = [int(w) for w in settings.get("net_arch", [64, 64])]
        size = spaces.flatdim(observation[OBSERVATION])
        self.nvec = [int(n) for n in self.action_space.nvec]
        self.mlp_extractor = _Extractor(size, net_arch)
        self.action_net = nn.Linear(net_arch[-1], sum(self.nvec))
        self.value_net = nn.Linear(net_arch[-1], 1)
        self._init_like_sb3()
        # RLlib types get_partial_dist_cls as taking an instance; it is a classmethod-style helper.
        self.action_dist_cls = TorchMultiCategorical.get_partial_dist_cls(input_lens=self.nvec)  # type: ignore[misc]

    def _init_like_sb3(self) -> None:
        """SB3's ``ortho_init``: orthogonal weights (gain sqrt 2 in the MLPs, 0.01 policy head, 1 value head)."""
        for module, gain in ((self.mlp_extractor, math.sqrt(2)), (self.action_net, 0.01), (self.value_net, 1.0)):
            for layer in module.modules():
                if isinstance(layer, nn.Linear):
                    nn.init.orthogonal_(layer.weight, gain=gain)
                    layer.bias.data.fill_(0.0)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        observation = batch[Columns.OBS]
        logits = self.action_net(self.mlp_extractor.policy_net(observation[OBSERVATION]))
        return {Columns.ACTION_DIST_INPUTS: masked_logits(logits, observation[ACTION_MASK])}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        features = self.mlp_extractor.value_net(batch[Columns.OBS][OBSERVATION])
        return self.value_net(features).squeeze(-1)

    def policy_state_dict(self) -> dict[str, torch.Tensor]:
        """The weights under sb3-contrib's ``MaskableActorCriticPolicy`` names, detached CPU copies."""
        return {key: value.detach().cpu().clone() for key, value in self.state_dict().items()}
