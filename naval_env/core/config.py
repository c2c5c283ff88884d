"""Loading and validating YAML configs with pydantic; errors name the file, the field and what is allowed."""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any, Generic, Self, TypeVar, get_args

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from naval_env.core.errors import ConfigError
from naval_env.core.model_keys import allowed_keys

#: The shipped configs (``rulesets/<id>.yaml``, ``train/<name>.yaml``). In the repository ``naval_env/configs`` links
#: to ``configs/``; an installed wheel carries copies, so they are found wherever the package is.
BUNDLED_CONFIGS = Path(str(files("naval_env") / "configs"))

ModelT = TypeVar("ModelT", bound=BaseModel)
ScenarioT = TypeVar("ScenarioT", bound=BaseModel)


class StrictModel(BaseModel):
    """Base of every config model: unknown keys are errors, loaded configs are frozen, numbers are finite
    (no NaN or infinity) and a boolean is never read as a number (pydantic alone reads ``true`` as 1)."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    @field_validator("*", mode="before")
    @classmethod
    def _no_bool_for_a_number(cls, value: Any, info: ValidationInfo) -> Any:
        if not _field_admits_bool(cls, info.field_name or "") and _holds_bool(value):
            raise ValueError("a boolean where a number is expected; write the number (1 or 0), not true or false")
        return value


@cache  # runs for every field of every config loaded: look each field's type up once
def _field_admits_bool(model: type[BaseModel], name: str) -> bool:
    field = model.model_fields.get(name)
    return field is None or _admits_bool(field.annotation)


def _admits_bool(annotation: Any) -> bool:
    """Whether a value of this type may hold a boolean somewhere: ``bool`` or ``Any`` itself, a model (its own
    fields are checked when it validates), or a container or union of one."""
    if annotation is bool or annotation is Any or isinstance(annotation, TypeVar):
        return True
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return True
    return any(_admits_bool(arg) for arg in get_args(annotation) if not isinstance(arg, (str, int, float)))


def _holds_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return True
    if isinstance(value, (list, tuple)):
        return any(_holds_bool(item) for item in value)
    if isinstance(value, dict):
        return any(_holds_bool(item) for pair in value.items() for item in pair)
    return False


class RulesetConfig(StrictModel, Generic[ScenarioT]):
    """What every ruleset's config has: its id (a ``Literal`` in each subclass), a version, named
    scenarios and the default one, looked up by :meth:`scenario` with an error that lists them."""

    ruleset: str
    version: int = Field(ge=1)
    scenarios: dict[str, ScenarioT] = Field(min_length=1)
    default_scenario: str

    @model_validator(mode="after")
    def _default_scenario_exists(self) -> Self:
        if self.default_scenario not in self.scenarios:
            raise ValueError(
                f"default_scenario {self.default_scenario!r} is not a scenario; choose one of {sorted(self.scenarios)}"
            )
        return self

    def scenario(self, name: str | None) -> ScenarioT:
        name = name or self.default_scenario
        if name not in self.scenarios:
            raise ConfigError(f"unknown {self.ruleset} scenario {name!r}; choose one of {sorted(self.scenarios)}")
        return self.scenarios[name]


#: libyaml's safe loader where PyYAML was built with it (about ten times faster: `naval-tactics list` reads
#: every ruleset's config), else the pure-Python one; both build only plain YAML types.
SAFE_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_yaml(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{path}: no such config file")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start}: {exc.object[exc.start:exc.start + 1]!r}); "
                          "save the file as UTF-8") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read: {exc.strerror}") from None
    try:
        data = yaml.load(text, Loader=SAFE_LOADER)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping at the top level, found {type(data).__name__}")
    return data


def validate(model: type[ModelT], data: Any, source: str) -> ModelT:
    """Validate ``data`` against ``model``; on failure raise :class:`ConfigError` naming every bad field."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(describe_validation_error(exc, model, source)) from None


def describe_validation_error(exc: ValidationError, model: type[BaseModel], source: str) -> str:
    lines = [f"{source}: invalid config ({exc.error_count()} problem(s))"]
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "<top level>"
        message = err["msg"]
        if err["type"] == "extra_forbidden":
            allowed = allowed_keys(model, err["loc"][:-1])
            if allowed:
                message += f"; allowed keys here: {', '.join(sorted(allowed))}"
        # A whole-model check has no field location; its message names the fields, and the
        # input would be the entire file.
        got = f" (got {err.get('input')!r})" if err["loc"] else ""
        lines.append(f"  - field '{where}': {message}{got}")
    return "\n".join(lines)
