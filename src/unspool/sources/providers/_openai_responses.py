"""Responses API events for ``OpenAIDecoder``.

* ``response.output_text.delta`` -> the text protocol; ``.annotation.added`` ->
  ``Citation`` (its ``start`` / ``end`` counted in the whole reply's text channel);
  ``response.refusal.delta`` -> ``RefusalDelta``; reasoning summary and reasoning
  text deltas -> ``ReasoningDelta``, with ``"\\n\\n"`` between two parts (or items);
  the text of a message whose ``phase`` is ``"commentary"`` (what the model says while
  it works, before its ``"final_answer"``) is kept apart from the answer: it is
  ``ReasoningDelta`` too, never the text channel;
* ``function_call`` items and their argument deltas -> actions;
* client-run items -> actions too, named after the tool the client runs:
  ``custom_tool_call`` (its own name; the raw text input streams as the args
  ``{"input": "..."}``), ``local_shell_call`` (``local_shell``), ``shell_call``
  (``shell``), ``apply_patch_call`` (``apply_patch``), ``computer_call``
  (``computer``), a ``tool_search_call`` with ``execution: "client"``
  (``tool_search``) and ``mcp_approval_request`` (the client's approval is asked):
  their args are the item's own fields (``action``, ``operation``, ``arguments``...)
  without ``id``, ``call_id``, ``type`` and ``status``, given whole (as JSON with
  sorted keys) when the item is done; the provider's ``call_id`` (or ``id``) is the ``action_id``;
* a call that is not a ``function_call`` says in its ``attributes`` which item it came
  from (``item_type``, ``item_id``; and ``namespace`` for any call that has one:
  :func:`item_attributes`), so that ``openai_responses_results`` answers each with its
  own output item (``custom_tool_call_output``, ``shell_call_output``...);
* items the provider runs itself (:data:`HOSTED_ITEMS`: web and file search, code
  interpreter, image generation, ``mcp_call``, ``mcp_list_tools``, a server-run
  ``tool_search_call``, a ``shell_call`` in a hosted container (its ``environment`` is
  not ``local``), xAI's server-side tools, and xAI's ``custom_tool_call`` items whose
  ``call_id`` is a server call id such as ``xs_call_…``) are never actions:
  ``HostedToolStarted`` when the item is added, ``HostedToolInput`` (the item's own
  fields) and ``HostedToolResult`` when it is done, or when its own output item
  (:data:`RESULT_ITEMS`: ``shell_call_output``...) is;
* ``response.incomplete`` -> truncation; ``response.failed`` / ``error`` ->
  ``StreamError``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Hashable, Mapping
from typing import TYPE_CHECKING, Any

from unspool.events import Citation, Event
from unspool.sources._payload import get, get_int, get_str, is_record, plain

if TYPE_CHECKING:
    from unspool.sources.providers._openai import OpenAIDecoder

__all__ = ["CLIENT_ITEMS", "HOSTED_ITEMS", "RESULT_ITEMS", "ResponsesReader", "item_attributes"]

CLIENT_ITEMS: dict[str, str] = {
    "local_shell_call": "local_shell",
    "shell_call": "shell",
    "apply_patch_call": "apply_patch",
    "computer_call": "computer",
    "tool_search_call": "tool_search",
    "mcp_approval_request": "mcp_approval_request",
}
"""Client-run output item types (other than function and custom tool calls) and the
action name each becomes."""

HOSTED_ITEMS: dict[str, tuple[str, tuple[str, ...]]] = {
    "web_search_call": ("web_search", ()),  # its result: the action's sources
    "file_search_call": ("file_search", ("results",)),
    "code_interpreter_call": ("code_interpreter", ("outputs",)),
    "image_generation_call": ("image_generation", ("result",)),
    "mcp_call": ("mcp", ("output",)),
    "mcp_list_tools": ("mcp_list_tools", ("tools",)),
    "tool_search_call": ("tool_search", ()),  # execution "server"
    "shell_call": ("shell", ()),  # in a hosted container
    "program": ("program", ()),
    "custom_tool_call": ("custom", ()),  # xAI's, with a server call id
    "x_search_call": ("x_search", ()),  # xAI
    "code_execution_call": ("code_execution", ()),  # xAI
    "view_image_call": ("view_image", ()),  # xAI
    "view_x_video_call": ("view_x_video", ()),  # xAI
}
"""Output item types the provider runs itself: the tool's name when the item names none,
and the fields that hold its result (the others are its input)."""

RESULT_ITEMS: dict[str, tuple[str, str]] = {
    "shell_call_output": ("shell", "output"),
    "tool_search_output": ("tool_search", "tools"),
    "program_output": ("program", "result"),
}
"""Output items that carry the result of a provider-run call (named by its ``call_id``):
the call's tool name and the field holding the result."""

