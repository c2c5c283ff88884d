"""naval-tactics' outward layer: the captain server, its Python client and the ``naval-tactics`` command.

It imports ``naval_env`` and ``agents``; neither imports it.
"""

__version__ = "0.1.0"
