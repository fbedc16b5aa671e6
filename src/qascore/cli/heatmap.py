"""The `explain` heat map: a colour-blind-safe scale, readable text on every shade, wrapping rows.

Why: saturated red behind black text was hard to read, rows of one table cell per
word never wrapped, and there was no legend. The scale is ColorBrewer's 9-class
YlGnBu (sequential, colour-blind safe); text is black or white, whichever
contrasts more with the shade (WCAG relative luminance). Words are inline
blocks, so long texts wrap like prose; each shows its raw weight beneath.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

# ColorBrewer YlGnBu, 9 classes: light (low weight) to dark (high weight).
SCALE = ("#ffffd9", "#edf8b1", "#c7e9b4", "#7fcdbb", "#41b6c4", "#1d91c0", "#225ea8", "#253494", "#081d58")


@dataclass
class Row:
    """One text's words with their KPW and IDF weights."""

    label: str
    words: list[str]
    kpw: np.ndarray
    idf: np.ndarray


@dataclass
class Example:
    """One record to draw: id, question, its rows, and metric scores with and without KPW."""

    id: str
    question: str
    rows: list[Row]
    scores: Mapping[str, float]


def normalise(v: np.ndarray) -> np.ndarray:
    """Divide by the row's maximum (as the KPQA paper's Table 5); all-zero rows stay 0."""
    top = float(v.max()) if len(v) else 0.0
    return v / top if top > 0 else np.zeros_like(v)


def shade(level: float) -> str:
    """The scale's colour for a level in [0, 1]."""
    return SCALE[min(len(SCALE) - 1, max(0, int(round(level * (len(SCALE) - 1)))))]


def _luminance(hex_colour: str) -> float:
    def lin(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)


def text_colour(background: str) -> str:
    """Black or white, whichever has the higher WCAG contrast ratio against `background`."""
    lum = _luminance(background)
    return "#000000" if (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) else "#ffffff"


def ansi(word: str, level: float) -> str:
    """A word on its shade in a 24-bit colour terminal."""
    bg = shade(level)
    fg = text_colour(bg)
    rgb = lambda h: ";".join(str(int(h[i:i + 2], 16)) for i in (1, 3, 5))  # noqa: E731
    return f"\x1b[48;2;{rgb(bg)}m\x1b[38;2;{rgb(fg)}m{word}\x1b[0m"


_CSS = """body{font-family:sans-serif;margin:2em;max-width:60em;line-height:1.3}
section{margin-bottom:2em}.row{margin:.3em 0;display:flex}.h{flex:0 0 9em;font-weight:bold}.ws{flex:1}
.w{display:inline-block;margin:1px;padding:1px 4px;border-radius:3px;text-align:center;overflow-wrap:anywhere}
.w small{display:block;font-size:70%}.legend span{display:inline-block;width:2.2em;height:1.2em}
table.scores td{padding:1px 8px}"""


def legend() -> str:
    cells = "".join(f"<span style='background:{c}' title='{i / (len(SCALE) - 1):.2f} of the row maximum'></span>"
                    for i, c in enumerate(SCALE))
    return f"<p class='legend'>weight: 0 {cells} the row's maximum</p>"


def _words(head: str, words: Sequence[str], vals: np.ndarray | None) -> str:
    parts = [f"<div class='row'><span class='h'>{html.escape(head)}</span><div class='ws'>"]
    levels = normalise(vals) if vals is not None else None
    for i, w in enumerate(words):
        if vals is None or levels is None:
            parts.append(f"<span class='w'>{html.escape(w)}</span>")
            continue
        bg = shade(float(levels[i]))
        parts.append(f"<span class='w' style='background:{bg};color:{text_colour(bg)}' title='{vals[i]:.3f}'>"
                     f"{html.escape(w)}<small>{vals[i]:.2f}</small></span>")
    return " ".join(parts) + "</div></div>"


def _scores(scores: Mapping[str, float]) -> str:
    if not scores:
        return ""
    cells = "".join(f"<tr><td>{html.escape(k)}</td><td>{v:.3f}</td></tr>" for k, v in scores.items())
    return f"<table class='scores'><caption>scores</caption>{cells}</table>"


def page(examples: Sequence[Example], kpw_signature: str, idf_note: str) -> str:
    """One self-contained HTML page (no scripts, no network)."""
    out = ["<!doctype html><html lang='en'><head><meta charset='utf-8'><title>qascore explain</title>",
           f"<style>{_CSS}</style></head><body>",
           "<p>KPW and IDF per word. Shading is normalised per row by its maximum (as in KPQA Table 5); "
           "the number under each word is its raw weight.<br>"
           f"KPW: {html.escape(kpw_signature)}.<br>IDF: {html.escape(idf_note)}.</p>", legend()]
    for ex in examples:
        out.append(f"<section><h3>[{html.escape(ex.id)}] Question: {html.escape(ex.question)}</h3>")
        for row in ex.rows:
            out.append(_words(row.label.capitalize(), row.words, None))
            out.append(_words("IDF", row.words, row.idf))
            out.append(_words("KPW", row.words, row.kpw))
        out.append(_scores(ex.scores))
        out.append("</section>")
    out.append("</body></html>\n")
    return "\n".join(out)
