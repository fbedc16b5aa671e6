"""`qascore meta INPUT --human F --html report.html`: one self-contained page people look at.

Why: a table of coefficients hides what a scatter plot shows at once (a metric
that is constant on half the items, a ceiling, outliers). The page holds the
correlation table with CIs, one scatter plot per metric against the human
score, and the matrix of pairwise tests "row beats column". Plots are
matplotlib PNGs embedded as data: URIs, so the file opens offline, with no
script and no network request.
"""

from __future__ import annotations

import base64
import html
import io
import math
from typing import Mapping, Sequence

import numpy as np

from qascore.errors import MissingDependency
from qascore.meta.compare import compare_correlations
from qascore.meta.correlation import SMALL_N, Correlation

ALPHA = 0.05


def _pyplot():  # noqa: ANN202 -- matplotlib is optional
    try:
        import matplotlib
    except ImportError:
        raise MissingDependency("matplotlib (meta --html draws its plots with it)",
                                "pip install 'qascore[report]' (or pip install matplotlib)") from None
    matplotlib.use("Agg")  # files only, never a window
    import matplotlib.pyplot as plt

    return plt


def scatter_png(human: np.ndarray, values: np.ndarray, name: str, human_name: str) -> str:
    """A scatter plot of one metric against the human score, as a base64 PNG."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(3.6, 3.0), dpi=100)
    ax.scatter(human, values, s=12, alpha=0.6, color="#225ea8", edgecolors="none")
    ax.set_xlabel(human_name)
    ax.set_ylabel(name)
    ax.set_title(name, fontsize=10)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def pairwise(human: np.ndarray, columns: Mapping[str, np.ndarray], method: str, test: str, *,
             n_resamples: int, seed: int) -> dict[tuple[str, str], float | None]:
    """One-sided p of 'row correlates better than column' for every ordered pair (None: undefined)."""
    out: dict[tuple[str, str], float | None] = {}
    for a in columns:
        for b in columns:
            if a == b:
                continue
            try:
                res = compare_correlations(human, columns[a], columns[b], method, test,
                                           n_resamples=n_resamples, seed=seed)
                out[(a, b)] = res.p_value
            except ValueError:  # a constant metric: no correlation, no test
                out[(a, b)] = None
    return out


_CSS = """body{font-family:sans-serif;margin:2em;max-width:70em}table{border-collapse:collapse;margin:1em 0}
td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#f4f4f4}td.l,th.l{text-align:left}
td.sig{background:#1d91c0;color:#fff;font-weight:bold}.plots img{margin:4px;border:1px solid #eee}
li code{overflow-wrap:anywhere;word-break:break-all}"""


def p_text(p: float | None) -> str:
    """A p-value as the terminal table of `qascore meta` prints it (3 decimals; 1 significant figure in
    scientific notation below 0.001): the page and the terminal say the same number."""
    if p is None or math.isnan(p):
        return "n/a"
    if p == 0:
        return "0"
    return f"{p:.1e}" if p < 1e-3 else f"{p:.3f}"


def _fmt(x: float | None, spec: str = ".3f") -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, spec)


def _table(table: Mapping[str, Mapping[str, Correlation]], methods: Sequence[str]) -> str:
    head = "".join(f"<th>{m}</th><th>CI</th><th>p</th>" for m in methods)
    rows = []
    for name, cors in table.items():
        cells = ""
        for m in methods:
            c = cors[m]
            ci = f"[{_fmt(c.ci_low)}, {_fmt(c.ci_high)}]" if c.ci_low is not None else "-"
            cells += f"<td>{_fmt(c.value)}</td><td>{ci}</td><td>{p_text(c.p_value)}</td>"
        rows.append(f"<tr><td class='l'>{html.escape(name)}</td>{cells}</tr>")
    return f"<table><tr><th class='l'>metric</th>{head}</tr>{''.join(rows)}</table>"


def _matrix(names: Sequence[str], p: Mapping[tuple[str, str], float | None]) -> str:
    head = "".join(f"<th>{html.escape(b)}</th>" for b in names)
    rows = []
    for a in names:
        cells = []
        for b in names:
            if a == b:
                cells.append("<td>-</td>")
                continue
            v = p[(a, b)]
            cls = " class='sig'" if v is not None and v < ALPHA else ""
            cells.append(f"<td{cls}>{p_text(v)}</td>")
        rows.append(f"<tr><th class='l'>{html.escape(a)}</th>{''.join(cells)}</tr>")
    return f"<table><tr><th class='l'>row beats column?</th>{head}</tr>{''.join(rows)}</table>"


def page(*, source: str, human_name: str, human: np.ndarray, columns: Mapping[str, np.ndarray],
         table: Mapping[str, Mapping[str, Correlation]], methods: Sequence[str], compare_method: str, test: str,
         n_resamples: int, seed: int, signatures: Mapping[str, str]) -> str:
    """The whole report as one HTML string."""
    p = pairwise(human, columns, compare_method, test, n_resamples=n_resamples, seed=seed) if len(columns) > 1 else {}
    plots = "".join(f"<img alt='{html.escape(name)} against {html.escape(human_name)}' "
                    f"src='data:image/png;base64,{scatter_png(human, vals, name, human_name)}'>"
                    for name, vals in columns.items())
    test_name = "Williams' test" if test == "williams" else f"paired bootstrap ({n_resamples} resamples)"
    sigs = "".join(f"<li><code>{html.escape(s)}</code></li>" for s in signatures.values())
    return "\n".join([
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>qascore meta report</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>Metrics against human judgments</h1><p>{html.escape(source)}: {len(human)} items, human field "
        f"<code>{html.escape(human_name)}</code>.</p>",
        (f"<p><strong>Only {len(human)} items:</strong> below {SMALL_N}, bootstrap intervals and p-values are "
         f"unreliable (an interval may reach 1.000).</p>" if len(human) < SMALL_N else ""),
        "<h2>Correlations</h2>", _table(table, methods),
        "<h2>Each metric against the human score</h2>", f"<div class='plots'>{plots}</div>",
        (f"<h2>Does the row metric correlate better than the column metric?</h2><p>One-sided p-values of "
         f"{test_name} on {compare_method}; shaded where p &lt; {ALPHA}.</p>" + _matrix(list(columns), p)
         if len(columns) > 1 else ""),  # one metric: nothing to compare
        f"<h2>Signatures</h2><ul>{sigs}</ul>" if sigs else "",
        "</body></html>\n"])
