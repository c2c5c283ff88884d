"""An entity network over the observation's ship slots: one token per ship, self-attention between them.

Every ruleset's observation is the observer's own block, then fixed-width slots (``ally0.*``,
``enemy2.*``, ``iceberg1.*``, ...), a sunk ship or an empty slot all zeros. An MLP must learn the same
reading of a ship once per slot; here one encoder per slot kind reads every slot of that kind, and an
attention layer lets each ship's token look at the others (who is near whom, who threatens whom), as
entity networks in the field do (AlphaStar's units, OpenAI Five's heroes). The tokens come out in slot
order and concatenated, so the MLP heads still know which slot is enemy slot k (the action codec's
target k). Empty slots are left out of attention and zeroed in the output.

The layout travels as plain JSON (``policy_kwargs["slots"]``), so a saved model is rebuilt without
unpickling anything (agents/captains/model_files.py).
"""

from __future__ import annotations

import math
import re
from itertools import pairwise
from typing import Any, cast

import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

#: ``ally0.present`` -> kind ``ally``, slot 0; a name without a slot index belongs to the observer's own block.
SLOT_FIELD = re.compile(r"^(?P<kind>[a-z_]+?)(?P<index>\d+)\.")


def slot_layout(observation_spec: Any) -> dict[str, Any]:
    """The observation's own block and slots as plain JSON: ``{"own": [[start, stop], ...], "slots":
    {kind: [[start, stop], ...]}}``, each slot one contiguous run of values, every slot of a kind as wide."""
    own: list[list[int]] = []
    slots: dict[str, dict[int, list[int]]] = {}
    position = 0
    for field in observation_spec.fields:
        start, stop = position, position + field.size
        position = stop
        match = SLOT_FIELD.match(field.name)
        if match is None:
            _extend(own, start, stop)
            continue
        runs = slots.setdefault(match["kind"], {})
        index = int(match["index"])
        if index in runs and runs[index][1] != start:
            raise ValueError(f"observation field {field.name!r}: slot {match['kind']}{index} is not contiguous")
        runs.setdefault(index, [start, start])[1] = stop
    layout = {"own": own, "slots": {kind: [runs[i] for i in sorted(runs)] for kind, runs in slots.items()}}
    check_layout(layout, position)
    return layout


def _extend(ranges: list[list[int]], start: int, stop: int) -> None:
    if ranges and ranges[-1][1] == start:
        ranges[-1][1] = stop
    else:
        ranges.append([start, stop])


def check_layout(layout: Any, observation_size: int) -> None:
    """Raise ValueError, naming the fault, unless ``layout`` covers ``observation_size`` values exactly once
    with an own block and equal-width slots per kind."""
    if not isinstance(layout, dict) or set(layout) != {"own", "slots"} or not isinstance(layout["slots"], dict):
        raise ValueError("a slot layout is {'own': [[start, stop], ...], 'slots': {kind: [[start, stop], ...]}}")
    ranges = [*_ranges(layout["own"], "own")]
    if not ranges:
        raise ValueError("a slot layout needs an own block (the observer's fields)")
    for kind, runs in layout["slots"].items():
        kind_ranges = _ranges(runs, f"slots.{kind}")
        if not isinstance(kind, str) or not kind_ranges:
            raise ValueError(f"slot kind {kind!r}: needs a name and at least one slot")
        if len({stop - start for start, stop in kind_ranges}) != 1:
            raise ValueError(f"slot kind {kind!r}: its slots differ in width")
        ranges += kind_ranges
    covered = sorted(ranges)
    if covered[0][0] != 0 or covered[-1][1] != observation_size or any(
            a[1] != b[0] for a, b in pairwise(covered)):
        raise ValueError(f"a slot layout must cover the {observation_size} observation values exactly once")


def _ranges(value: Any, where: str) -> list[tuple[int, int]]:
    if not isinstance(value, list) or not all(
            isinstance(r, list) and len(r) == 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in r)
            and 0 <= r[0] < r[1] for r in value):
        raise ValueError(f"slot layout {where}: a list of [start, stop] integer pairs, start < stop")
    return [(r[0], r[1]) for r in value]


def _own_indices(layout: dict[str, Any]) -> list[int]:
    return [i for start, stop in layout["own"] for i in range(start, stop)]


