"""RLlib-only settings of a training run (``rllib:`` in a run config); PPO's own numbers stay in ``ppo:``.

Kept free of Ray imports so that every config validates where Ray is not installed.
"""

from __future__ import annotations

from pydantic import Field

from naval_env.core.config import StrictModel


class RLlibSettings(StrictModel):
    """How RLlib spreads a run: env runners (processes sampling games) and learners (processes updating).

    ``ppo.n_steps`` x ``num_env_runners`` x ``num_envs_per_env_runner`` is not used: RLlib collects
    ``train_batch_size`` timesteps per update, whatever the runners; ``ppo.batch_size`` is the minibatch
    and ``ppo.n_epochs`` the passes over it, as in the SB3 path.
    """

    num_env_runners: int = Field(default=2, ge=0, le=1024,
                                 description="sampling processes (Ray actors); 0 samples in the driver")
    num_envs_per_env_runner: int = Field(default=1, ge=1, le=64, description="games each runner steps at once")
    num_learners: int = Field(default=0, ge=0, le=256,
                              description="update processes (Ray actors, data-parallel); 0 updates in the driver")
    train_batch_size: int = Field(default=2048, ge=8, description="timesteps collected per PPO update")
    rollout_fragment_length: int | None = Field(
        default=None, ge=1, description="timesteps a runner steps per env before sending them; None: "
                                        "train_batch_size split evenly over all envs")
    num_cpus_per_env_runner: float = Field(default=1.0, gt=0, description="CPUs Ray reserves for each runner")
    vf_clip_param: float | None = Field(
        default=None, gt=0, description="clip of the value loss; None: not clipped, as SB3's default "
                                        "clip_range_vf=None")
    checkpoint_algorithm: bool = Field(
        default=False, description="also write RLlib's own checkpoint (for resuming with RLlib); no loader "
                                   "of this toolkit reads it, captains load from the plain weights")
