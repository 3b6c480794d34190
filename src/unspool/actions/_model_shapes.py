"""How a Pydantic model's fields can be shown while their JSON is still forming.

Each position in a model (a field, a list item, a dict value) is a
:class:`Slot`: the annotation that validates a complete value there, and a
*kind* saying how a partial value may be shown without ever changing type:

* ``"model"``: a ``BaseModel`` subclass, shown as an instance filling in;
* ``"list"``: ``list[X]``, shown as a list that only appends;
* ``"dict"``: ``dict[str, X]``, shown as a dict that only adds keys;
* ``"str"``: ``str``, shown as a growing string;
* ``"atomic"``: anything else (numbers, enums, literals, unions of several
  types, datetimes, tuples...), shown only once complete and validated.

``Optional[X]`` has the kind of ``X`` (a ``null`` arrives complete). Slots and
their ``TypeAdapter`` are built lazily and cached per model class.
"""

from __future__ import annotations

import inspect
import threading
import types
import weakref
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, Union, cast, get_args, get_origin

import pydantic
from pydantic.fields import FieldInfo

__all__ = ["FieldSlot", "ModelInfo", "Slot", "model_info"]

Kind = Literal["model", "list", "dict", "str", "atomic"]

# model_config keys that also apply when one field is validated on its own.
_FIELD_CONFIG_KEYS = (
    "strict",
    "str_strip_whitespace",
    "str_to_lower",
    "str_to_upper",
    "str_min_length",
    "str_max_length",
    "allow_inf_nan",
    "coerce_numbers_to_str",
    "use_enum_values",
    "arbitrary_types_allowed",
    "ser_json_timedelta",
    "val_json_bytes",
    "regex_engine",
)


@dataclass(eq=False)
class Slot:
    """One position of a model: its validating annotation and display kind."""

    annotation: Any
    kind: Kind
    target: Any = None  # the model class ("model") or the item/value annotation
    config: pydantic.ConfigDict | None = None
    _adapter: pydantic.TypeAdapter[Any] | None = field(default=None, repr=False)
    _child: Slot | None = field(default=None, repr=False)

    def validate(self, value: Any) -> Any:
        """Validate a complete value for this position (raises ``ValidationError``)."""
        if self._adapter is None:
            self._adapter = _adapter(self.annotation, self.config)
        return self._adapter.validate_python(value)

    def child(self) -> Slot:
        """The slot of this list's items or this dict's values."""
        if self._child is None:
            self._child = slot_for(self.target, self.config)
        return self._child


@dataclass(frozen=True, slots=True)
class FieldSlot:
    """A model field: its Python name, its slot, and the value shown before it arrives."""

    name: str
    slot: Slot


@dataclass(eq=False)
class ModelInfo:
    """The fields of a model by the JSON key they are read from."""

    model: type[pydantic.BaseModel]
    by_key: dict[str, FieldSlot]


def slot_for(annotation: Any, config: pydantic.ConfigDict | None = None) -> Slot:
    """The slot of ``annotation`` (metadata in ``Annotated`` is kept for validation)."""
    kind, target = _classify(annotation)
    return Slot(annotation, kind, target, config)


def _classify(tp: Any) -> tuple[Kind, Any]:
    origin = get_origin(tp)
    if origin is Annotated:
        return _classify(get_args(tp)[0])
    if origin is Union or origin is types.UnionType:
        options = [a for a in get_args(tp) if a is not type(None)]
        return _classify(options[0]) if len(options) == 1 else ("atomic", None)
    if tp is str:
        return "str", None
    if inspect.isclass(tp) and issubclass(tp, pydantic.BaseModel):
        return "model", tp
    if tp is list:
        return "list", Any
    if origin is list:
        args = get_args(tp)
        return "list", args[0] if args else Any
    if origin is dict:
        args = get_args(tp)
        if args and _classify(args[0])[0] == "str":
            return "dict", args[1]
    return "atomic", None


_INFO: weakref.WeakKeyDictionary[type[pydantic.BaseModel], ModelInfo] = weakref.WeakKeyDictionary()
_INFO_LOCK = threading.Lock()


def model_info(model: type[pydantic.BaseModel]) -> ModelInfo:
    """The (cached) field map of ``model``."""
    with _INFO_LOCK:
        info = _INFO.get(model)
        if info is None:
            info = _build_info(model)
            _INFO[model] = info
        return info


def _build_info(model: type[pydantic.BaseModel]) -> ModelInfo:
    config = model.model_config
    field_config = cast(
        pydantic.ConfigDict, {k: config.get(k) for k in _FIELD_CONFIG_KEYS if k in config}
    )
    by_name = bool(config.get("populate_by_name") or config.get("validate_by_name"))
    by_alias = config.get("validate_by_alias", True)
    by_key: dict[str, FieldSlot] = {}
    for name, info in model.model_fields.items():
        annotation = _with_metadata(info)
        entry = FieldSlot(name, slot_for(annotation, field_config or None))
        alias_keys, aliased = _alias_keys(info)
        keys = alias_keys if by_alias else []
        if by_name or not aliased:
            keys.append(name)
        for key in keys:
            by_key.setdefault(key, entry)
    return ModelInfo(model, by_key)


def _alias_keys(info: FieldInfo) -> tuple[list[str], bool]:
    """The JSON keys a field is read from by alias, and whether it has an alias
    (an ``AliasPath`` reads it from elsewhere: no key, shown when complete)."""
    alias = info.validation_alias
    if isinstance(alias, str):
        return [alias], True
    if isinstance(alias, pydantic.AliasChoices):
        return [c for c in alias.choices if isinstance(c, str)], True
    if alias is not None:
        return [], True
    return ([info.alias], True) if info.alias else ([], False)


def _with_metadata(info: FieldInfo) -> Any:
    if not info.metadata:
        return info.annotation
    params = (info.annotation, *info.metadata)
    return Annotated[params]


def _adapter(annotation: Any, config: pydantic.ConfigDict | None) -> pydantic.TypeAdapter[Any]:
    if config:
        try:
            return pydantic.TypeAdapter(annotation, config=config)
        except pydantic.PydanticUserError:
            pass  # the type has a config of its own: it keeps it (below)
    return pydantic.TypeAdapter(annotation)
