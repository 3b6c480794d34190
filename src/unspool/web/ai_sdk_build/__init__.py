"""The demo page's AI SDK chat client, built on demand into a per-user cache folder.

The page's "AI SDK client" switch imports the Vercel AI SDK's own ``AbstractChat`` and
``DefaultChatTransport`` as one ES module. unspool ships no built copy: this folder holds
the pinned manifest (``package.json`` + ``package-lock.json``) and ``build.mjs``, and
:func:`build_ai_sdk` runs ``npm ci`` and that script (esbuild) into :func:`ai_sdk_dir`
(``$UNSPOOL_AI_SDK_DIR``, else ``$XDG_CACHE_HOME/unspool/ai-sdk``, else
``~/.cache/unspool/ai-sdk``). The output, in ``dist/`` there, counts as built only while
its stamp matches these sources, so a new pin means a rebuild rather than a stale client.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

__all__ = [
    "BUILD_COMMAND",
    "BUNDLE",
    "ENV_VAR",
    "LICENSES",
    "SOURCES",
    "AiSdkBuildError",
    "ai_sdk_dir",
    "build_ai_sdk",
    "build_help",
    "built_ai_sdk",
]

ENV_VAR = "UNSPOOL_AI_SDK_DIR"
"""Environment variable naming the folder the client is built into (and served from)."""
BUNDLE = "ai-sdk-chat.js"
"""The built ES module."""
LICENSES = "ai-sdk-chat.LICENSES.txt"
"""The licences of the packages bundled into :data:`BUNDLE`."""
SOURCES = Path(__file__).resolve().parent
"""The folder holding ``package.json``, ``package-lock.json`` and ``build.mjs``."""
_SOURCE_FILES = ("package.json", "package-lock.json", "build.mjs")
BUILD_COMMAND = "unspool demo --web --build-ai-sdk"
"""The documented command that builds the client, then serves the demo."""


class AiSdkBuildError(RuntimeError):
    """The client could not be built: node or npm missing, or a step failed (its output)."""


def ai_sdk_dir() -> Path:
    """The folder to build into and serve from: ``$UNSPOOL_AI_SDK_DIR``, else the user's cache."""
    chosen = os.environ.get(ENV_VAR)
    if chosen:
        return Path(chosen).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "unspool" / "ai-sdk"


def _stamp() -> str:
    digest = hashlib.sha256()
    for name in _SOURCE_FILES:
        digest.update(name.encode() + b"\0" + (SOURCES / name).read_bytes())
    return digest.hexdigest()


def built_ai_sdk(folder: Path | None = None) -> Path | None:
    """The ``dist/`` folder holding :data:`BUNDLE` and :data:`LICENSES`, or ``None`` when
    they are missing or were built from other sources than this unspool's."""
    dist = (folder or ai_sdk_dir()) / "dist"
    try:
        stamp = (dist / ".stamp").read_text()
    except OSError:
        return None
    if stamp != _stamp() or not (dist / BUNDLE).is_file() or not (dist / LICENSES).is_file():
        return None
    return dist


def build_help(folder: Path | None = None) -> str:
    """What to do to get the client: what to install, and the command to run."""
    where = folder or ai_sdk_dir()
    command = f"run `{BUILD_COMMAND}` once (npm installs the pinned `ai` into {where})"
    if shutil.which("node") is None or shutil.which("npm") is None:
        return f"The AI SDK client is not built: install node and npm, then {command}."
    return f"The AI SDK client is not built: {command}."


def _run(command: list[str], cwd: Path, timeout: float) -> None:
    try:
        done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise AiSdkBuildError(f"`{' '.join(command)}` took over {timeout:g}s in {cwd}") from None
    if done.returncode != 0:
        output = (done.stderr or done.stdout)[-2000:]
        raise AiSdkBuildError(f"`{' '.join(command)}` failed in {cwd}:\n{output}")


def build_ai_sdk(folder: Path | None = None, *, timeout: float = 600) -> Path:
    """Build the client into ``folder`` (default :func:`ai_sdk_dir`) unless already built;
    its ``dist/`` folder. ``npm ci`` reruns only when the pins changed; the new output
    replaces the old one only once complete. Not safe for two builds of one folder at once."""
    folder = folder or ai_sdk_dir()
    done = built_ai_sdk(folder)
    if done is not None:
        return done
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        raise AiSdkBuildError("building the AI SDK client needs node and npm on PATH")
    folder.mkdir(parents=True, exist_ok=True)
    stamp = _stamp()
    installed = folder / "node_modules" / ".unspool-stamp"
    for name in _SOURCE_FILES:
        shutil.copyfile(SOURCES / name, folder / name)
    if not installed.is_file() or installed.read_text() != stamp:
        _run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], folder, timeout)
        installed.write_text(stamp)
    fresh, dist, old = folder / "dist.new", folder / "dist", folder / "dist.old"
    for leftover in (fresh, old):
        shutil.rmtree(leftover, ignore_errors=True)
    fresh.mkdir()
    _run([node, "build.mjs", str(fresh)], folder, timeout)
    (fresh / ".stamp").write_text(stamp)
    if dist.exists():
        dist.rename(old)
    fresh.rename(dist)
    shutil.rmtree(old, ignore_errors=True)
    return dist
