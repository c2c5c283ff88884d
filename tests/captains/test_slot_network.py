"""The slot network (issue 29's entity network): its layout, what attention does, its numpy copy, its files."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")  # the [train] extra: without it this module is skipped
import torch

from naval_agents.captains.arena import play_game
from naval_agents.captains.learned import (
    MaskablePPOCaptain,
    ModelLoadError,
    load_policy,
    load_run_captain,
)
from naval_agents.captains.model_files import build_policy
from naval_agents.captains.networks.slot_network import (
    SlotAttentionExtractor,
    check_layout,
    slot_layout,
)
from naval_agents.captains.numpy_policy import NumpyPolicy
from naval_agents.captains.registry import make_captain
from naval_agents.training.config import load_train_config
from naval_agents.training.run import policy_kwargs, train
from naval_env.core.errors import ConfigError
from naval_env.core.ruleset import get_ruleset
from naval_env.envs.match import Match
from naval_env.envs.spaces import observation_box
from naval_env.rulesets.flotilla.observer import OTHER_FIELDS

pytestmark = pytest.mark.train

RULESETS = ["pantheon", "pursuit", "crew_phase", "flotilla", "broadside"]
SETTINGS = {"width": 16, "heads": 4, "layers": 1}
REQUIRED = "name: slots\nruleset: flotilla\ntotal_timesteps: 1000\n"   # what every run config names


def spaces_of(ruleset_id: str):
    ruleset = get_ruleset(ruleset_id)
    config = ruleset.load_config(None)
    return ruleset.observation_spec(config), ruleset.action_spec(config)


def test_flotilla_layout_is_the_own_block_then_four_ally_and_five_enemy_slots():
    observation_spec, _ = spaces_of("flotilla")
    layout = slot_layout(observation_spec)
    width = sum(f.size for f in OTHER_FIELDS)
    own = observation_spec.size - 9 * width
    assert layout["own"] == [[0, own]]
    assert layout["slots"]["ally"] == [[own + k * width, own + (k + 1) * width] for k in range(4)]
    assert layout["slots"]["enemy"] == [[own + (4 + k) * width, own + (5 + k) * width] for k in range(5)]
    assert observation_spec.slice("enemy2.present").start == layout["slots"]["enemy"][2][0]


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_every_rulesets_layout_covers_its_observation_once(ruleset_id):
    observation_spec, _ = spaces_of(ruleset_id)
    layout = slot_layout(observation_spec)
    check_layout(layout, observation_spec.size)   # raises on a gap or an overlap
    assert layout["slots"], "every ruleset's observation has ship slots"
    assert json.loads(json.dumps(layout)) == layout   # plain JSON, as a model zip stores it


@pytest.mark.parametrize(("layout", "message"), [
    ({"own": [[0, 4]], "slots": {"enemy": [[4, 8], [8, 10]]}}, "its slots differ in width"),
    ({"own": [[0, 4]], "slots": {"enemy": [[5, 10]]}}, "cover the 10 observation values exactly once"),
    ({"own": [[0, 6]], "slots": {"enemy": [[4, 10]]}}, "cover the 10 observation values exactly once"),
    ({"own": [], "slots": {"enemy": [[0, 10]]}}, "needs an own block"),
    ({"own": [[0, 4]], "slots": {"enemy": [[4, "x"]]}}, "integer pairs"),
    ({"own": [[0, 4]], "slots": {"enemy": [[4, 10]]}, "extra": 1}, "a slot layout is"),
])
def test_a_bad_layout_is_named(layout, message):
    with pytest.raises(ValueError, match=message):
        check_layout(layout, 10)


def extractor(layers: int = 1) -> SlotAttentionExtractor:
    observation_spec, _ = spaces_of("flotilla")
    torch.manual_seed(0)
    return SlotAttentionExtractor(observation_box(observation_spec), slot_layout(observation_spec), width=16,
                                  heads=4, layers=layers).eval()


def flotilla_observations(count: int) -> np.ndarray:
    """Real flotilla observations (every captain's, from a squadron game), so slots are present and absent."""
    match = Match("flotilla", scenario="squadron")
    match.reset(3)
    gunner = make_captain("gunner", "flotilla", match.action_spec)
    gunner.reset(3)
    observations: list[np.ndarray] = []
    game = match.game
    while not game.is_over and len(observations) < count:
        decision = match.decision(game.current_agent)
        observations.append(decision.observation)
        game.apply(decision.agent, gunner.act(decision))
    return np.stack(observations)


def tokens(network: SlotAttentionExtractor, observation: np.ndarray) -> torch.Tensor:
    with torch.no_grad():
        return network(torch.as_tensor(observation[None], dtype=torch.float32)).view(-1, 16)


def test_swapping_two_enemy_slots_swaps_their_tokens_and_nothing_else():
    network, observation = extractor(), flotilla_observations(1)[0]
    a, b = slot_layout(spaces_of("flotilla")[0])["slots"]["enemy"][:2]
    swapped = observation.copy()
    swapped[a[0]:a[1]], swapped[b[0]:b[1]] = observation[b[0]:b[1]], observation[a[0]:a[1]]
    before, after = tokens(network, observation), tokens(network, swapped)
    first_enemy = 1 + 4   # own token, four ally slots
    torch.testing.assert_close(after[first_enemy], before[first_enemy + 1])
    torch.testing.assert_close(after[first_enemy + 1], before[first_enemy])
    torch.testing.assert_close(after[0], before[0])   # the own token attends to a set: order does not matter


@pytest.mark.parametrize(("layers", "own_changes"), [(1, True), (0, False)])
def test_the_own_token_sees_an_enemy_only_through_attention(layers, own_changes):
    network, observation = extractor(layers), flotilla_observations(1)[0]
    start, stop = slot_layout(spaces_of("flotilla")[0])["slots"]["enemy"][0]
    assert observation[start:stop].any(), "enemy slot 0 holds a ship"
    moved = observation.copy()
    moved[start:stop] *= 0.5
    changed = not torch.allclose(tokens(network, observation)[0], tokens(network, moved)[0])
    assert changed is own_changes


def test_an_empty_slot_gives_a_zero_token_and_is_not_attended_to():
    network, observation = extractor(), flotilla_observations(1)[0]
    slots = slot_layout(spaces_of("flotilla")[0])["slots"]
    empty = [k for k, (start, stop) in enumerate(slots["ally"]) if not observation[start:stop].any()]
    assert empty, "a duel-sized squadron leaves ally slots empty"
    assert torch.count_nonzero(tokens(network, observation)[1 + empty[0]]) == 0
    # An all-zero slot's encoder output (relu of its bias) would differ from zero: the mask is what hides it.
    with torch.no_grad():
        assert torch.count_nonzero(network.encoders["ally"](torch.zeros(1, 59))) > 0


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_numpy_copy_gives_the_torch_policys_logits_and_values(ruleset_id):
    observation_spec, action_spec = spaces_of(ruleset_id)
    policy = build_policy(observation_spec, action_spec, [32, 32], {"layout": slot_layout(observation_spec),
                                                                    **SETTINGS})
    policy.set_training_mode(False)
    observations = np.random.default_rng(1).normal(size=(16, observation_spec.size)).astype(np.float32)
    start, stop = next(iter(slot_layout(observation_spec)["slots"].values()))[0]
    observations[:8, start:stop] = 0.0   # half the batch with its first slot empty
    with torch.no_grad():
        tensor = torch.as_tensor(observations)
        features = policy.extract_features(tensor, policy.features_extractor)
        logits = policy.action_net(policy.mlp_extractor.forward_actor(features)).numpy()
        values = policy.predict_values(tensor).numpy()[:, 0]
    copy = NumpyPolicy(policy)
    np.testing.assert_allclose(copy.logits(observations), logits, atol=1e-5)
    np.testing.assert_allclose(copy.values(observations), values, atol=1e-5)
    np.testing.assert_allclose(copy.logits(observations[3]), logits[3], atol=1e-5)


@pytest.mark.parametrize(("override", "message"), [
    ({"width": 30, "heads": 4}, "width 30 is not a multiple of heads 4"),
    ({"width": 4096}, "less than or equal to 1024"),
    ({"layers": -1}, "greater than or equal to 0"),
])
def test_bad_slot_settings_are_named(tmp_path, override, message):
    path = tmp_path / "run.yaml"
    path.write_text(f"{REQUIRED}ppo:\n  slots: {json.dumps(override)}\n")
    with pytest.raises(ConfigError, match=message):
        load_train_config(path)


def test_the_slot_network_is_refused_on_the_rllib_backend(tmp_path):
    path = tmp_path / "run.yaml"
    path.write_text(f"{REQUIRED}scenario: duel\nbackend: rllib\nppo:\n  slots: {{}}\n")
    with pytest.raises(ConfigError, match="ppo.slots .* need backend local or ray"):
        load_train_config(path)


@pytest.fixture(scope="module")
def slot_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real tiny flotilla run with the slot network: imitation, self-play snapshots, checkpoints."""
    config = load_train_config("configs/train/flotilla_slots.yaml", {
        "total_timesteps": 256, "n_envs": 2, "n_steps": 64, "batch_size": 64, "progress_bar": False,
        "run_dir": str(tmp_path_factory.mktemp("runs")), "name": "tiny_slots"})
    config = config.model_copy(update={
        "checkpoint_every": 128,
        "ppo": config.ppo.model_copy(update={"net_arch": [32], "n_epochs": 1,
                                             "slots": config.ppo.slots.model_copy(update=SETTINGS)}),
        "eval": config.eval.model_copy(update={"games": 1, "every": 128}),
        "imitation": config.imitation.model_copy(update={"decisions": 200}),
        "starts": config.starts.model_copy(update={
            "midgame": config.starts.midgame.model_copy(update={"games": 2})}),
        "opponents": config.opponents.model_copy(update={
            "self_play": config.opponents.self_play.model_copy(update={"snapshot_every": 128})}),
    })
    return train(config)


def test_a_slot_run_saves_its_network_as_plain_json_and_plays_after_loading(slot_run):
    with zipfile.ZipFile(slot_run / "final_model.zip") as archive:
        saved = json.loads(archive.read("data"))["policy_kwargs"]
    config = load_train_config(slot_run / "config.yaml")
    assert saved == policy_kwargs(config)
    assert saved["slots"]["layout"] == slot_layout(spaces_of("flotilla")[0])
    policy, _ = load_policy(slot_run, "flotilla")
    assert isinstance(policy.features_extractor, SlotAttentionExtractor)
    captain = load_run_captain(slot_run, "flotilla")
    match = Match("flotilla", scenario="squadron", illegal_action="raise")
    gunner = make_captain("gunner", "flotilla", match.action_spec)
    record = play_game(match, {"blue": captain, "red": gunner}, seed=11, keep_actions=True)
    assert record.decisions > 0 and (record.winner is not None or record.truncated or record.rounds > 0)
    through_torch = MaskablePPOCaptain(captain.model, name="torch", deterministic=True)
    assert captain.network is not None   # it played through its numpy copy, the same actions as torch's
    assert play_game(match, {"blue": through_torch, "red": gunner}, seed=11, keep_actions=True).actions \
        == record.actions


def rewrite_slots(run: Path, edit) -> None:
    path = run / "final_model.zip"
    with zipfile.ZipFile(path) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    data = json.loads(entries["data"])
    edit(data["policy_kwargs"]["slots"])
    entries["data"] = json.dumps(data).encode()
    with zipfile.ZipFile(path, "w") as archive:
        for name, content in entries.items():
            archive.writestr(name, content)


@pytest.mark.parametrize(("edit", "message"), [
    (lambda slots: slots.update(width=100_000), "slots.width is 100000; an integer from 1 to 1024"),
    (lambda slots: slots.update(heads=3), "width 16 is not a multiple of its 3 heads"),
    (lambda slots: slots.update(extra="x"), "must have exactly the keys layout, width, heads, layers"),
    (lambda slots: slots.update(layers=True), "slots.layers is True"),
    (lambda slots: slots["layout"]["slots"].pop("ally"), "slot layout is not ruleset flotilla"),
])
def test_a_model_files_bad_slot_settings_are_refused(slot_run, tmp_path, edit, message):
    copy = Path(shutil.copytree(slot_run, tmp_path / "copy", ignore=shutil.ignore_patterns("tb")))
    rewrite_slots(copy, edit)
    with pytest.raises(ModelLoadError, match=message):
        load_policy(copy, "flotilla")
