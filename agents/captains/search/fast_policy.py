"""A shipped ONNX captain's actor as numpy matrices, for the search's rollouts: tens of microseconds a
decision where an onnxruntime call costs about a millisecond (measured in docs/search.md).

A search with the zoo network as its prior plays that network for every ship in every rollout, so
a rollout of 16 decisions costs 16 network calls: through onnxruntime most of a 250 ms budget goes
to the calls' fixed overhead. The shipped graphs are SB3 ``MlpPolicy`` actors exported by
``agents/export/onnx_export.py``: ``Flatten``, then ``Gemm``/``Tanh`` layers, then the masked
softmax and arg-max per component. This module reads the ``Gemm`` weights out of such a graph
(refusing any other shape with what it found) and plays the same arg-max, checked against
onnxruntime by ``tests/captains/test_search_root.py``. It needs ``onnx`` (already a dependency of the
export), not torch.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from naval_agents.captains.base import Captain, Decision

_ACTIVATIONS = {"Tanh": np.tanh, "Relu": lambda x: np.maximum(x, 0.0)}


class UnsupportedGraph(ValueError):
    """An ONNX graph that is not a plain MLP actor (a slot network, a hand-made graph)."""


class NumpyActor:
    """The MLP actor of an exported ONNX captain: flat logits, probabilities and greedy joint actions."""

    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray, object]], sizes: list[int]) -> None:
        self.layers = layers
        self.sizes = sizes
        self.offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int).tolist()

    @classmethod
    def from_onnx(cls, path: str | Path) -> NumpyActor:
        import onnx
        from onnx import numpy_helper

        model = onnx.load(str(path), load_external_data=False)
        graph = model.graph
        weights = {init.name: numpy_helper.to_array(init).astype(np.float32) for init in graph.initializer}
        layers: list[tuple[np.ndarray, np.ndarray, object]] = []
        nodes = list(graph.node)
        if not nodes or nodes[0].op_type != "Flatten":
            raise UnsupportedGraph(f"{path}: expected the exporter's MLP (Flatten, Gemm, ...); first node "
                                   f"{nodes[0].op_type if nodes else 'none'}")
        for node in nodes[1:]:
            if node.op_type == "Gemm":
                attributes = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
                if attributes.get("transA", 0) or attributes.get("alpha", 1.0) != 1.0 \
                        or attributes.get("beta", 1.0) != 1.0 or len(node.input) != 3 \
                        or node.input[1] not in weights or node.input[2] not in weights:
                    raise UnsupportedGraph(f"{path}: Gemm {node.name!r} is not a plain weight-and-bias layer")
                weight = weights[node.input[1]]
                weight = weight.T.copy() if attributes.get("transB", 0) else weight
                layers.append((weight, weights[node.input[2]], None))
            elif node.op_type in _ACTIVATIONS and layers and layers[-1][2] is None:
                weight, bias, _ = layers[-1]
                layers[-1] = (weight, bias, _ACTIVATIONS[node.op_type])
            else:
                break   # the head: masking, softmax and arg-max, which this class does itself
        if not layers:
            raise UnsupportedGraph(f"{path}: no Gemm layers after Flatten")
        logit_outputs = [o for o in graph.output if o.name.startswith("logits_")]
        sizes = [int(o.type.tensor_type.shape.dim[1].dim_value) for o in logit_outputs]
        if not sizes or sum(sizes) != layers[-1][0].shape[1] or any(s <= 0 for s in sizes):
            raise UnsupportedGraph(f"{path}: the logits outputs ({sizes}) do not split the last layer's "
                                   f"{layers[-1][0].shape[1]} values")
        return cls(layers, sizes)

    def logits(self, observations: np.ndarray) -> np.ndarray:
        """Flat unmasked logits ``[batch, sum(sizes)]``."""
        x = np.asarray(observations, dtype=np.float32)
        for weight, bias, activation in self.layers:
            x = x @ weight + bias
            if activation is not None:
                x = activation(x)   # type: ignore[operator]
        return x

    def greedy(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Each component's most likely allowed value, ``[batch, components]`` (the graph's ``action``)."""
        logits = self.logits(np.atleast_2d(observations))
        allowed = np.atleast_2d(np.asarray(masks)).astype(bool)
        scored = np.where(allowed, logits, -np.inf)
        return np.stack([np.argmax(scored[:, o:o + n], axis=1) for o, n in zip(self.offsets, self.sizes)], axis=1)

    def probabilities(self, observation: np.ndarray, mask: np.ndarray) -> list[np.ndarray]:
        """Softmax of each component's masked logits for one decision, exactly 0 where masked."""
        logits = self.logits(np.asarray(observation).reshape(1, -1))[0].astype(np.float64)
        allowed = np.asarray(mask).reshape(-1).astype(bool)
        result = []
        for offset, size in zip(self.offsets, self.sizes):
            scores = np.where(allowed[offset:offset + size], logits[offset:offset + size], -np.inf)
            weights = np.exp(scores - scores.max())
            result.append(weights / weights.sum())
        return result


class NumpyActorCaptain(Captain):
    """Plays a :class:`NumpyActor`'s greedy move: the ONNX captain's own move, at numpy speed."""

    needs_observation = True

    def __init__(self, actor: NumpyActor, name: str) -> None:
        self.actor = actor
        self.name = name

    def act(self, decision: Decision) -> np.ndarray:
        return self.actor.greedy(decision.observation, decision.action_mask)[0].astype(np.int64)

    def probabilities(self, decision: Decision) -> list[np.ndarray]:
        return self.actor.probabilities(decision.observation, decision.action_mask)


def fast_copy(captain: Captain) -> Captain:
    """A numpy copy of an ONNX MLP captain (same moves, faster), else the captain itself."""
    path = getattr(captain, "path", None)
    if path is None or not str(path).endswith(".onnx"):
        return captain
    try:
        return NumpyActorCaptain(NumpyActor.from_onnx(path), name=captain.name)
    except UnsupportedGraph:
        return captain
