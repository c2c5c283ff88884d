"""The policy networks a training run saves and a run-folder captain rebuilds (torch): the masked actor-critic
(``masked_policy``) and the entity network over ship slots (``slot_network``)."""

#: The slot network's bounds, for a run config (``naval_agents.training.config``) and for a model file's
#: ``policy_kwargs.slots`` (``naval_agents.captains.model_files``) alike. Here, in the package and not in
#: ``slot_network``, so that reading them imports no torch.
SLOT_BOUNDS = {"width": (1, 1024), "heads": (1, 64), "layers": (0, 8)}
