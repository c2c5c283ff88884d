"""Where one training run goes: SB3 here (``local``), SB3 as a Ray task (``ray``) or RLlib (``rllib``)."""

from __future__ import annotations

from pathlib import Path

from naval_agents.training.config import TrainConfig
from naval_env.core.errors import ConfigError


def check_backend_address(config: TrainConfig, address: str | None) -> None:
    if address is not None and config.backend == "local":
        raise ConfigError(f"--address ({address!r}) names a Ray cluster to join, so it needs backend ray or "
                          "rllib, not 'local'; add --backend ray or drop --address")


def train_on_backend(config: TrainConfig, address: str | None = None) -> Path:
    """Train ``config`` where ``config.backend`` says; returns the run folder."""
    check_backend_address(config, address)
    if config.backend == "rllib":
        from naval_agents.training.rllib import train_rllib

        return train_rllib(config, address=address)
    if config.backend == "ray":
        return _train_on_ray(config, address)
    from naval_agents.training.run import train

    return train(config)


def _train_on_ray(config: TrainConfig, address: str | None) -> Path:
    """The SB3 run as one Ray task (on a cluster its run folder is written on the node that trains it)."""
    from naval_agents.distributed.ray_runtime import import_ray, ray_session
    from naval_agents.training.run import check_run, train

    check_run(config)   # refuse a bad config here, before a Ray starts
    import_ray()
    cpus = config.n_envs if config.vec_env == "subproc" else 1
    with ray_session(address, num_cpus=cpus) as ray:
        ref = ray.remote(train).options(num_cpus=cpus).remote(config)
        try:
            return Path(ray.get(ref))
        except ray.exceptions.RayTaskError as error:   # the run's own error, as the local backend raises it
            if isinstance(error.cause, Exception):
                raise error.cause from None
            raise
