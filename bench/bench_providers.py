"""Provider adapters vs the SDKs' own stream helpers, on the same replayed stream.

One tool call whose arguments are 4, 32 and 128 KB of JSON, streamed in 4-byte
argument deltas (about one token each), is served over real HTTP by the replay
server of ``tests/support/replay`` and read three ways with the real SDK client:

* ``raw``: iterate the SDK's stream and do nothing (transport + SDK chunk parsing);
* ``unspool``: ``from_openai`` / ``from_anthropic`` over that same raw stream
  (live partial arguments on every delta, the validated call at the end);
* ``sdk helper``: ``client.chat.completions.stream`` with a strict tool built by
  ``openai.pydantic_function_tool``, and Anthropic's ``client.messages.stream``
  (each re-parses the accumulated arguments on every delta).

A second measurement takes the SDK events already read (so HTTP and the SDK's
per-chunk model building, the same for both, are out) and times the adapter
against the helper's own accumulator (``ChatCompletionStreamState.handle_chunk``;
Anthropic's ``accumulate_event`` + ``build_events``, which ``MessageStream``
calls per event).

A third, ``per delta``, takes a text-only reply (4-character deltas) and a tool call's
4-byte argument deltas as the SDK's own chunk objects and prints the microseconds
``from_openai`` spends per delta beside the SDK's ``ChatCompletionStreamState`` (the
accumulator behind ``chat.completions.stream()``) on the same objects, and their ratio.

Run: ``PYTHONPATH=src .venv/bin/python bench/bench_providers.py [--sizes 4 32 128]``.
Prints seconds (best of ``--repeat``; one run of the helpers above 32 KB) and
the helper/unspool ratios.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import anthropic
import openai
from anthropic.lib.streaming._messages import accumulate_event, build_events
from openai.lib.streaming.chat import ChatCompletionStreamState
from pydantic import BaseModel

from tests.support.replay import ReplayServer, Reply
from tests.support.replay.wire import Call, Text, anthropic_events, chat_chunks, sse
from unspool import ActionComplete
from unspool.sources import from_anthropic, from_openai

MESSAGES = [{"role": "user", "content": "write the file"}]
PIECE = 4


class WriteFile(BaseModel):
    path: str
    content: str
    tags: list[str]


def arguments(kb: int) -> str:
    """About ``kb`` KB of JSON arguments: prose with escapes and non-ASCII, and a list."""
    line = 'Line with \\"quotes\\", a tab\\t, naïve café, 東京 and an emoji 🎉.\\n'
    content = line * (kb * 1024 // len(line.encode()))
    return '{"path": "notes/today.md", "content": "' + content + '", "tags": ["a", "b", "c"]}'


def pieces(text: str) -> list[str]:
    return [text[i : i + PIECE] for i in range(0, len(text), PIECE)]


def best(run: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


Timings = tuple[tuple[float, float, float], tuple[float, float]]


def helper_repeat(kb: int, repeat: int) -> int:
    """The quadratic helpers get one run at the largest sizes, to keep the bench short."""
    return repeat if kb <= 32 else 1


def bench_openai(server: ReplayServer, kb: int, repeat: int) -> Timings:
    args = arguments(kb)
    chunks = chat_chunks(
        [Text(["Writing."]), Call("write_file", "call_1", pieces(args))], "tool_calls"
    )
    body = sse(chunks, named=False, done=True)
    client = openai.OpenAI(base_url=server.url + "/v1", api_key="k", max_retries=0)
    tool = openai.pydantic_function_tool(WriteFile, name="write_file")

    def create() -> openai.Stream:  # type: ignore[type-arg]
        server.play(Reply([body]))
        return client.chat.completions.create(model="m", messages=MESSAGES, stream=True)  # type: ignore[arg-type]

    def raw() -> None:
        for _ in create():
            continue  # drain

    def ours() -> None:
        last = None
        for event in from_openai(create()):
            last = event if isinstance(event, ActionComplete) else last
        assert last is not None and last.args["content"][:4] == "Line"

    def helper() -> None:
        server.play(Reply([body]))
        manager = client.chat.completions.stream(model="m", messages=MESSAGES, tools=[tool])  # type: ignore[arg-type]
        with manager as stream:
            for _ in stream:
                continue  # drain
            final = stream.get_final_completion()
        parsed = final.choices[0].message.tool_calls[0].function.parsed_arguments  # type: ignore[index,union-attr]
        assert isinstance(parsed, WriteFile)

    objs = list(create())
    tools = [tool]

    def ours_decoded() -> None:
        for _ in from_openai(objs):
            continue  # drain

    def helper_decoded() -> None:
        state: ChatCompletionStreamState[None] = ChatCompletionStreamState(input_tools=tools)
        for obj in objs:
            state.handle_chunk(obj)

    e2e = (best(raw, repeat), best(ours, repeat), best(helper, helper_repeat(kb, repeat)))
    return e2e, (best(ours_decoded, repeat), best(helper_decoded, helper_repeat(kb, repeat)))


def bench_anthropic(server: ReplayServer, kb: int, repeat: int) -> Timings:
    args = arguments(kb)
    events = anthropic_events(
        [Text(["Writing."]), Call("write_file", "toolu_1", pieces(args))], "tool_use"
    )
    body = sse(events, named=True)
    client = anthropic.Anthropic(base_url=server.url, api_key="k", max_retries=0)

    def create() -> anthropic.Stream:  # type: ignore[type-arg]
        server.play(Reply([body]))
        return client.messages.create(
            model="claude-test", max_tokens=9, messages=MESSAGES, stream=True
        )  # type: ignore[arg-type]

    def raw() -> None:
        for _ in create():
            continue  # drain

    def ours() -> None:
        last = None
        for event in from_anthropic(create()):
            last = event if isinstance(event, ActionComplete) else last
        assert last is not None and last.args["content"][:4] == "Line"

    def helper() -> None:
        server.play(Reply([body]))
        manager = client.messages.stream(model="claude-test", max_tokens=9, messages=MESSAGES)  # type: ignore[arg-type]
        with manager as stream:
            for _ in stream:
                continue  # drain
            final = stream.get_final_message()
        assert final.content[-1].input["content"][:4] == "Line"  # type: ignore[union-attr,index]

    objs = list(create())

    def ours_decoded() -> None:
        for _ in from_anthropic(objs):
            continue  # drain

    def helper_decoded() -> None:
        snapshot = None
        bufs: dict[int, bytes] = {}
        for obj in objs:
            snapshot = accumulate_event(event=obj, current_snapshot=snapshot, json_bufs=bufs)
            build_events(event=obj, message_snapshot=snapshot)

    e2e = (best(raw, repeat), best(ours, repeat), best(helper, helper_repeat(kb, repeat)))
    return e2e, (best(ours_decoded, repeat), best(helper_decoded, helper_repeat(kb, repeat)))


def per_delta(repeat: int) -> list[tuple[str, int, float, float]]:
    """``(kind, deltas, unspool µs/delta, SDK accumulator µs/delta)`` on the SDK's objects."""
    from openai._models import construct_type
    from openai.types.chat import ChatCompletionChunk

    text = "Bonjour à tous, voici un texte naïf: 東京 🎉. " * 100
    streams = {
        "text": chat_chunks([Text(pieces(text))], "stop"),
        "tool args": chat_chunks(
            [Call("write_file", "call_1", pieces(arguments(4)))], "tool_calls"
        ),
    }
    rows = []
    for kind, chunks in streams.items():
        objs = [construct_type(type_=ChatCompletionChunk, value=c) for c in chunks]
        deltas = len(objs) - 2  # the first (role) and the last (finish) chunks aside

        def ours(objs: list[object] = objs) -> None:
            for _ in from_openai(objs):
                continue

        def sdk(objs: list[object] = objs) -> None:
            state: ChatCompletionStreamState[None] = ChatCompletionStreamState()
            for obj in objs:
                state.handle_chunk(obj)  # type: ignore[arg-type]

        ours_s, sdk_s = best(ours, repeat), best(sdk, repeat)
        rows.append((kind, deltas, ours_s / deltas * 1e6, sdk_s / deltas * 1e6))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes", type=int, nargs="+", default=[4, 32, 128], help="KB of arguments"
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (best kept)")
    parser.add_argument("--providers", nargs="+", default=["openai", "anthropic"])
    opts = parser.parse_args()
    print(f"One tool call, arguments in {PIECE}-byte deltas; seconds, best of {opts.repeat}")
    print("end to end: replayed over HTTP to the real SDK client (raw = SDK iteration alone);")
    print("decoded: the same SDK events, already read, through the adapter or the helper's state")
    print(
        f"{'provider':<10} {'KB':>4} {'deltas':>7} | {'raw':>7} {'unspool':>8} {'helper':>8}"
        f" {'ratio':>6} | {'unspool':>8} {'helper':>8} {'ratio':>6} {'µs/delta':>9}"
    )
    print("per delta: the SDK's chunk objects, from_openai vs the SDK's own accumulator")
    print(f"{'kind':<10} {'deltas':>7} | {'unspool µs':>10} {'SDK µs':>8} {'SDK/unspool':>11}")
    for kind, deltas, ours_us, sdk_us in per_delta(opts.repeat):
        print(
            f"{kind:<10} {deltas:>7} | {ours_us:>10.2f} {sdk_us:>8.2f} {sdk_us / ours_us:>10.1f}x"
        )
    with ReplayServer() as server:
        benches = {"openai": bench_openai, "anthropic": bench_anthropic}
        for name in opts.providers:
            bench = benches[name]
            for kb in opts.sizes:
                (raw, ours, helper), (ours_d, helper_d) = bench(server, kb, opts.repeat)
                deltas = len(pieces(arguments(kb)))
                print(
                    f"{name:<10} {kb:>4} {deltas:>7} | {raw:>7.3f} {ours:>8.3f} {helper:>8.3f}"
                    f" {helper / ours:>5.1f}x | {ours_d:>8.3f} {helper_d:>8.3f}"
                    f" {helper_d / ours_d:>5.1f}x {ours_d / deltas * 1e6:>9.1f}"
                )


if __name__ == "__main__":
    main()
