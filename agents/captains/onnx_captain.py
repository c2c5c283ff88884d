"""A captain that plays from an ONNX export with onnxruntime and numpy only (no torch, no pickles).

Loading refuses, with :class:`naval_agents.captains.learned.ModelLoadError`, anything it cannot
vouch for: a file that is not an ONNX model, a missing or invalid sidecar, a sidecar
whose sha256 is not the file's, external-data files (weights kept beside the graph) that
lie outside the model's folder (checked before onnxruntime reads any) or that the sidecar
does not list with their sha256, another ruleset or ruleset version, an unknown sidecar
format version, and observation/action layouts that differ from the ruleset's current
specs or from the graph's own inputs and outputs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime as ort

from naval_agents.captains.base import Captain, Decision
from naval_agents.captains.learned import ModelLoadError
from naval_agents.captains.sidecar import (
    INPUT_MASK,
    INPUT_OBSERVATION,
    LOGITS_PREFIX,
    OUTPUT_ACTION,
    external_data_files,
    read_sidecar,
    sha256_file,
)
from naval_env.core.ruleset import get_ruleset


def mask_input(action_mask: Any) -> np.ndarray:
    """The graph's ``action_mask`` input from a mask as an env gives it: bool (the Gymnasium env's
    ``action_masks()``, ``info["action_mask"]`` and ``obs["action_mask"]``), int8 (PettingZoo's
    ``obs["action_mask"]``) or already float32, one mask or a batch. Nonzero means allowed; the graph
    takes float32 1.0/0.0 (its ``log`` of the mask is what sets illegal logits to -inf)."""
    mask = np.asarray(action_mask)
    if mask.dtype.kind not in "biuf":
        raise TypeError(f"action_mask has dtype {mask.dtype}; expected bool, an integer or a float type (0 = forbidden)")
    if mask.ndim == 0:
        raise ValueError("action_mask is a scalar; expected the flat mask (one value per component value) or a batch")
    return (mask != 0).astype(np.float32).reshape(-1, mask.shape[-1])


def onnx_inputs(observation: Any, action_mask: Any) -> dict[str, np.ndarray]:
    """The feed dict of an exported graph (``session.run(None, onnx_inputs(obs["observation"],
    obs["action_mask"]))``) from one observation and mask as an env gives them, or a batch of each: float32
    arrays of shape ``[batch, n]``, the mask cast by :func:`mask_input`."""
    observations = np.asarray(observation, dtype=np.float32)
    return {INPUT_OBSERVATION: observations.reshape(-1, observations.shape[-1]), INPUT_MASK: mask_input(action_mask)}


def _session(path: Path, threads: int) -> ort.InferenceSession:
    options = ort.SessionOptions()
    # One decision at a time is the common case; extra threads only add hand-off latency there.
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    try:
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # noqa: BLE001 - onnxruntime raises several types for unreadable graphs
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ModelLoadError(f"{path}: not a valid ONNX model ({first_line})") from None


def _inside_folder(path: Path, name: str) -> Path:
    """The external-data file ``name`` of the graph at ``path``, refused unless it is a plain relative
    name that stays (links followed) inside the graph's folder."""
    folder = path.resolve().parent
    target = (folder / name).resolve()
    if not name or Path(name).is_absolute() or ".." in Path(name).parts or not target.is_relative_to(folder):
        raise ModelLoadError(f"{path}: the graph loads external data from {name!r}, outside its folder {folder}; "
                             "external-data files must lie beside the .onnx")
    return target


def _check_external_data(path: Path, loaded: list[str], listed: list[dict[str, str]]) -> None:
    """Every external-data file the graph loads is listed in the sidecar with the sha256 it has now."""
    recorded = {entry["file"]: entry["sha256"] for entry in listed}
    for name in loaded:
        if name not in recorded:
            raise ModelLoadError(f"{path}: the graph loads external data {name!r}, which its sidecar does not list "
                                 "with a sha256 (onnx.external_data); re-export it with `python -m naval_agents.export`")
        actual = sha256_file(_inside_folder(path, name))
        if actual != recorded[name]:
            raise ModelLoadError(f"{path}: external data {name!r}: sha256 {actual[:12]}... does not match its sidecar "
                                 f"({recorded[name][:12]}...); the weights were modified or come from another export")