_SEPARATE_RESULT = {
    "shell_call": "shell_call_output",
    "tool_search_call": "tool_search_output",
    "program": "program_output",
}
"""Provider-run calls whose result comes as an item of its own, and that item's type."""

_SERVER_CALL_ID = re.compile(r"[a-z]{2}_call[_-]")
"""xAI's ids of its server-side tool calls (``xs_call_24148162``, ``xs_call-<uuid>-0``):
two letters naming the tool, then ``_call``.  A client call's id is ``call_…``."""

_ITEM_META = frozenset({"id", "call_id", "type", "status", "created_by", "caller"})
_TEXT_ITEMS = frozenset({"message", "reasoning"})
_QUIET = frozenset(
    {
        "response.created",
        "response.in_progress",
        "response.queued",
        "response.content_part.added",
        "response.content_part.done",
        "response.output_text.done",
        "response.refusal.done",
        "response.reasoning_summary_part.added",
        "response.reasoning_summary_part.done",
        "response.reasoning_summary_text.done",
        "response.reasoning_text.done",
        # the progress of hosted tools: their output items say when they start and end
        "response.web_search_call.in_progress",
        "response.web_search_call.searching",
        "response.web_search_call.completed",
        "response.file_search_call.in_progress",
        "response.file_search_call.searching",
        "response.file_search_call.completed",
        "response.code_interpreter_call.in_progress",
        "response.code_interpreter_call.interpreting",
        "response.code_interpreter_call.completed",
        "response.code_interpreter_call_code.delta",
        "response.code_interpreter_call_code.done",
        "response.image_generation_call.in_progress",
        "response.image_generation_call.generating",
        "response.image_generation_call.partial_image",
        "response.image_generation_call.completed",
        "response.mcp_call.in_progress",
        "response.mcp_call.completed",
        "response.mcp_call.failed",
        "response.mcp_call_arguments.delta",
        "response.mcp_call_arguments.done",
        "response.mcp_list_tools.in_progress",
        "response.mcp_list_tools.completed",
        "response.mcp_list_tools.failed",
        "response.shell_call_output_content.delta",
        "response.shell_call_output_content.done",
        "response.compaction.compacting",
        "response.mcp_call.executing",
        "response.mcp_call_output.delta",
        "response.mcp_call_output.done",
        "response.code_interpreter_call.executing",
        # xAI's server-side tools
        "response.x_search_call.in_progress",
        "response.x_search_call.searching",
        "response.x_search_call.completed",
        "response.code_execution_call.in_progress",
        "response.code_execution_call.executing",
        "response.code_execution_call.completed",
        # a shell call's commands as they stream: its action arrives whole when it is done
        "response.shell_call_command.added",
        "response.shell_call_command.delta",
        "response.shell_call_command.done",
        # an apply_patch call's diff as it streams: its action arrives whole when it is done
        "response.apply_patch_call_operation_diff.delta",
        "response.apply_patch_call_operation_diff.done",
    }
)
"""Events that carry nothing for an event of ours (they repeat or announce what
other events carry)."""

_CUSTOM_OPEN = '{"input": "'
_CUSTOM_CLOSE = '"}'


