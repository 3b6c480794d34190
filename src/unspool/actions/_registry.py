"""The registry of actions: names, argument schemas, handlers.

An action is registered with a handler whose parameters are typed (a Pydantic
model is built from the signature), with a Pydantic model, or with a JSON
Schema dict (checked with ``jsonschema``), with or without a handler::

    registry = ActionRegistry()

    @registry.action
    def open_modal(product_id: str, view: Literal["compact", "detailed"] = "compact") -> str:
        "Open the product modal."
        ...

    registry.register("navigate", schema={"type": "object", "properties": {...}})

Parsers take ``registry=`` and call :meth:`ActionRegistry.validate` on every
complete action: the validated value becomes ``ActionComplete.args``, a failure
becomes ``ActionInvalid(reason="schema", errors=[...])``.
"""

from __future__ import annotations

import inspect
import re
import threading
import typing
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeVar, overload

import pydantic
from jsonschema.protocols import Validator
from jsonschema.validators import validator_for

from unspool.actions._context import ActionContext
from unspool.actions._strict_schemas import StrictSchemaError, drop_absent_nulls
from unspool.actions._tool_formats import STRICT_TOOL_FORMATS, TOOL_FORMATS
from unspool.actions._validation import error, jsonschema_errors, pydantic_errors
from unspool.protocols._emitter import Validation

__all__ = ["ActionRegistry", "ActionSpec", "RunsOn", "ToolFormat", "UnknownPolicy"]

UnknownPolicy = Literal["invalid", "pass"]
RunsOn = Literal["server", "client"]
ToolFormat = Literal[
    "openai", "openai_responses", "anthropic", "gemini", "bedrock", "ollama", "json"
]
F = TypeVar("F", bound=Callable[..., Any])
_PASSED_MAX = 1024  # validated JSON Schema args remembered for a dispatcher


@dataclass(frozen=True, slots=True)
class ActionSpec:
    """One registered action.

    ``call`` says how the handler receives the validated args: ``"fields"``
    (keyword arguments, one per field of a model built from its signature) or
    ``"value"`` (one argument: the model instance, or the dict for a JSON Schema).
    ``key`` maps the validated args to an idempotency key (see :meth:`ledger_key`).
    ``context`` names the handler's parameter annotated :class:`ActionContext`, if any.
    ``runs_on`` / ``approval``: run by the page, or asked for first (see :attr:`waits_for`).
    """

    name: str
    handler: Callable[..., Any] | None
    model: type[pydantic.BaseModel] | None
    schema: Mapping[str, Any]
    description: str | None
    idempotent: bool
    key: Callable[[Any], object] | None
    call: Literal["fields", "value"]
    schema_validator: Validator | None
    context: str | None = None
    runs_on: RunsOn = "server"
    approval: bool = False

    @property
    def waits_for(self) -> Literal["client", "approval"] | None:
        """What a dispatcher waits for before this action has an outcome: the page
        (``"client"``: the page runs it), a person's ``"approval"``, or nothing."""
        if self.runs_on == "client":
            return "client"
        return "approval" if self.approval else None

    @property
    def is_async(self) -> bool:
        """Whether the handler is a coroutine function."""
        return self.handler is not None and inspect.iscoroutinefunction(self.handler)

    def validate(self, args: Any) -> Validation:
        """Validate ``args``; a model instance of this action's model passes as is. A
        ``null`` for a property that is optional and does not take ``null`` reads as the
        property left out (what a strict-mode model sends: see ``tools(strict=True)``)."""
        try:
            if self.model is not None:
                if isinstance(args, self.model):
                    return Validation(True, args)
                args = drop_absent_nulls(self.schema, args)
                return Validation(True, self.model.model_validate(args))
            args = drop_absent_nulls(self.schema, args)
            if self.schema_validator is not None:
                errors = jsonschema_errors(self.schema_validator, args)
                if errors:
                    return Validation(False, reason="schema", errors=errors)
            return Validation(True, args)
        except pydantic.ValidationError as exc:
            return Validation(False, reason="schema", errors=pydantic_errors(exc))
        except Exception as exc:  # a user validator with a bug must not break the stream
            msg = f"{type(exc).__name__}: {exc}"
            return Validation(False, reason="schema", errors=(error([], msg, "validator_error"),))

    def ledger_key(self, action_id: str, value: Any) -> str:
        """The idempotency key: the action id, or ``"{name}:{key(value)}"`` when a
        key function was registered (namespaced by action name)."""
        if self.key is None:
            return action_id
        return f"{self.name}:{self.key(value)}"

    def invoke(self, value: Any, context: ActionContext | None = None) -> Any:
        """Call the handler with validated args (and ``context``, when it declares a
        parameter for it); returns what it returns (an awaitable for an async handler)."""
        if self.handler is None:
            raise LookupError(f"action {self.name!r} has no handler")
        extra: dict[str, Any] = {}
        if self.context is not None:
            if context is None:
                raise TypeError(f"the handler of {self.name!r} needs an ActionContext")
            extra[self.context] = context
        if self.call == "value":
            return self.handler(value, **extra)
        kwargs = {name: getattr(value, name) for name in type(value).model_fields}
        kwargs.update(value.__pydantic_extra__ or {})
        return self.handler(**kwargs, **extra)


