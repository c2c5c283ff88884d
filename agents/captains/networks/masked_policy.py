"""MaskablePPO's policy with one flat tensor for all masked MultiDiscrete components.

sb3-contrib's ``MaskableMultiCategoricalDistribution`` builds one torch ``Categorical`` per component,
twice (before and after masking), at every rollout step and every minibatch: with ten components that
was 368,640 ``Categorical`` constructions (9.9 s of a 59 s profile) in a 51k-step pantheon run. Here
the flat masked logits (masked values at sb3-contrib's -1e8) are normalised per component with a few
index ops (per-segment max, sum of exponentials, log) on the one ``[batch, sum(nvec)]`` tensor, which
then serves log-probabilities, entropy, sampling and the mode. Padding to the widest component instead
does not pay: pantheon's ten components hold 3 to 170 values. Same distribution, same weights (state
dicts are interchangeable with ``MlpPolicy``'s).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.distributions import (
    MaskableCategorical,
    MaskableDistribution,
    MaybeMasks,
)
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn

#: sb3-contrib's logit for a masked value (``MaskableCategorical.apply_masking``).
MASKED_LOGIT = -1e8
#: Log-probabilities are clamped here before ``exp``: torch's CPU ``exp`` takes a slow path ~10x slower for
#: arguments whose result is 0 or subnormal (measured), and exp(-80) ~ 1.8e-35 is already nothing next to 1.
EXP_FLOOR = -80.0


def _exp(log_values: torch.Tensor) -> torch.Tensor:
    return log_values.clamp(min=EXP_FLOOR).exp()


class SegmentedMaskedMultiCategorical(MaskableDistribution):
    """A masked MultiDiscrete distribution held as one flat ``[batch, sum(nvec)]`` tensor of log-probabilities,
    each component normalised over its own segment of the row."""

    def __init__(self, action_dims: list[int]) -> None:
        super().__init__()
        self.action_dims = [int(n) for n in action_dims]
        sizes = np.asarray(self.action_dims)
        ends = np.cumsum(sizes)
        self._segments = list(zip((ends - sizes).tolist(), ends.tolist(), strict=True))
        component = np.repeat(np.arange(len(sizes)), sizes)
        self._component = torch.as_tensor(component)                                  # flat index -> component
        # [sum(nvec), components] membership: segment sums and their spread back are matrix products, whose
        # backward passes are matrix products too (index_select's backward, a scatter-add, was 10x slower).
        self._members = torch.as_tensor(component[:, None] == np.arange(len(sizes))[None, :], dtype=torch.float32)
        self._starts = torch.as_tensor(ends - sizes)                                  # component -> first index
        self._lasts = torch.as_tensor(ends - 1)                                       # component -> last index
        self._flat: torch.Tensor | None = None
        self._masks: torch.Tensor | None = None
        self._masked_logits: torch.Tensor | None = None
        self.log_p: torch.Tensor | None = None

    def proba_distribution_net(self, latent_dim: int) -> nn.Module:
        return nn.Linear(latent_dim, sum(self.action_dims))

    def proba_distribution(self, action_logits: torch.Tensor) -> SegmentedMaskedMultiCategorical:
        self._flat = action_logits.view(-1, sum(self.action_dims))
        self.apply_masking(None)
        return self

    def apply_masking(self, masks: MaybeMasks) -> None:
        assert self._flat is not None, "Must set distribution parameters"
        logits = self._flat
        if self._members.device != logits.device or self._members.dtype != logits.dtype:
            self._component, self._starts, self._lasts = (t.to(logits.device) for t in
                                                          (self._component, self._starts, self._lasts))
            self._members = self._members.to(device=logits.device, dtype=logits.dtype)
        if masks is None:
            self._masks = None
        else:
            self._masks = torch.as_tensor(masks, dtype=torch.bool, device=logits.device).view(logits.shape)
            # Arithmetic, not masked_fill or where: those take ~7x longer on boolean masks (measured).
            keep = self._masks.to(logits.dtype)
            logits = logits * keep + (keep - 1.0) * -MASKED_LOGIT
        self._masked_logits = logits
        # log-softmax per segment, shifted by the segment's max (no gradient needed through the shift).
        shift = self._per_segment(logits.detach(), torch.amax)
        shifted = logits - shift @ self._members.T
        sums = _exp(shifted) @ self._members
        self.log_p = shifted - sums.log() @ self._members.T

    def _per_segment(self, values: torch.Tensor, reduce: Any) -> torch.Tensor:
        """``reduce(segment, dim=1)`` of each component's segment, ``[batch, components]``."""
        return torch.stack([reduce(values[:, start:end], dim=1) for start, end in self._segments], dim=1)

    def _spread(self, per_component: torch.Tensor) -> torch.Tensor:
        """Each component's value at each of its segment's indices, ``[batch, sum(nvec)]``."""
        return torch.index_select(per_component, 1, self._component)

    def log_prob(self, actions: torch.Tensor) -> torch.Tensor:
        assert self.log_p is not None, "Must set distribution parameters"
        flat = actions.view(-1, len(self.action_dims)).long() + self._starts
        return self.log_p.gather(1, flat).sum(dim=1)

    def entropy(self) -> torch.Tensor:
        assert self.log_p is not None, "Must set distribution parameters"
        # A masked value has probability exp(EXP_FLOOR): each adds under 1e-26 (and no NaN).
        return -(_exp(self.log_p) * self.log_p).sum(dim=1)

    def sample(self) -> torch.Tensor:
        assert self.log_p is not None, "Must set distribution parameters"
        # Inverse CDF per segment, from one running sum over the whole row: a segment's cumulative
        # probabilities are the running sum less its value before the segment (the same float for a masked
        # value as for the one before it: it adds ~1e-35). The count of a segment's values whose cumulative
        # probability lies below u is the sampled index; u lies in [2**-24 total, total], so the first value
        # whose cumulative probability reaches u is never a masked one.
        running = _exp(self.log_p).cumsum(dim=1)
        ends = torch.index_select(running, 1, self._lasts)
        before = torch.cat([ends.new_zeros(ends.shape[0], 1), ends[:, :-1]], dim=1)   # running sum before each
        cumulative = running - self._spread(before)
        totals = torch.index_select(cumulative, 1, self._lasts)
        u = (1.0 - torch.rand(totals.shape, device=totals.device, dtype=totals.dtype)) * totals
        below = (cumulative < self._spread(u)).to(torch.int32).cumsum(dim=1)
        below_ends = torch.index_select(below, 1, self._lasts)
        return (below_ends - torch.cat([below_ends.new_zeros(below.shape[0], 1), below_ends[:, :-1]], dim=1)).long()

    def mode(self) -> torch.Tensor:
        assert self._masked_logits is not None, "Must set distribution parameters"
        # On the masked logits, not the log-probabilities: subtracting the normaliser can round two close
        # logits to one value and flip the choice away from what the ONNX export and numpy copy pick.
        return self._per_segment(self._masked_logits, torch.argmax)   # ties: the first

    def actions_from_params(self, action_logits: torch.Tensor, deterministic: bool = False) -> torch.Tensor:
        self.proba_distribution(action_logits)
        return self.get_actions(deterministic=deterministic)

    def log_prob_from_params(self, action_logits: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        actions = self.actions_from_params(action_logits)
        return actions, self.log_prob(actions)

    @property
    def distributions(self) -> list[MaskableCategorical]:
        """sb3-contrib's per-component categoricals of the same logits and masks (built on demand, for code
        that reads ``distribution.distributions[i].logits``, such as expert iteration's loss)."""
        assert self._flat is not None, "Must set distribution parameters"
        logits = torch.split(self._flat, self.action_dims, dim=1)
        masks: tuple[Any, ...] = ((None,) * len(self.action_dims) if self._masks is None
                                  else torch.split(self._masks, self.action_dims, dim=1))
        return [MaskableCategorical(logits=part, masks=mask) for part, mask in zip(logits, masks, strict=True)]


class SegmentedMaskablePolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` (what ``"MlpPolicy"`` names) with :class:`SegmentedMaskedMultiCategorical`
    for MultiDiscrete actions; every layer, name and weight is the same."""

    def __init__(self, observation_space: spaces.Space, action_space: spaces.Space, *args: Any,
                 slots: dict[str, Any] | None = None, **kwargs: Any) -> None:
        # ``slots`` (plain JSON, so a saved model rebuilds without unpickling): the entity network of
        # agents/captains/networks/slot_network.py in place of the flat input, its kwargs (layout, width, heads, layers).
        if slots is not None:
            from naval_agents.captains.networks.slot_network import SlotAttentionExtractor

            kwargs = {**kwargs, "features_extractor_class": SlotAttentionExtractor,
                      "features_extractor_kwargs": dict(slots)}
        super().__init__(observation_space, action_space, *args, **kwargs)
        if isinstance(action_space, spaces.MultiDiscrete):
            self.action_dist = SegmentedMaskedMultiCategorical(list(action_space.nvec))
