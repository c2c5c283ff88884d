"""Run-time captains: what an app, the envs' ``opponent=`` and the server load to play.

The captain interface (``base``), the name registry (``registry``), the scripted captains (``scripted/``),
the search (``search/``), the shipped zoo captains and their levels (``zoo/``), ONNX exports
(``onnx_captain``, ``sidecar``), training-run captains (``learned``, ``loading``, ``model_files``,
``numpy_policy``, the policy networks in ``networks/``) and a game between captains (``arena``).

Nothing here imports the pipelines above it (training, evaluation, league, atlas, zoo building, export
building; ``tests/docs/test_layers.py`` checks it), and importing it loads no torch, stable-baselines3 or Ray: the
modules built on torch (``networks``, ``numpy_policy``, ``learned_rllib``) import it themselves, and the others
import those three only when a run folder or an RLlib checkpoint is loaded.
"""
