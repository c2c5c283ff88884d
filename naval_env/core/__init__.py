"""The contract every ruleset shares: dice, events, specs, config loading, the Game and the registry."""
