"""Multi-seed training (train.py --seeds): grouped run folders, the spread summary, Ray = local, clear errors.

Runs are tiny (64 timesteps, a 6-game final evaluation); the Ray tests share one local Ray for the module.
"""

from __future__ import annotations

import io
import json
import statistics
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip("sb3_contrib")  # the [train] extra: without it this module is skipped
import torch

import naval_agents.training.run as run_module
from naval_agents.distributed.ray_runtime import INSTALL_HINT, ray_session
from naval_agents.training.backends import train_on_backend
from naval_agents.training.config import TrainConfig, load_train_config
from naval_agents.training.seeds import SUMMARY, SeedsSummary, train_seeds
from naval_env.core.errors import ConfigError
from naval_tactics.commands import train as command

pytestmark = pytest.mark.train

TINY = {"total_timesteps": 64, "n_envs": 1, "n_steps": 32, "batch_size": 32, "name": "tiny",
        "progress_bar": False}
TINY_FLAGS = ["--config", "pantheon", "--total-timesteps", "64", "--n-envs", "1", "--n-steps", "32",
              "--batch-size", "32", "--name", "tiny", "--no-progress-bar"]


def tiny_config(run_dir: Path) -> TrainConfig:
    config = load_train_config("pantheon", {**TINY, "run_dir": str(run_dir)})
    # Seeds 0 and 1 finish at different rates against rammer (0 and 1/3), so the spread is not zero.
    return config.model_copy(update={"eval": config.eval.model_copy(update={"games": 3, "opponent": "rammer"})})


def policy_weights(run_folder: str) -> dict[str, torch.Tensor]:
    with zipfile.ZipFile(Path(run_folder) / "final_model.zip") as archive:
        return torch.load(io.BytesIO(archive.read("policy.pth")), weights_only=True)


