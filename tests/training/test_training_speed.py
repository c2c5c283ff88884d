"""The faster training paths compute what the slower ones did: the segmented masked distribution against
sb3-contrib's, the numpy policy against ``policy.predict``, and the quick evaluation against the torch
captain's games; and ``bench/train_throughput.py`` runs in a tiny mode."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")  # the [train] extra: without it this module is skipped
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.distributions import MaskableMultiCategoricalDistribution
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from naval_agents.captains.arena import play_game
from naval_agents.captains.learned import MaskablePPOCaptain
from naval_agents.captains.networks.masked_policy import (
    SegmentedMaskablePolicy,
    SegmentedMaskedMultiCategorical,
)
from naval_agents.captains.numpy_policy import NumpyPolicy, NumpyPolicyCaptain
from naval_agents.captains.registry import make_captain
from naval_agents.training.callbacks import QuickEvalCallback
from naval_agents.training.config import load_train_config
from naval_agents.training.run import make_vec_env
from naval_env.envs.match import Match

pytestmark = pytest.mark.train

DIMS = [3, 5, 7, 2, 9, 1, 4]
ROOT = Path(__file__).resolve().parents[2]


def random_case(batch: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    logits = (torch.randn(batch, sum(DIMS), generator=generator) * 3).requires_grad_(True)
    masks = torch.rand(batch, sum(DIMS), generator=generator) < 0.5
    offset = 0
    for size in DIMS:  # at least one legal value per component, as every codec's mask has
        masks[torch.arange(batch), offset + torch.randint(size, (batch,), generator=generator)] = True
        offset += size
    return logits, masks


def both(logits: torch.Tensor, masks: torch.Tensor | None):
    theirs = MaskableMultiCategoricalDistribution(DIMS).proba_distribution(logits)
    ours = SegmentedMaskedMultiCategorical(DIMS).proba_distribution(logits)
    theirs.apply_masking(masks)
    ours.apply_masking(masks)
    return theirs, ours


@pytest.mark.parametrize("masked", [True, False])
def test_segmented_distribution_matches_sb3_contrib(masked):
    logits, masks = random_case(64, seed=1)
    theirs, ours = both(logits, masks if masked else None)
    actions = ours.sample()
    torch.testing.assert_close(ours.log_prob(actions), theirs.log_prob(actions), atol=1e-4, rtol=1e-5)
    torch.testing.assert_close(ours.entropy(), theirs.entropy(), atol=1e-4, rtol=1e-5)
    assert torch.equal(ours.mode(), theirs.mode())
    loss_ours = ours.log_prob(actions).sum() + ours.entropy().sum()
    loss_theirs = theirs.log_prob(actions).sum() + theirs.entropy().sum()
    torch.testing.assert_close(torch.autograd.grad(loss_ours, logits)[0],
                               torch.autograd.grad(loss_theirs, logits)[0], atol=1e-4, rtol=1e-4)
    for mine, sb3 in zip(ours.distributions, theirs.distributions, strict=True):  # expert iteration's view
        torch.testing.assert_close(mine.logits, sb3.logits)


def test_samples_are_legal_and_follow_the_probabilities():
    logits, masks = random_case(4, seed=2)
    distribution = SegmentedMaskedMultiCategorical(DIMS).proba_distribution(logits.detach().repeat(5000, 1))
    distribution.apply_masking(masks.repeat(5000, 1))
    actions = distribution.sample().view(5000, 4, len(DIMS))
    offsets = np.concatenate([[0], np.cumsum(DIMS)[:-1]])
    for row in range(4):
        for component, (offset, size) in enumerate(zip(offsets, DIMS, strict=True)):
            drawn = actions[:, row, component]
            assert masks[row, offset + drawn].all(), "a masked value was sampled"
            expected = torch.softmax(torch.where(masks[row, offset:offset + size], logits[row, offset:offset + size],
                                                 torch.tensor(-1e8)), 0).detach()
            seen = torch.bincount(drawn, minlength=size).float() / 5000
            assert (seen - expected).abs().max() < 0.03


def pursuit_model(seed: int = 0) -> MaskablePPO:
    config = load_train_config("pursuit", {"n_envs": 2, "n_steps": 32, "batch_size": 64, "seed": seed})
    return MaskablePPO(SegmentedMaskablePolicy, make_vec_env(config), n_steps=32, batch_size=64, seed=seed,
                       policy_kwargs={"net_arch": [32, 32]}, device="cpu")


def test_segmented_policy_has_the_mlp_policys_weights():
    model = pursuit_model()
    plain = MaskableActorCriticPolicy(model.observation_space, model.action_space, lambda _: 0.0, net_arch=[32, 32])
    plain.load_state_dict(model.policy.state_dict())   # same names and shapes, strict
    obs = torch.as_tensor(np.stack([model.observation_space.sample() for _ in range(8)]))
    masks = np.ones((8, int(sum(model.action_space.nvec))), dtype=bool)
    assert torch.equal(model.policy.get_distribution(obs, masks).mode(), plain.get_distribution(obs, masks).mode())


def test_numpy_policy_chooses_as_predict_does():
    model = pursuit_model(seed=3)
    match = Match("pursuit", None, None)
    rng = np.random.default_rng(0)
    network = NumpyPolicy(model.policy)
    torch_values = model.policy.predict_values(torch.as_tensor(np.stack([match.observation_spec.size * [0.5]]),
                                                               dtype=torch.float32))
    np.testing.assert_allclose(network.values(np.full(match.observation_spec.size, 0.5)),
                               torch_values.detach().numpy()[:, 0], rtol=1e-4, atol=1e-5)
    for _ in range(200):
        observation = rng.normal(size=match.observation_spec.size).astype(np.float32)
        mask = rng.random(match.action_spec.flat_size) < 0.6
        for offset, size in zip(network.offsets, network.sizes, strict=True):
            mask[offset + rng.integers(size)] = True
        expected, _ = model.predict(observation, action_masks=mask, deterministic=True)
        assert np.array_equal(network.mode(observation, mask), expected)


def test_quick_evaluation_plays_the_games_the_torch_captain_played(tmp_path):
    model = pursuit_model(seed=4)
    match = Match("pursuit", None, None, "raise")
    evaluator = QuickEvalCallback(match, "hunter", games=4, every=10**9, run_folder=tmp_path, seed=0)
    evaluator.init_callback(model)
    counts = evaluator.play()
    torch_captain = MaskablePPOCaptain(model, name="learner")
    numpy_captain = NumpyPolicyCaptain(model.policy, name="learner")
    opponent = make_captain("hunter", "pursuit", match.action_spec)
    expected = {"wins": 0, "draws": 0, "losses": 0}
    for i in range(4):
        for side in match.game.sides:
            records = []
            for learner in (torch_captain, numpy_captain):
                captains = {s: learner if s == side else opponent for s in match.game.sides}
                records.append(play_game(match, captains, 10_000_000 + i, keep_events=False, keep_actions=True))
            assert records[0].actions == records[1].actions and records[0].winner == records[1].winner
            winner = records[0].winner
            expected["draws" if winner is None else "wins" if winner == side else "losses"] += 1
    assert counts == expected


def test_numpy_policy_refuses_what_it_cannot_copy():
    model = pursuit_model()
    model.policy.mlp_extractor.policy_net.append(torch.nn.Dropout())
    with pytest.raises(ValueError, match="Dropout"):
        NumpyPolicy(model.policy)


def test_numpy_captain_acts_behind_the_captain_interface():
    model = pursuit_model()
    match = Match("pursuit", None, None)
    match.reset(seed=0)
    decision = match.decision(match.game.current_agent)
    action = NumpyPolicyCaptain(model.policy).act(decision)
    match.action_spec.check(action, decision.action_mask)   # raises on an illegal action


def test_train_throughput_bench_runs_in_a_tiny_mode(tmp_path):
    out = tmp_path / "rows.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "train_throughput.py"), "--rulesets", "pursuit", "--kinds", "env",
         "reference", "--n-steps", "8", "--env-steps", "50", "--reference-iterations", "2",
         "--baseline", str(ROOT), "--json", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    assert "| pursuit |" in done.stdout and "failed" not in done.stdout
    (row,) = json.loads(out.read_text())
    assert row["env"] > 0 and row["env_baseline"] > 0 and row["reference"] > 0


def test_train_throughput_bench_names_bad_lengths():
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "train_throughput.py"), "--short-rollouts", "3",
                           "--long-rollouts", "3"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "--short-rollouts < --long-rollouts" in done.stderr


def test_policy_value_leaf_reads_the_value_head_as_torch_does():
    from naval_agents.training.expert_iteration import PolicyValue

    model = pursuit_model(seed=5)
    match = Match("pursuit", None, None)
    match.reset(seed=3)
    game = match.game
    values = PolicyValue(model.policy)(game)
    agents = [a for a in game.agents if game.health(a)[0] > 0]
    with torch.no_grad():
        raw = model.policy.predict_values(torch.as_tensor(np.stack([game.observe(a) for a in agents])))
    by_side = {side: float(np.mean([min(max(float(v), -1.0), 1.0) for a, v in zip(agents, raw.flatten(), strict=True)
                                    if game.side_of(a) == side])) for side in game.sides}
    assert set(values) == set(game.sides)
    for side, value in values.items():
        others = [v for s, v in by_side.items() if s != side]
        assert value == pytest.approx((by_side[side] - sum(others) / len(others)) / 2, abs=1e-5)


def test_decision_costs_times_the_search_captain():
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "decision_costs.py"), "--search", "--ruleset",
                           "pursuit", "--positions", "1", "--simulations", "2"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    row = next(line for line in done.stdout.splitlines() if line.startswith("| pursuit |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert all(float(c.replace(",", "")) > 0 for c in cells[1:4]) and cells[4].endswith("x")


@pytest.mark.parametrize("draw", [1.0 - 2.0**-24, 0.0])   # u at its smallest and at its largest
def test_extreme_uniform_draws_never_pick_a_masked_value(monkeypatch, draw):
    logits, _ = random_case(256, seed=6)
    masks = torch.ones(256, sum(DIMS), dtype=torch.bool)
    offset = 0
    for size in DIMS:   # mask each component's first and last value where it has three or more
        if size >= 3:
            masks[:, offset] = masks[:, offset + size - 1] = False
        offset += size
    distribution = SegmentedMaskedMultiCategorical(DIMS).proba_distribution(logits.detach())
    distribution.apply_masking(masks)
    monkeypatch.setattr(torch, "rand", lambda shape, **kw: torch.full(shape, draw, **kw))
    actions = distribution.sample()
    starts = torch.as_tensor(np.concatenate([[0], np.cumsum(DIMS)[:-1]]))
    assert masks.gather(1, actions + starts).all()
