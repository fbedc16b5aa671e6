"""AVA's input layouts (paper section 5.2) as verifier layouts.

A layout string lists views separated by '|'; a view is 'A,B' where each
side is '+'-joined members of the tuple: q (question), r (reference),
t (target = the candidate being judged). Examples:

    'q,t'            A0((q, t))
    'q,r|q,t|r,t'    A0(P0): three pair instances, representations concatenated
    'r,q+t'          A1((r, q∘t))
    'r,q+t|t,q+r'    A1 pair of pairs (with peer=True in the spec: A2)

The question is kept whole on truncation; r and t are trimmed evenly.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Callable

from qascore.records import Record
from qascore.runtime import defaults
from qascore.runtime.verifier import Part, Verifier, View, load_shared

AVA_DIR = defaults.RESOURCES / "ava"   # shipped deltas (ava.safetensors = the `ava` metric) and configs/


@lru_cache(maxsize=1)
def installed_ava() -> str:
    """The shipped verifier's name@hash, as the cards fitted on its outputs (`judge`, `square`) record it
    (hashed once per process: every `score` call checks a card against it)."""
    from qascore.runtime.delta import file_sha256

    return f"ava@{file_sha256(AVA_DIR / 'ava.safetensors')}"

MEMBERS = {"q": "question", "r": "reference", "t": "target"}


def parse(layout: str) -> list[tuple[list[str], list[str]]]:
    """'q,r+t|t,q+r' -> [(['q'], ['r', 't']), (['t'], ['q', 'r'])]; refuses unknown members."""
    views = []
    for chunk in layout.split("|"):
        sides = chunk.strip().split(",")
        if len(sides) not in (1, 2):
            raise ValueError(f"layout view '{chunk}' must be 'A,B' or 'A'")
        parsed = []
        for side in sides:
            names = [m.strip() for m in side.split("+") if m.strip()]
            bad = [m for m in names if m not in MEMBERS]
            if bad or not names:
                raise ValueError(f"layout '{layout}': unknown member(s) {bad or side!r}; use q, r, t")
            parsed.append(names)
        views.append((parsed[0], parsed[1] if len(parsed) > 1 else []))
    return views


def make_layout(layout: str) -> Callable[[Record], list[View]]:
    """The verifier layout for a layout string (reference = record.references[0])."""
    spec = parse(layout)

    def texts(rec: Record) -> dict[str, str]:
        return {"q": rec.question, "r": rec.references[0] if rec.references else "", "t": rec.candidate}

    def build(rec: Record) -> list[View]:
        tx = texts(rec)
        return [([Part(tx[m], keep=(m == "q")) for m in a], [Part(tx[m], keep=(m == "q")) for m in b])
                for a, b in spec]

    build.__name__ = f"ava_layout[{layout}]"
    return build


def n_views(layout: str) -> int:
    return len(parse(layout))


def uses_reference(layout: str) -> bool:
    return any("r" in a + b for a, b in parse(layout))


def load_verifier(path: str | Path, device: str | None = None) -> Verifier:
    """The AVA verifier stored at `path`, with the layout its metadata names, created once per process and device."""
    return load_shared(path, make_layout, device)