class ResponsesReader:
    """The Responses API half of an :class:`OpenAIDecoder`."""

    __slots__ = (
        "_awaiting",
        "_commentary",
        "_custom",
        "_d",
        "_last_key",
        "_noted",
        "_parts",
        "_reasoning",
        "_seen",
        "_streamed",
        "_written",
    )

    def __init__(self, decoder: OpenAIDecoder) -> None:
        self._d = decoder
        self._seen: set[Hashable] = set()  # calls started (function, custom, client-run)
        self._streamed: set[Hashable] = set()  # calls whose arguments came as deltas
        self._custom: dict[Hashable, bool] = {}  # open custom tool calls: input streamed?
        self._noted: set[Hashable] = set()  # other items reported
        self._awaiting: dict[str, list[Hashable]] = {}  # result item type -> calls, in order
        self._parts: dict[tuple[Hashable, Any], int] = {}  # text part -> its offset
        self._reasoning: tuple[Hashable, str, Any] | None = None  # the last reasoning part
        self._last_key: Hashable = 0
        self._commentary: set[Hashable] = set()  # message items of phase "commentary"
        self._written: set[Hashable] = set()  # items whose text, refusal or reasoning streamed

    def handles(self, kind: str) -> bool:
        """Whether ``kind`` is a Responses API event type this reader knows."""
        return kind in _HANDLERS or kind in _QUIET

    def event(self, kind: str, event: Any) -> list[Event]:
        """The events of one Responses API event of type ``kind``."""
        handler = _HANDLERS.get(kind)
        return handler(self, event) if handler is not None else []

    def _key(self, event: Any, item: Any = None) -> Hashable:
        index = get_int(event, "output_index")
        if index is not None:
            return index
        key = get_str(event, "item_id") or get_str(item, "id") or self._last_key
        self._last_key = key
        return key

    # ----------------------------------------------------------- text, refusal, reasoning

    def _text_delta(self, event: Any) -> list[Event]:
        d = self._d
        text = get(event, "delta")
        if not isinstance(text, str):
            return d.bad("a text delta is not text", event)
        part = (self._key(event), _label(get(event, "content_index")))
        if part[0] in self._commentary:  # not the answer
            return self._reason(part[0], "commentary", part[1], text)
        self._written.add(part[0])
        if part not in self._parts:
            self._parts[part] = d.merger.text_chars
        return d.merger.text(text)

    def _annotation(self, event: Any) -> list[Event]:
        d = self._d
        base = self._parts.get((self._key(event), _label(get(event, "content_index"))))
        return self._cite(get(event, "annotation"), d.merger.text_chars if base is None else base)

    def _cite(self, note: Any, base: int) -> list[Event]:
        """One annotation of a text part that starts at ``base`` in the text channel."""
        d = self._d
        note = plain(note)
        if not isinstance(note, Mapping):
            return d.bad("an annotation is not an object", note)
        start, end = note.get("start_index"), note.get("end_index")
        if start is None:
            start = end = note.get("index")  # file citations mark one position
        citation = Citation(
            str(note.get("type") or "annotation"),
            url=_str(note.get("url")),
            title=_str(note.get("title")) or _str(note.get("filename")),
            start=_offset(base, start),
            end=_offset(base, end),
            raw=dict(note),
        )
        return d.merger.citation(citation)

    def _refusal_delta(self, event: Any) -> list[Event]:
        text = get(event, "delta")
        if not isinstance(text, str):
            return self._d.bad("a refusal delta is not text", event)
        self._written.add(self._key(event))
        return self._d.merger.refusal(text) if text else []

    def _summary_delta(self, event: Any) -> list[Event]:
        return self._reason_delta(event, "summary", get(event, "summary_index"))

    def _reasoning_delta(self, event: Any) -> list[Event]:
        return self._reason_delta(event, "text", get(event, "content_index"))

    def _reason_delta(self, event: Any, kind: str, index: Any) -> list[Event]:
        text = get(event, "delta")
        if not isinstance(text, str):
            return self._d.bad("a reasoning delta is not text", event)
        return self._reason(self._key(event), kind, index, text)

    def _reason(self, key: Hashable, kind: str, index: Any, text: str) -> list[Event]:
        """Reasoning text of one part; ``"\n\n"`` first when it is a new part or item."""
        if not text:
            return []
        d = self._d
        part = (key, kind, _label(index))
        self._written.add(key)
        events: list[Event] = []
        if self._reasoning is not None and part != self._reasoning:
            events += d.merger.reasoning("\n\n")  # a new summary part or reasoning item
        self._reasoning = part
        events += d.merger.reasoning(text)
        return events

    # ----------------------------------------------------------- output items

    def _item_added(self, event: Any) -> list[Event]:
        item = get(event, "item")
        if not is_record(item):
            return self._d.bad("an output item is not an object", event)
        kind = get_str(item, "type")
        key = self._key(event, item)
        if kind == "message" and get_str(item, "phase") == "commentary":
            self._commentary.add(key)
        if kind == "function_call":
            return self._start_call(key, item, get(item, "arguments"))
        run_by = _run_by(item)
        if run_by == "provider":
            return self._hosted_start(key, item)
        if kind == "custom_tool_call":
            events = self._start_custom(key, item)
            given = get(item, "input")
            if isinstance(given, str) and given:
                events += self._custom_text(key, given)
            return events
        if kind in CLIENT_ITEMS and run_by == "client":
            if kind == "tool_search_call":
                return []  # its call_id when added is provisional: it starts when done
            self._seen.add(key)
            return self._d.merger.tool_start(
                key, CLIENT_ITEMS[kind], _call_id(item), item_attributes(item)
            )
        if kind in _TEXT_ITEMS or kind in CLIENT_ITEMS:
            return []  # text comes as deltas; a shell call that says not where it runs: when done
        return self._other_item(key, kind, item)

    def _item_done(self, event: Any) -> list[Event]:
        d = self._d
        item = get(event, "item")
        if not is_record(item):
            return d.bad("an output item is not an object", event)
        kind = get_str(item, "type")
        key = self._key(event, item)
        merger = d.merger
        if kind == "function_call":
            events: list[Event] = []
            if key not in self._seen:
                events += self._start_call(key, item, None)  # the whole call arrives here
            return events + self._end_call(key, get(item, "arguments"))
        if merger.hosted.known(key) or _run_by(item) == "provider":
            return self._hosted_done(key, item)
        if kind == "custom_tool_call":
            events = []
            if key not in self._seen:
                events += self._start_custom(key, item)
            return events + self._close_custom(key, get(item, "input"))
        if kind in CLIENT_ITEMS:
            events = []
            if key not in self._seen:
                self._seen.add(key)
                events += merger.tool_start(
                    key, CLIENT_ITEMS[kind], _call_id(item), item_attributes(item)
                )
            elif not merger.tools.is_open(key):
                return []  # already ended (the stream went on after a duplicate)
            fields = plain(item)
            args = (
                {k: v for k, v in fields.items() if k not in _ITEM_META}
                if isinstance(fields, Mapping)
                else {}
            )
            text = json.dumps(args, ensure_ascii=False, sort_keys=True, default=str)
            events += merger.tool_args(key, text)
            return events + merger.tool_stop(key)
        if kind in _TEXT_ITEMS:
            return [] if key in self._written else self._unstreamed(key, kind, item)
        if kind in RESULT_ITEMS:
            return self._hosted_output(kind, item)
        return self._other_item(key, kind, item)

    def _unstreamed(self, key: Hashable, kind: str, item: Any) -> list[Event]:
        """A message or reasoning item whose content came only whole, when it was done
        (some compatible servers send no deltas): read like its deltas."""
        d = self._d
        if kind == "message":
            parts, events = d.items(item, "content")
        else:  # a reasoning item: its summary, then its raw reasoning text
            summary, events = d.items(item, "summary")
            content, bad = d.items(item, "content")
            events += bad
            parts = [*summary, *content]
        for index, part in enumerate(parts):
            what = get_str(part, "type")
            text = get(part, "refusal" if what == "refusal" else "text")
            if not isinstance(text, str):
                events += d.bad(f"a {kind} part has no text", part)
            elif what == "refusal":
                events += d.merger.refusal(text) if text else []
            elif kind == "reasoning" or get_str(item, "phase") == "commentary":
                events += self._reason(key, "summary", index, text)
            else:
                base = d.merger.text_chars
                events += d.merger.text(text)
                notes, bad = d.items(part, "annotations")
                events += bad
                for note in notes:
                    events += self._cite(note, base)
        return events

    def _other_item(self, key: Hashable, kind: str | None, item: Any) -> list[Event]:
        """An item that is neither a call nor text: reported once."""
        d = self._d
        if kind in RESULT_ITEMS or key in self._noted:
            return []  # a result is read when its item is done
        self._noted.add(key)
        if kind is None:
            return d.bad("an output item without a type", item)
        if kind == "compaction":  # the API summarised the earlier turns
            message = "the provider compacted the conversation; its summary is not reply text"
            return d.merger.note("compaction", message, kind)
        message = f"output item of type {kind!r} has no event: ignored"
        return d.merger.note("unknown_item", message, kind)

    # ----------------------------------------------------------- provider-run calls

    def _hosted_start(self, key: Hashable, item: Any) -> list[Event]:
        kind = get_str(item, "type") or ""
        attributes = {"server": label} if (label := get_str(item, "server_label")) else None
        return self._d.merger.hosted_start(
            key, _hosted_name(kind, item), _call_id(item), kind, attributes
        )

    def _hosted_done(self, key: Hashable, item: Any) -> list[Event]:
        """A provider-run call's item is done: its input, and its result unless that
        comes as an item of its own."""
        merger = self._d.merger
        kind = get_str(item, "type") or ""
        events = self._hosted_start(key, item)
        given, output = _hosted_fields(kind, item)
        if kind == "custom_tool_call":  # xAI: the raw input text, as its input events gave it
            text = get(item, "input")
            given = text if isinstance(text, str) else given
        events += merger.hosted_input(key, given)
        result_kind = _SEPARATE_RESULT.get(kind)
        if result_kind is None:
            events += merger.hosted_result(key, output, _hosted_error(item), kind)
        elif key not in (waiting := self._awaiting.setdefault(result_kind, [])):
            waiting.append(key)
        return events

    def _hosted_output(self, kind: str, item: Any) -> list[Event]:
        """An item holding the result of a provider-run call (``shell_call_output``...):
        the call its ``call_id`` names, else (a server tool search gives none) the first
        call still waiting for an item of this type."""
        merger = self._d.merger
        name, field = RESULT_ITEMS[kind]
        call_id = get_str(item, "call_id")
        waiting = self._awaiting.get(kind, [])
        key = merger.hosted.key_of(call_id)
        if key is None and call_id is None and waiting:
            key = waiting[0]
        if key in waiting:
            waiting.remove(key)
        events: list[Event] = []
        if key is None:  # its call was not seen: the result still shows
            key = ("result", call_id or get_str(item, "id"))
            events += merger.hosted_start(key, name, call_id, kind)
        fields = plain(item)
        output = fields.get(field) if isinstance(fields, Mapping) else None
        return events + merger.hosted_result(key, output, _hosted_error(item), kind)

    # ----------------------------------------------------------- function calls

    def _start_call(self, key: Hashable, item: Any, arguments: Any) -> list[Event]:
        merger = self._d.merger
        self._seen.add(key)
        name, call_id = get_str(item, "name"), get_str(item, "call_id")
        events = merger.tool_start(key, name, call_id, item_attributes(item))
        if isinstance(arguments, str) and arguments:
            self._streamed.add(key)
            events += merger.tool_args(key, arguments)
        return events

    def _args_delta(self, event: Any) -> list[Event]:
        text = get(event, "delta")
        if not isinstance(text, str):
            return self._d.bad("an arguments delta is not text", event)
        key = self._key(event)
        self._streamed.add(key)
        return self._d.merger.tool_args(key, text)

    def _args_done(self, event: Any) -> list[Event]:
        return self._end_call(self._key(event), get(event, "arguments"))

    def _end_call(self, key: Hashable, arguments: Any) -> list[Event]:
        merger = self._d.merger
        if not merger.tools.is_open(key):
            return []
        events: list[Event] = []
        if isinstance(arguments, str) and arguments and key not in self._streamed:
            self._streamed.add(key)
            events += merger.tool_args(key, arguments)
        return events + merger.tool_stop(key)

    # ----------------------------------------------------------- custom tool calls

    def _start_custom(self, key: Hashable, item: Any) -> list[Event]:
        merger = self._d.merger
        self._seen.add(key)
        events = merger.tool_start(
            key, get_str(item, "name"), _call_id(item), item_attributes(item)
        )
        self._custom[key] = False
        return events + merger.tool_args(key, _CUSTOM_OPEN)

    def _custom_text(self, key: Hashable, text: str) -> list[Event]:
        """Raw input text, as the JSON string of the ``input`` argument."""
        if key not in self._custom:
            return []
        self._custom[key] = True
        escaped = json.dumps(text, ensure_ascii=False)[1:-1]
        return self._d.merger.tool_args(key, escaped)

    def _close_custom(self, key: Hashable, given: Any) -> list[Event]:
        streamed = self._custom.get(key)
        if streamed is None:
            return []
        events: list[Event] = []
        if not streamed and isinstance(given, str) and given:
            events += self._custom_text(key, given)
        del self._custom[key]
        merger = self._d.merger
        return events + merger.tool_args(key, _CUSTOM_CLOSE) + merger.tool_stop(key)

    def _custom_delta(self, event: Any) -> list[Event]:
        text = get(event, "delta")
        if not isinstance(text, str):
            return self._d.bad("a custom tool input delta is not text", event)
        return self._custom_text(self._key(event), text) if text else []

    def _custom_done(self, event: Any) -> list[Event]:
        key, given = self._key(event), get(event, "input")
        if self._d.merger.hosted.known(key):  # xAI's server-run call: its input is whole
            return self._d.merger.hosted_input(key, given) if isinstance(given, str) else []
        return self._close_custom(key, given)

    # ----------------------------------------------------------- endings

    def _close_all_custom(self) -> list[Event]:
        events: list[Event] = []
        for key in list(self._custom):
            events += self._close_custom(key, None)
        return events

    def _usage(self, event: Any) -> list[Event]:
        return self._d.usage("openai_responses", get(get(event, "response"), "usage"))

    def _completed(self, event: Any) -> list[Event]:
        self._d.set_reason("stop")
        return self._usage(event) + self._close_all_custom() + self._d.merger.end_tools()

    def _incomplete(self, event: Any) -> list[Event]:
        self._d.set_reason("length")
        events = self._usage(event)
        details = get(get(event, "response"), "incomplete_details")
        if get_str(details, "reason") == "content_filter":
            events += self._d.merger.note(
                "content_filter", "the provider's content filter cut the output"
            )
        return events

    def _failed(self, event: Any) -> list[Event]:
        error = get(get(event, "response"), "error")
        message = get_str(error, "message") or "the response failed"
        return self._usage(event) + self._d.merger.fail(
            message, get_str(error, "code") or "response.failed"
        )

    def _error(self, event: Any) -> list[Event]:
        """An ``error`` event: the Responses API's flat one, or the nested
        ``{"error": {"type", "message"}}`` (Anthropic's, as the first event of a stream)."""
        nested = get(event, "error")
        message = get_str(event, "message") or get_str(nested, "message")
        code = get_str(event, "code") or get_str(nested, "code") or get_str(nested, "type")
        return self._d.merger.fail(message or "the stream reported an error", code or "error")

    def _audio(self, event: Any) -> list[Event]:
        message = "audio output is not read: its transcript has no text event here"
        return self._d.note_once("ignored_audio", message, get_str(event, "type"))


