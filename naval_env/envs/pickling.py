"""What lets every env pickle: a reducer for the one standard-library type an engine keeps that cannot.

Envs are sent between processes whole (subprocess vector envs started with ``spawn``, SuperSuit's
``concat_vec_envs_v1``, Ray), so everything a game holds must pickle. The pursuit observer keeps a
``struct.Struct``'s bound ``pack`` (observations packed in one call); a bound method pickles as its object
and name, and ``struct.Struct`` itself has no reducer. This one rebuilds it from its format, which is
all a Struct is. Registered when ``naval_env.envs`` is imported, which importing ``naval_env`` does.
"""

from __future__ import annotations

import copyreg
import struct
from typing import Any


def _reduce_struct(packer: struct.Struct) -> tuple[Any, tuple[str]]:
    return struct.Struct, (packer.format,)


copyreg.pickle(struct.Struct, _reduce_struct)
