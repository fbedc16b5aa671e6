"""Process-wide model cache: each model is created once and shared by every metric."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any, Callable, Hashable

_CACHE: dict[Hashable, Any] = {}
# Re-entrant: a factory may itself ask for shared objects (a verifier needs its tokenizer).
_LOCK = threading.RLock()


def shared(key: Hashable, factory: Callable[[], Any]) -> Any:
    """Return the object cached under `key`, creating it with `factory` on first use."""
    with _LOCK:
        if key not in _CACHE:
            _CACHE[key] = factory()
        return _CACHE[key]


def clear() -> None:
    with _LOCK:
        _CACHE.clear()


def empty(kind: str) -> None:
    """Empty, in place, every shared dict whose key starts with `kind` (memos that grow with the data)."""
    with _LOCK:
        for key, obj in _CACHE.items():
            if isinstance(key, tuple) and key and key[0] == kind and isinstance(obj, dict):
                obj.clear()


def cache_root() -> Path:
    """Where derived files live: $QASCORE_CACHE, else $XDG_CACHE_HOME/qascore, else ~/.cache/qascore."""
    env = os.environ.get("QASCORE_CACHE")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "qascore"