def _label(value: Any) -> int | str | None:
    """An index or id field usable as a key (anything else is ``None``)."""
    return value if isinstance(value, (int, str)) else None


def _run_by(item: Any) -> str | None:
    """Who runs an output item's call: ``"provider"``, ``"client"``, or ``None`` when it
    does not say yet (a ``shell_call`` added without its environment)."""
    kind = get_str(item, "type")
    if kind == "tool_search_call":
        return "client" if get_str(item, "execution") == "client" else "provider"
    if kind == "shell_call":
        environment = get(item, "environment")
        if environment is None:
            return None if get_str(item, "status") == "in_progress" else "client"
        place = get_str(environment, "type")
        return "client" if place == "local" else "provider"
    if kind == "custom_tool_call":
        call_id = get_str(item, "call_id") or ""
        return "provider" if _SERVER_CALL_ID.match(call_id) else "client"
    if kind in HOSTED_ITEMS:
        return "provider"
    return "client" if kind in CLIENT_ITEMS else None


def _hosted_name(kind: str, item: Any) -> str:
    """A provider-run call's tool name: the item's own ``name``, else its type's."""
    return get_str(item, "name") or HOSTED_ITEMS.get(kind, (kind, ()))[0]


def _hosted_fields(kind: str, item: Any) -> tuple[Any, Any]:
    """A provider-run call item's input (its own fields but the result's) and result."""
    fields = plain(item)
    if not isinstance(fields, Mapping):
        return None, None
    output_fields = HOSTED_ITEMS.get(kind, ("", ()))[1]
    given = {
        k: v
        for k, v in fields.items()
        if k not in _ITEM_META and k not in output_fields and k not in ("name", "error")
    }
    output = fields.get(output_fields[0]) if output_fields else None
    action = given.get("action")
    if kind == "web_search_call" and isinstance(action, Mapping) and "sources" in action:
        given["action"] = {k: v for k, v in action.items() if k != "sources"}
        output = action["sources"]
    return given, output


