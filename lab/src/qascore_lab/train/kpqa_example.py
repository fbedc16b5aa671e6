"""The KPQA tagger's training example, apart from its builders (kpqa_data, kpqa_ae) so neither imports the other."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Example:
    """One tagger example; `spans` are character offsets into `sentence`."""

    question: str
    sentence: str
    spans: tuple[tuple[int, int], ...]
    source: str   # "squad" | "wikiqa" | "ae" | "squad-polar" | "wikiqa-polar"
    group: str    # split unit: passage or question id
    id: str = ""