class ActionRegistry:
    """Actions by name, with their schemas and handlers.

    ``unknown`` is the policy for names that were never registered:
    ``"invalid"`` (default) makes them ``ActionInvalid(reason="unknown_action")``,
    ``"pass"`` lets their args through unvalidated.
    """

    def __init__(self, unknown: UnknownPolicy = "invalid") -> None:
        if unknown not in ("invalid", "pass"):
            raise ValueError(f"unknown must be 'invalid' or 'pass', not {unknown!r}")
        self.unknown: UnknownPolicy = unknown
        self._specs: dict[str, ActionSpec] = {}
        # Args this registry's JSON Schema validation passed, by identity, so that a
        # dispatcher behind a parser using this registry does not validate them again.
        self._passed: dict[int, tuple[str, Any]] = {}
        self._passed_lock = threading.Lock()

    # registration -------------------------------------------------------------------

    @overload
    def action(self, name: F, /) -> F: ...

    @overload
    def action(
        self,
        name: str | None = None,
        *,
        model: type[pydantic.BaseModel] | None = None,
        schema: Mapping[str, Any] | None = None,
        idempotent: bool = False,
        key: Callable[[Any], object] | None = None,
        description: str | None = None,
        runs_on: RunsOn = "server",
        approval: bool = False,
    ) -> Callable[[F], F]: ...

    def action(
        self,
        name: str | F | None = None,
        *,
        model: type[pydantic.BaseModel] | None = None,
        schema: Mapping[str, Any] | None = None,
        idempotent: bool = False,
        key: Callable[[Any], object] | None = None,
        description: str | None = None,
        runs_on: RunsOn = "server",
        approval: bool = False,
    ) -> F | Callable[[F], F]:
        """Decorator registering a handler: ``@registry.action`` or
        ``@registry.action("name", idempotent=True, key=lambda a: a.order_id)``;
        ``@registry.action(runs_on="client")`` for one the page runs (the function only
        gives the args' schema), ``@registry.action(approval=True)`` for one that asks first.
        The action's name defaults to the function's name; the handler is returned
        unchanged."""
        if callable(name):
            self.register(None, name)
            return name
        action_name = name

        def decorate(handler: F) -> F:
            self.register(
                action_name,
                handler,
                model=model,
                schema=schema,
                idempotent=idempotent,
                key=key,
                description=description,
                runs_on=runs_on,
                approval=approval,
            )
            return handler

        return decorate

    def register(
        self,
        name: str | None,
        handler: Callable[..., Any] | None = None,
        *,
        model: type[pydantic.BaseModel] | None = None,
        schema: Mapping[str, Any] | None = None,
        idempotent: bool = False,
        key: Callable[[Any], object] | None = None,
        description: str | None = None,
        runs_on: RunsOn = "server",
        approval: bool = False,
    ) -> ActionSpec:
        """Register an action; ``name`` may be ``None`` when a handler gives it.

        Without ``model`` or ``schema`` the handler's signature defines the args:
        a single parameter annotated with a Pydantic model makes that model the
        args (the handler gets the instance); otherwise each parameter is a field
        (unknown fields are refused unless the handler takes ``**kwargs``).
        With ``model`` or ``schema`` the handler gets the validated value as its one
        argument. ``runs_on="client"``: the page runs the action, never a dispatcher (it
        streams it as ``ActionPending(waiting_for="client")`` and records the page's result
        from the next request, see ``Dispatcher.resume``); ``approval=True``: a dispatcher
        asks before running it (``ActionPending(waiting_for="approval")``) and runs it once
        approved. Raises ``TypeError``/``ValueError`` for a bad registration and
        ``jsonschema.SchemaError`` for an invalid schema.
        """
        if name is None:
            if handler is None:
                raise TypeError("an action without a handler needs a name")
            name = handler.__name__
        if not name:
            raise ValueError("an action name must not be empty")
        if name in self._specs:
            raise ValueError(f"action {name!r} is already registered")
        if model is not None and schema is not None:
            raise TypeError("give a model or a schema, not both")
        if handler is None and model is None and schema is None:
            raise TypeError(f"action {name!r} needs a handler, a model or a schema")
        if handler is not None and not callable(handler):
            raise TypeError(f"the handler of {name!r} is not callable")
        if runs_on not in ("server", "client"):
            raise ValueError(f"runs_on must be 'server' or 'client', not {runs_on!r}")
        if runs_on == "client" and approval:
            raise ValueError(f"{name!r}: a client action is run by the page, not approved here")

        call: Literal["fields", "value"] = "value"
        validator: Validator | None = None
        context = _context_param(handler) if handler is not None else None
        if schema is not None:
            json_schema: Mapping[str, Any] = dict(schema)
            cls = validator_for(json_schema)
            cls.check_schema(dict(json_schema))
            validator = cls(json_schema, format_checker=cls.FORMAT_CHECKER)
            default_doc = schema.get("description")
        else:
            if model is None:
                assert handler is not None
                model, call = _model_from_signature(name, handler)
            json_schema = model.model_json_schema()
            default_doc = json_schema.get("description")
        if description is None:
            doc = inspect.getdoc(handler) if handler is not None else None
            description = doc or (str(default_doc) if default_doc else None)
        spec = ActionSpec(
            name,
            handler,
            model,
            json_schema,
            description,
            idempotent,
            key,
            call,
            validator,
            context,
            runs_on,
            approval,
        )
        self._specs[name] = spec
        return spec

    # lookup ---------------------------------------------------------------------------

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    def __iter__(self) -> Iterator[str]:
        return iter(self._specs)

    def __len__(self) -> int:
        return len(self._specs)

    def get(self, name: str) -> ActionSpec | None:
        """The spec registered under ``name``, or ``None``."""
        return self._specs.get(name)

    def __getitem__(self, name: str) -> ActionSpec:
        return self._specs[name]

    # validation and schemas ------------------------------------------------------------

    def validate(self, name: str, args: Any) -> Validation:
        """Validate ``args`` for ``name``: ok with the typed value (a model instance,
        or the dict for a JSON Schema), or a reason (``"schema"``,
        ``"unknown_action"``) and structured errors. Never raises for bad args."""
        spec = self._specs.get(name)
        if spec is None:
            if self.unknown == "pass":
                return Validation(True, args)
            known = ", ".join(repr(n) for n in self._specs) or "none"
            msg = f"unknown action {name!r} (known: {known})"
            return Validation(
                False, reason="unknown_action", errors=(error([], msg, "unknown_action"),)
            )
        verdict = spec.validate(args)
        if verdict.ok and spec.model is None:
            self._remember(name, verdict.value)
        return verdict

    def validated(self, spec: ActionSpec, args: Any) -> bool:
        """Whether ``args`` is a value this registry's validation gave for ``spec``:
        an instance of its Pydantic model, or (JSON Schema) the very object recently
        passed by :meth:`validate`. Constant time; a dispatcher skips validating again."""
        if spec.model is not None:
            return isinstance(args, spec.model)
        with self._passed_lock:
            seen = self._passed.pop(id(args), None)
        return seen is not None and seen[0] == spec.name and seen[1] is args

    def _remember(self, name: str, value: Any) -> None:
        with self._passed_lock:
            self._passed[id(value)] = (name, value)  # the reference keeps the id unique
            if len(self._passed) > _PASSED_MAX:
                del self._passed[next(iter(self._passed))]

    def json_schema(self, name: str) -> dict[str, Any]:
        """The JSON Schema of the args of ``name`` (``KeyError`` if unknown)."""
        return dict(self._specs[name].schema)

    def tools(
        self, format: ToolFormat | str = "openai", *, strict: bool = False
    ) -> list[dict[str, Any]]:
        """Every action as a tool definition for a prompt or an API call, in a format of
        :data:`~unspool.actions._tool_formats.TOOL_FORMATS`: ``"openai"`` (Chat
        Completions ``tools=``), ``"openai_responses"`` (Responses API), ``"anthropic"``
        (Messages ``tools=``), ``"json"`` (``{"name", "description", "parameters"}``, for
        a system prompt), or a provider table row's ``tool_format``.

        ``strict=True`` (``"openai"``, ``"openai_responses"``, ``"anthropic"``,
        ``"gemini"``): each schema in the subset the provider's constrained decoding takes
        (:mod:`unspool.actions._strict_schemas`: optional properties made nullable for
        OpenAI, unsupported keywords moved to the description), marked ``strict: true``;
        a schema with no strict form raises
        :class:`~unspool.actions._strict_schemas.StrictSchemaError` naming the action."""
        table = STRICT_TOOL_FORMATS if strict else TOOL_FORMATS
        formatter = table.get(format)
        if formatter is None:
            known = ", ".join(repr(name) for name in table)
            kind = "strict tool format" if strict else "tool format"
            raise ValueError(f"unknown {kind} {format!r}: expected one of {known}")
        out: list[dict[str, Any]] = []
        for spec in self._specs.values():
            params = {k: v for k, v in spec.schema.items() if k not in ("title", "description")}
            try:
                out.append(formatter(spec.name, spec.description or None, params))
            except StrictSchemaError as exc:
                raise StrictSchemaError(exc.provider, exc.path, exc.reason, spec.name) from None
        return out