def _hosted_error(item: Any) -> str | None:
    """Why a provider-run call failed: its ``error``, or a failed status."""
    error = plain(get(item, "error"))
    if isinstance(error, str) and error:
        return error
    if isinstance(error, Mapping) and error:
        text = error.get("message") or error.get("code") or error.get("type")
        return str(text) if text else json.dumps(error, ensure_ascii=False, default=str)
    status = get_str(item, "status")
    return f"the call ended {status}" if status in ("failed", "incomplete") else None


def item_attributes(item: Any) -> dict[str, str]:
    """What a call's result needs of its output item: ``item_type`` (its result item
    follows from it; none for a ``function_call``, the default), ``item_id`` (the
    item's id: a ``local_shell_call`` or ``computer_call`` echoed back needs it) and
    ``namespace`` (a function or custom tool of a namespace that tool search loaded)."""
    kind = get_str(item, "type")
    attributes: dict[str, str] = {}
    if kind and kind != "function_call":
        attributes["item_type"] = kind
        item_id = get_str(item, "id")
        if item_id:
            attributes["item_id"] = item_id
    namespace = get_str(item, "namespace")
    if namespace:
        attributes["namespace"] = namespace
    return attributes


def _call_id(item: Any) -> str | None:
    return get_str(item, "call_id") or get_str(item, "id")


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _offset(base: int, index: Any) -> int | None:
    """``index`` within a text part, as an offset in the whole text channel."""
    return base + index if isinstance(index, int) and not isinstance(index, bool) else None


