"""One way to start or join Ray for every command that offers ``--backend ray`` (or ``rllib``).

Local by default: ``ray.init()`` on this machine, shut down again when the command ends. With an address
(``--address ray://HOST:10001``, ``HOST:6379`` or ``auto``) the command joins an existing cluster and leaves
it running. Ray is an optional extra, so its absence is a clear error rather than an ImportError trace.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

from naval_env.core.errors import ConfigError

INSTALL_HINT = "Ray is not installed: pip install 'naval-tactics[ray]' (make setup installs it)"
#: The address forms ray.init takes: ``auto``, a head's GCS ``HOST:PORT`` or a Ray Client ``ray://HOST:PORT``.
ADDRESS = re.compile(r"^(auto|(ray://)?[A-Za-z0-9_.\-]+:[0-9]{1,5})$")


def check_address(address: str) -> None:
    """Refuse a malformed address before Ray spends minutes trying to reach it."""
    if not ADDRESS.match(address):
        raise ConfigError(f"bad Ray address {address!r}; allowed: auto, HOST:PORT (a head node, e.g. head:6379) "
                          "or ray://HOST:PORT (Ray Client, e.g. ray://head:10001)")


def import_ray() -> ModuleType:
    try:
        import ray
    except ImportError as error:
        raise ConfigError(INSTALL_HINT) from error
    return ray


def add_ray_arguments(parser: argparse.ArgumentParser, *, backends: tuple[str, ...], default: str) -> None:
    """``--backend`` and ``--address`` worded the same way in every command."""
    parser.add_argument("--backend", choices=backends, default=default,
                        help=f"where the work runs (default {default}); ray: as Ray tasks, on this machine "
                             "unless --address names a cluster")
    parser.add_argument("--address", default=None,
                        help="Ray cluster to join (e.g. ray://head:10001 or auto); default: a local Ray "
                             "started for this command and stopped after it")


@contextmanager
def ray_session(address: str | None = None, *, num_cpus: int | None = None) -> Iterator[ModuleType]:
    """Ray, initialised for the duration of the block; shut down at the end only if this block started it."""
    if address is not None:
        check_address(address)
    ray = import_ray()
    if ray.is_initialized():
        yield ray
        return
    options: dict[str, object] = {"include_dashboard": False, "log_to_driver": False,
                                  "configure_logging": False}
    if address is None:
        options["num_cpus"] = num_cpus or os.cpu_count() or 1
    try:
        ray.init(address=address, **options)
    except ConnectionError as error:
        raise ConfigError(f"cannot join the Ray cluster at {address!r}: {error}") from error
    try:
        yield ray
    finally:
        ray.shutdown()