def same_weights(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


@pytest.fixture(scope="module")
def ray() -> Iterator[ModuleType]:
    pytest.importorskip("ray")  # the [ray] extra: without it the tests on Ray are skipped
    with ray_session(num_cpus=2) as ray:
        yield ray


@pytest.fixture(scope="module")
def local_seeds(tmp_path_factory: pytest.TempPathFactory) -> SeedsSummary:
    """Seeds 0 and 1 in two local processes."""
    return train_seeds(tiny_config(tmp_path_factory.mktemp("local")), [0, 1], workers=2)


def test_two_seeds_write_grouped_run_folders_and_the_spread(local_seeds: SeedsSummary) -> None:
    parent = Path(local_seeds.folder)
    assert parent.name.startswith("tiny-seeds-")
    assert sorted(p.name for p in parent.iterdir()) == ["seed-0", "seed-1", SUMMARY]
    rates = []
    for seed in (0, 1):
        manifest = json.loads((parent / f"seed-{seed}" / "run.json").read_text())
        assert manifest["status"] == "finished" and manifest["seed"] == seed
        assert manifest["final_quick_eval"]["games"] == 6
        rates.append(manifest["final_quick_eval"]["win_rate"])
    assert not same_weights(policy_weights(str(parent / "seed-0")), policy_weights(str(parent / "seed-1")))
    summary = json.loads((parent / SUMMARY).read_text())
    assert [(s["seed"], s["win_rate"], s["error"]) for s in summary["seeds"]] == [(0, rates[0], None),
                                                                                  (1, rates[1], None)]
    assert summary["summary"] == {
        "finished": 2, "failed": 0, "mean": statistics.fmean(rates), "std": statistics.stdev(rates),
        "std_is": "sample (n - 1)", "min": min(rates), "max": max(rates), "range": max(rates) - min(rates)}
    assert rates[0] != rates[1], "two seeds with one rate would not show the spread"
    assert summary["opponent"] == "rammer" and summary["games_per_seed"] == 6 and summary["backend"] == "local"


@pytest.mark.ray
def test_ray_backend_trains_each_seed_exactly_as_local(ray: ModuleType, local_seeds: SeedsSummary,
                                                       tmp_path: Path) -> None:
    on_ray = train_seeds(tiny_config(tmp_path), [0, 1], backend="ray", workers=2)
    assert on_ray.backend == "ray"
    assert [(o.seed, o.win_rate, o.error) for o in on_ray.outcomes] == \
        [(o.seed, o.win_rate, o.error) for o in local_seeds.outcomes]
    for mine, theirs in zip(on_ray.outcomes, local_seeds.outcomes, strict=True):
        assert same_weights(policy_weights(mine.folder), policy_weights(theirs.folder)), mine.seed


@pytest.mark.ray
def test_one_run_on_ray_is_the_local_run(ray: ModuleType, local_seeds: SeedsSummary, tmp_path: Path) -> None:
    """train.py --backend ray without --seeds: the SB3 run as one Ray task, the same run as here."""
    config = tiny_config(tmp_path).model_copy(update={"backend": "ray", "seed": 1, "progress_bar": False})
    folder = train_on_backend(config)
    assert folder.parent == tmp_path and folder.name.startswith("tiny-")
    manifest = json.loads((folder / "run.json").read_text())
    assert manifest["status"] == "finished"
    assert manifest["final_quick_eval"]["win_rate"] == local_seeds.outcomes[1].win_rate
    assert same_weights(policy_weights(str(folder)), policy_weights(local_seeds.outcomes[1].folder))


def test_a_failed_seed_is_reported_and_the_others_finish(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    real_train = run_module.train

    def train_failing_seed_1(config: TrainConfig, folder: Path | None = None) -> Path:
        if config.seed == 1:
            raise RuntimeError("the learner diverged")
        return real_train(config, folder)

    monkeypatch.setattr(run_module, "train", train_failing_seed_1)
    code = command.main([*TINY_FLAGS, "--run-dir", str(tmp_path), "--seeds", "0", "1", "--workers", "1"])
    out = capsys.readouterr().out
    assert code == 1
    assert "seed 1: failed" in out and "RuntimeError: the learner diverged" in out
    assert "std n/a (one seed)" in out and "over 1 finished seed(s)" in out
    [parent] = tmp_path.iterdir()
    summary = json.loads((parent / SUMMARY).read_text())
    assert [s["error"] for s in summary["seeds"]] == [None, "RuntimeError: the learner diverged"]
    assert summary["summary"]["finished"] == 1 and summary["summary"]["failed"] == 1
    assert summary["summary"]["std"] is None
    assert summary["summary"]["mean"] == summary["seeds"][0]["win_rate"]
    assert (parent / "seed-0" / "final_model.zip").is_file()


@pytest.mark.parametrize(("flags", "message"), [
    (["--seed", "1", "--seeds", "0", "1"], "argument --seeds: not allowed with argument --seed"),
    (["--workers", "2"], "--workers sets how many seeds train at once, so it needs --seeds"),
    (["--seeds", "0", "0"], "--seeds lists [0] more than once"),
    (["--seeds", "0", "-1"], "--seeds [-1]: each seed must be 0..4294967295"),
    (["--seeds", "0", "1", "--workers", "0"], "--workers must be at least 1, got 0"),
    (["--seeds", "0", "1", "--backend", "rllib"], "backend 'rllib' trains one seed per run"),
    (["--seeds", "0", "1", "--address", "head:6379"], "needs backend ray, not 'local'"),
    (["--address", "head:6379"], "needs backend ray or rllib, not 'local'"),
    (["--backend", "ray", "--address", "nowhere"], "bad Ray address 'nowhere'; allowed: auto, HOST:PORT"),
    (["--backend", "dask"], "argument --backend: invalid choice: 'dask' (choose from 'local', 'ray', 'rllib')"),
])
def test_bad_seed_and_backend_flags_are_refused(flags: list[str], message: str, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert _exit_code([*TINY_FLAGS, "--run-dir", str(tmp_path / "runs"), *flags]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "runs").exists(), "a refused command makes no folder"


def test_missing_ray_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)   # `import ray` now raises ImportError
    for flags in (["--backend", "ray"], ["--backend", "ray", "--seeds", "0", "1"], ["--backend", "rllib"]):
        assert command.main([*TINY_FLAGS, "--run-dir", str(tmp_path / "runs"), *flags]) == 2
        assert capsys.readouterr().err.strip() == f"naval-tactics train: error: {INSTALL_HINT}"
    assert not (tmp_path / "runs").exists()


def test_backend_is_a_config_key_the_flag_overrides(tmp_path: Path) -> None:
    path = tmp_path / "run.yaml"
    path.write_text("name: x\nruleset: pantheon\ntotal_timesteps: 10\nbackend: ray\n")
    assert load_train_config(path).backend == "ray"
    assert load_train_config(path, {"backend": "local"}).backend == "local"
    assert load_train_config("pantheon").backend == "local"
    path.write_text("name: x\nruleset: pantheon\ntotal_timesteps: 10\nbackend: dask\n")
    with pytest.raises(ConfigError, match="backend"):
        load_train_config(path)


def _exit_code(argv: list[str]) -> int | str | None:
    try:
        return command.main(argv)
    except SystemExit as exit_:
        return exit_.code
