"""Built-in rulesets; importing this package registers them."""

from naval_env.rulesets import pantheon  # noqa: F401