def _model_from_signature(
    name: str, handler: Callable[..., Any]
) -> tuple[type[pydantic.BaseModel], Literal["fields", "value"]]:
    """The args model of a handler, and how to call it."""
    hints = _hints(handler)
    context = _context_param(handler)
    params = [p for p in inspect.signature(handler).parameters.values() if p.name != context]
    if len(params) == 1 and params[0].kind in (
        params[0].POSITIONAL_ONLY,
        params[0].POSITIONAL_OR_KEYWORD,
    ):
        annotation = hints.get(params[0].name, params[0].annotation)
        if inspect.isclass(annotation) and issubclass(annotation, pydantic.BaseModel):
            return annotation, "value"
    fields: dict[str, Any] = {}
    extra: Literal["forbid", "allow"] = "forbid"
    for param in params:
        if param.kind is param.VAR_KEYWORD:
            extra = "allow"
            continue
        if param.kind in (param.VAR_POSITIONAL, param.POSITIONAL_ONLY):
            raise TypeError(
                f"handler of {name!r}: parameter {param.name!r} cannot be given by keyword"
            )
        if param.name.startswith("_"):
            raise TypeError(f"handler of {name!r}: parameter {param.name!r} starts with '_'")
        annotation = hints.get(param.name, param.annotation)
        if annotation is inspect.Parameter.empty:
            annotation = Any
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[param.name] = (annotation, default)
    model: type[pydantic.BaseModel] = pydantic.create_model(
        _class_name(name),
        __config__=pydantic.ConfigDict(extra=extra),
        **fields,
    )
    return model, "fields"


def _hints(handler: Callable[..., Any]) -> dict[str, Any]:
    try:
        return typing.get_type_hints(handler, include_extras=True)
    except Exception:  # partials, callables with unresolvable forward references
        return {}


def _context_param(handler: Callable[..., Any]) -> str | None:
    """The name of the handler's parameter annotated :class:`ActionContext`, if any
    (a string annotation naming it counts, for unresolvable forward references)."""
    try:
        params = inspect.signature(handler).parameters.values()
    except (TypeError, ValueError):  # builtins without a signature
        return None
    hints = _hints(handler)
    for param in params:
        annotation = hints.get(param.name, param.annotation)
        if annotation is ActionContext or (
            isinstance(annotation, str) and annotation.rpartition(".")[2] == "ActionContext"
        ):
            return param.name
    return None


def _class_name(action: str) -> str:
    words = [w for w in re.split(r"[^0-9A-Za-z]+", action) if w]
    base = "".join(w[:1].upper() + w[1:] for w in words) or "Action"
    if base[0].isdigit():
        base = "Action" + base
    return base + "Args"