class AttentionBlock(nn.Module):
    """A pre-norm transformer block over the tokens; absent tokens are never attended to."""

    def __init__(self, width: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.norm_attention = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)
        self.norm_ffn = nn.LayerNorm(width)
        self.ffn = nn.Sequential(nn.Linear(width, 2 * width), nn.ReLU(), nn.Linear(2 * width, width))

    def forward(self, tokens: torch.Tensor, present: torch.Tensor) -> torch.Tensor:
        batch, count, width = tokens.shape
        head = width // self.heads
        q, k, v = self.qkv(self.norm_attention(tokens)).view(batch, count, 3, self.heads, head).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) / math.sqrt(head)
        scores = scores.masked_fill(~present[:, None, None, :], float("-inf"))
        mixed = (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(batch, count, width)
        tokens = tokens + self.out(mixed)
        return tokens + self.ffn(self.norm_ffn(tokens))


class SlotAttentionExtractor(BaseFeaturesExtractor):
    """Own block and every slot to ``width``-wide tokens, ``layers`` attention blocks, tokens concatenated."""

    # Declared for the type checker: nn.Module's __getattr__ types buffers and sub-modules as Tensor | Module.
    own_index: torch.Tensor
    own: nn.Sequential
    encoders: nn.ModuleDict
    blocks: nn.ModuleList

    def __init__(self, observation_space: spaces.Box, layout: dict[str, Any], width: int = 64, heads: int = 4,
                 layers: int = 1) -> None:
        check_layout(layout, int(np.prod(observation_space.shape)))
        if width % heads:
            raise ValueError(f"slot network width {width} is not a multiple of its {heads} heads")
        kinds = layout["slots"]
        super().__init__(observation_space, width * (1 + sum(len(runs) for runs in kinds.values())))
        self.kinds = list(kinds)
        self.register_buffer("own_index", torch.tensor(_own_indices(layout), dtype=torch.long), persistent=False)
        for kind, runs in kinds.items():
            index = torch.tensor([list(range(start, stop)) for start, stop in runs], dtype=torch.long)
            self.register_buffer(f"slot_index_{kind}", index, persistent=False)
        self.own = nn.Sequential(nn.Linear(len(self.own_index), width), nn.ReLU())
        self.encoders = nn.ModuleDict({kind: nn.Sequential(nn.Linear(runs[0][1] - runs[0][0], width), nn.ReLU())
                                       for kind, runs in kinds.items()})
        self.blocks = nn.ModuleList([AttentionBlock(width, heads) for _ in range(layers)])

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        tokens = [self.own(observations[:, self.own_index]).unsqueeze(1)]
        present = [torch.ones(observations.shape[0], 1, dtype=torch.bool, device=observations.device)]
        for kind in self.kinds:
            values = observations[:, getattr(self, f"slot_index_{kind}")]   # [batch, slots, slot width]
            tokens.append(self.encoders[kind](values))
            present.append((values != 0).any(dim=-1))
        stacked, mask = torch.cat(tokens, dim=1), torch.cat(present, dim=1)
        for block in self.blocks:
            stacked = block(stacked, mask)
        return (stacked * mask.unsqueeze(-1)).flatten(1)


# ---------------------------------------------------------------- the numpy copy (quick evaluations, rollouts)
def _linear(module: nn.Linear) -> tuple[np.ndarray, np.ndarray]:
    return (module.weight.detach().cpu().numpy().astype(np.float32).T.copy(),
            module.bias.detach().cpu().numpy().astype(np.float32).copy())


def _layer_norm(x: np.ndarray, norm: tuple[np.ndarray, np.ndarray, float]) -> np.ndarray:
    scale, shift, eps = norm
    mean = x.mean(axis=-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(variance + eps) * scale + shift


class NumpySlotFeatures:
    """:class:`SlotAttentionExtractor`'s forward in numpy (a snapshot of its weights), ``[batch, obs]`` in."""

    def __init__(self, extractor: SlotAttentionExtractor) -> None:
        self.own_index = extractor.own_index.cpu().numpy()
        self.own = _linear(cast(nn.Linear, extractor.own[0]))
        self.kinds = [(getattr(extractor, f"slot_index_{kind}").cpu().numpy(), _linear(cast(nn.Linear, cast(nn.Sequential, extractor.encoders[kind])[0])))
                      for kind in extractor.kinds]
        self.blocks = [self._block(cast(AttentionBlock, block)) for block in extractor.blocks]

    @staticmethod
    def _block(block: AttentionBlock) -> dict[str, Any]:
        def norm(layer: nn.LayerNorm) -> tuple[np.ndarray, np.ndarray, float]:
            return (layer.weight.detach().cpu().numpy().astype(np.float32),
                    layer.bias.detach().cpu().numpy().astype(np.float32), float(layer.eps))
        return {"heads": block.heads, "norm_attention": norm(block.norm_attention), "qkv": _linear(block.qkv),
                "out": _linear(block.out), "norm_ffn": norm(block.norm_ffn), "ffn_in": _linear(cast(nn.Linear, block.ffn[0])),
                "ffn_out": _linear(cast(nn.Linear, block.ffn[2]))}

    def __call__(self, observations: np.ndarray) -> np.ndarray:
        x = np.atleast_2d(np.asarray(observations, dtype=np.float32))
        weight, bias = self.own
        tokens = [np.maximum(x[:, self.own_index] @ weight + bias, 0.0)[:, None, :]]
        present = [np.ones((x.shape[0], 1), dtype=bool)]
        for index, (weight, bias) in self.kinds:
            values = x[:, index]
            tokens.append(np.maximum(values @ weight + bias, 0.0))
            present.append((values != 0).any(axis=-1))
        stacked, mask = np.concatenate(tokens, axis=1), np.concatenate(present, axis=1)
        for block in self.blocks:
            stacked = self._attend(stacked, mask, block)
        features = (stacked * mask[..., None]).reshape(x.shape[0], -1)
        return features if np.ndim(observations) > 1 else features[0]

    @staticmethod
    def _attend(tokens: np.ndarray, present: np.ndarray, block: dict[str, Any]) -> np.ndarray:
        batch, count, width = tokens.shape
        heads = block["heads"]
        head = width // heads
        weight, bias = block["qkv"]
        qkv = (_layer_norm(tokens, block["norm_attention"]) @ weight + bias).reshape(batch, count, 3, heads, head)
        q, k, v = qkv.transpose(2, 0, 3, 1, 4)
        scores = q @ k.transpose(0, 1, 3, 2) / np.float32(math.sqrt(head))
        scores = np.where(present[:, None, None, :], scores, -np.inf)
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        weights = scores / scores.sum(axis=-1, keepdims=True)
        mixed = (weights @ v).transpose(0, 2, 1, 3).reshape(batch, count, width)
        weight, bias = block["out"]
        tokens = tokens + mixed @ weight + bias
        weight_in, bias_in = block["ffn_in"]
        weight_out, bias_out = block["ffn_out"]
        hidden = np.maximum(_layer_norm(tokens, block["norm_ffn"]) @ weight_in + bias_in, 0.0)
        return (tokens + hidden @ weight_out + bias_out).astype(np.float32)
