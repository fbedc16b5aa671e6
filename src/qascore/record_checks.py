"""What every record must be before anything scores or writes it: text that is text, and data that is flat
enough to write back.

Why: a lone surrogate (`"\\ud800"`, valid JSON) is not encodable as UTF-8, so it used to pass the reader
and fail later in a writer or a tokenizer with no line named; a pass-through field nested hundreds of
levels deep broke the writer's recursion. Both are now refused where the record is made (the readers,
the server and `Record(...)` in Python alike), naming the field.
"""

from __future__ import annotations

import re
from typing import Any

MAX_DEPTH = 64  # lists and objects inside one another in one field; JSON from real tools stays far below

_SURROGATE = re.compile("[\ud800-\udfff]")


def printable(text: str) -> str:
    """`text` safe to print on any UTF-8 stream: a lone surrogate written as its escape."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def visible(name: str) -> str:
    """A field name as one printable line: newlines, control characters and surrogates as escapes."""
    return name if name.isprintable() else name.encode("unicode_escape").decode("ascii")


# Characters a terminal acts on instead of showing: C0/C1 controls (ESC starts a colour, a title change, a
# cursor move), DEL, line and paragraph separators, and the bidirectional overrides that reorder a line.
_TERMINAL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def terminal_safe(text: str, limit: int | None = None) -> str:
    """`text` as inert characters for a terminal or a log line: every control character (newlines too),
    bidirectional override and lone surrogate written as its escape (`\x1b`); with `limit`, cut to that many
    characters and said so. Used wherever qascore prints text it was given (issue 42)."""
    if limit is not None and len(text) > limit:
        text = f"{text[:limit]}... ({len(text):,} characters)"
    return _TERMINAL.sub(lambda m: ascii(m.group())[1:-1], text)


def surrogate_problem(text: str) -> str | None:
    """Why `text` is not text (a lone surrogate and where), or None."""
    hit = _SURROGATE.search(text)
    if hit is None:
        return None
    return (f"contains a lone surrogate ({ascii(hit.group())[1:-1]} at character {hit.start() + 1}), "
            f"which is not text; fix whatever wrote this string")


def value_problem(value: Any, limit: int = MAX_DEPTH) -> str | None:
    """Why a pass-through value cannot be kept (too deep, or a string or key that is not text), or None.

    Iterative, so a value nested thousands of levels deep is refused without recursion."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            why = surrogate_problem(item)
            if why:
                return why
        elif isinstance(item, (list, tuple, dict)):
            if depth + 1 > limit:
                return f"nested deeper than {limit} levels (lists and objects inside one another)"
            if isinstance(item, dict):
                for key, inner in item.items():
                    if isinstance(key, str) and surrogate_problem(key):
                        return f"has a key that {surrogate_problem(key)}"
                    stack.append((inner, depth + 1))
            else:
                stack.extend((inner, depth + 1) for inner in item)
    return None