_HANDLERS: dict[str, Callable[[ResponsesReader, Any], list[Event]]] = {
    "response.output_text.delta": ResponsesReader._text_delta,
    "response.output_text.annotation.added": ResponsesReader._annotation,
    "response.refusal.delta": ResponsesReader._refusal_delta,
    "response.reasoning_summary_text.delta": ResponsesReader._summary_delta,
    "response.reasoning_text.delta": ResponsesReader._reasoning_delta,
    "response.output_item.added": ResponsesReader._item_added,
    "response.output_item.done": ResponsesReader._item_done,
    "response.function_call_arguments.delta": ResponsesReader._args_delta,
    "response.function_call_arguments.done": ResponsesReader._args_done,
    "response.custom_tool_call_input.delta": ResponsesReader._custom_delta,
    "response.custom_tool_call_input.done": ResponsesReader._custom_done,
    "response.completed": ResponsesReader._completed,
    "response.incomplete": ResponsesReader._incomplete,
    "response.failed": ResponsesReader._failed,
    "error": ResponsesReader._error,
    "response.audio.delta": ResponsesReader._audio,
    "response.audio.done": ResponsesReader._audio,
    "response.audio.transcript.delta": ResponsesReader._audio,
    "response.audio.transcript.done": ResponsesReader._audio,
}