class OnnxCaptain(Captain):
    """Plays the exported policy's deterministic choice; ``evaluate`` gives batched logits too."""

    needs_observation = True

    def __init__(self, path: str | Path, expected_ruleset: str | None = None,
                 expected_version: str | None = None, *, config: Any = None, threads: int = 1) -> None:
        """``config``: the ruleset config (object or path) of the games it will play, whose
        observation and action layouts the export must match; default: the ruleset's default."""
        path = Path(path)
        if not path.is_file():
            raise ModelLoadError(f"{path}: no such ONNX file")
        self.path = path
        self.name = f"onnx:{path.stem}"
        external = external_data_files(path) or []
        for name in external:   # before onnxruntime opens any of them
            _inside_folder(path, name)
        self._threads = threads
        self._open_session: ort.InferenceSession | None = _session(path, threads)
        sidecar = read_sidecar(path)
        self.sidecar: dict[str, Any] = sidecar

        recorded, actual = sidecar["onnx"]["sha256"], sha256_file(path)
        if recorded != actual:
            raise ModelLoadError(
                f"{path}: sha256 {actual[:12]}... does not match its sidecar ({recorded[:12]}...); "
                "the .onnx and .json come from different exports or one was modified"
            )
        _check_external_data(path, external, sidecar["onnx"].get("external_data", []))

        self.ruleset_id: str = sidecar["ruleset"]["id"]
        self.ruleset_version: str = sidecar["ruleset"]["version"]
        if expected_ruleset is not None and self.ruleset_id != expected_ruleset:
            raise ModelLoadError(f"{path}: exported for ruleset {self.ruleset_id!r}, not {expected_ruleset!r}")
        try:
            ruleset = get_ruleset(self.ruleset_id)
        except KeyError as exc:
            raise ModelLoadError(f"{path}: sidecar names {exc.args[0]}") from None
        wanted_version = expected_version if expected_version is not None else ruleset.version
        if self.ruleset_version != wanted_version:
            raise ModelLoadError(
                f"{path}: exported for {self.ruleset_id} ruleset version {self.ruleset_version!r}, "
                f"but version {wanted_version!r} is expected; re-train or re-export for this version"
            )
        if config is None or isinstance(config, (str, Path)):
            config = ruleset.load_config(config)
        self._check_layout(sidecar, ruleset.observation_spec(config).to_json(),
                           ruleset.action_spec(config).to_json(), f"{self.ruleset_id} {ruleset.version}")

        self.observation_size = int(sidecar["observation"]["size"])
        self.flat_mask_size = int(sidecar["action"]["flat_mask_size"])
        self.component_names: tuple[str, ...] = tuple(c["name"] for c in sidecar["action"]["components"])
        self._logit_names = [f"{LOGITS_PREFIX}{n}" for n in self.component_names]
        self._check_graph()

    # ------------------------------------------------------------- pickling
    # An onnxruntime session cannot be pickled or deep-copied, and envs holding this captain as an opponent
    # must be (subprocess vector envs with spawn, SuperSuit, Ray). A copy drops the session and opens its
    # file again on first use, after checking the file is still the one this captain was loaded from.
    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_open_session"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    @property
    def _session(self) -> ort.InferenceSession:
        if self._open_session is None:
            self._open_session = self._reopen()
        return self._open_session

    def _reopen(self) -> ort.InferenceSession:
        """The session of a copy: the same file, refused unless its sha256 (and its external data's) still
        match the sidecar read when the captain was first loaded."""
        recorded, actual = self.sidecar["onnx"]["sha256"], sha256_file(self.path)
        if recorded != actual:
            raise ModelLoadError(f"{self.path}: sha256 {actual[:12]}... is no longer the {recorded[:12]}... this "
                                 "captain was loaded with; the file changed (or is another file) where the copy "
                                 "was unpickled")
        external = external_data_files(self.path) or []
        for name in external:
            _inside_folder(self.path, name)
        _check_external_data(self.path, external, self.sidecar["onnx"].get("external_data", []))
        return _session(self.path, self._threads)

    # ---------------------------------------------------------------- checks
    def _check_layout(self, sidecar: dict[str, Any], obs_fields: list[dict[str, Any]],
                      components: list[dict[str, Any]], ruleset_name: str) -> None:
        obs_size = sum(f["size"] for f in obs_fields)
        if sidecar["observation"]["size"] != obs_size:
            raise ModelLoadError(
                f"{self.path}: observation size {sidecar['observation']['size']} in the sidecar, but "
                f"ruleset {ruleset_name} observations have {obs_size} values"
            )
        mine = [(f.get("name"), f.get("offset"), f.get("size")) if isinstance(f, dict) else (None,) * 3
                for f in sidecar["observation"]["fields"]]
        theirs = [(f["name"], f["offset"], f["size"]) for f in obs_fields]
        if mine != theirs:
            where = next((i for i, (a, b) in enumerate(zip(mine, theirs)) if a != b), min(len(mine), len(theirs)))
            raise ModelLoadError(
                f"{self.path}: observation layout differs from ruleset {ruleset_name} at field {where} "
                f"(sidecar {mine[where] if where < len(mine) else None}, "
                f"ruleset {theirs[where] if where < len(theirs) else None})"
            )
        mine_c = [(c["name"], c["size"]) for c in sidecar["action"]["components"]]
        theirs_c = [(c["name"], c["size"]) for c in components]
        flat = sum(size for _, size in theirs_c)
        if mine_c != theirs_c or sidecar["action"]["flat_mask_size"] != flat:
            raise ModelLoadError(
                f"{self.path}: action components {mine_c} (flat mask {sidecar['action']['flat_mask_size']}) "
                f"in the sidecar, but ruleset {ruleset_name} has {theirs_c} (flat mask {flat})"
            )

    def _check_graph(self) -> None:
        inputs = {i.name: i for i in self._session.get_inputs()}
        outputs = {o.name: o for o in self._session.get_outputs()}
        expected_inputs = {INPUT_OBSERVATION: self.observation_size, INPUT_MASK: self.flat_mask_size}
        for name, size in expected_inputs.items():
            node = inputs.get(name)
            if node is None or node.type != "tensor(float)" or node.shape[-1] != size:
                found = None if node is None else f"{node.type} {node.shape}"
                raise ModelLoadError(
                    f"{self.path}: graph input {name!r} should be float32 [batch, {size}], found {found}"
                )
        for name in [*self._logit_names, OUTPUT_ACTION]:
            if name not in outputs:
                raise ModelLoadError(f"{self.path}: graph has no output {name!r}; outputs: {sorted(outputs)}")

    # ---------------------------------------------------------------- play
    def act(self, decision: Decision) -> np.ndarray:
        feed = onnx_inputs(decision.observation, decision.action_mask)
        observation, mask = feed[INPUT_OBSERVATION], feed[INPUT_MASK]
        if observation.shape != (1, self.observation_size) or mask.shape != (1, self.flat_mask_size):
            raise ValueError(
                f"{self.name}: got observation of {observation.size} and mask of {mask.size} values; "
                f"expected {self.observation_size} and {self.flat_mask_size}"
            )
        (action,) = self._session.run([OUTPUT_ACTION], feed)
        return action[0]

    def predict(self, observation: Any, action_mask: Any) -> np.ndarray:
        """The policy's choice for an observation and mask exactly as an env returns them (the Gymnasium
        env's bool mask, PettingZoo's int8 one, or float32): one action ``[n_components]``, or ``[batch,
        n_components]`` for a batch."""
        actions, _ = self.evaluate(observation, action_mask)
        return actions if np.ndim(observation) > 1 else actions[0]

    def probabilities(self, decision: Decision) -> list[np.ndarray]:
        """Softmax of each component's masked logits: the policy's probabilities, exactly 0 where masked."""
        mask = np.asarray(decision.action_mask, dtype=bool).reshape(-1)
        _, logits = self.evaluate(np.asarray(decision.observation, dtype=np.float32).reshape(1, -1),
                                  mask.reshape(1, -1).astype(np.float32))
        result = []
        offset = 0
        for component_logits in logits:
            allowed = mask[offset: offset + component_logits.shape[1]]
            offset += component_logits.shape[1]
            scores = np.where(allowed, component_logits[0].astype(np.float64), -np.inf)
            weights = np.exp(scores - scores.max())
            result.append(weights / weights.sum())
        return result

    def evaluate(self, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
        """Batched: actions ``[n, n_components]`` and the masked logits of every component (masks of any
        dtype an env gives, see :func:`mask_input`)."""
        results = self._session.run([OUTPUT_ACTION, *self._logit_names], onnx_inputs(observations, masks))
        return results[0], list(results[1:])
