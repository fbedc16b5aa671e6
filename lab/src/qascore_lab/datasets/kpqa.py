"""KPQA human correctness judgments (Lee et al., NAACL 2021) as qascore Records.

The protocol that reproduces the paper's Table 3 is fixed here, in one table:
- marco / avsd: the `*_all.csv` files hold 500 rows of one system then 500 of
  the other (UniLM then MHPGM; MTN then AMF), checked against the per-system
  files of the first release; each record says its system in extra["system"].
- avsd: the first 5 of its 6 reference columns (reference6 kept in
  extra["unused_references"]).
- narrativeqa: both reference columns.
- semeval: one reference; the column headed `reference2` holds the human score
  (a quirk of the release; the first release's header says `scores`).
Every record carries extra["human"] (float), extra["system"], extra["dataset"];
other columns (Chen et al.'s precomputed Bleu1/Bleu4/RougeL/Meteor) pass through.
"""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass
from pathlib import Path

from qascore_lab.datasets import benchmark_dir
from qascore.records import InputError, Record

FOLDER = "kpqa_human_eval"
INITIAL = "initial_commit_per_system"


@dataclass(frozen=True)
class _Layout:
    """Where one data set lives and which columns mean what."""

    current: str                      # file of the current release
    prefix: str                       # per-system files: f"{prefix}_{system}.csv"
    systems: tuple[str, ...]          # in the order they appear in `current`
    n_refs: int                       # reference columns used (first n)
    human: str = "scores"             # column holding the human score (current release)


DATASETS: dict[str, _Layout] = {
    "marco": _Layout("marco_all.csv", "marco", ("unilm", "mhpgm"), 1),
    "avsd": _Layout("avsd_all.csv", "avsd", ("mtn", "amf"), 5),
    "narrativeqa": _Layout("nrqa_mhpgm.csv", "nrqa", ("mhpgm",), 2),
    "semeval": _Layout("semeval_mhpgm.csv", "semeval", ("mhpgm",), 1, human="reference2"),
    "marco-multi": _Layout("marcomulti_unilm.csv", "marcomulti", ("unilm",), 1),
}
# The four data sets of the paper's Table 3, in its column order.
TABLE3 = ("marco", "avsd", "narrativeqa", "semeval")
RELEASES = ("current", "initial")

# Column names of the two releases.
_CURRENT_COLS = {"question": "question", "candidate": "answer", "ref": "reference"}
_INITIAL_COLS = {"question": "query", "candidate": "hyps", "ref": "refs", "human": "scores"}


def systems(dataset: str) -> tuple[str, ...]:
    """The systems whose answers a data set holds, in file order."""
    return _layout(dataset).systems


def load(dataset: str, *, system: str | None = None, release: str = "current",
         root: str | os.PathLike[str] | None = None) -> list[Record]:
    """Records of one data set (optionally one system's rows).

    release="current" reads the top-level file (the paper's numbers);
    release="initial" reads the first release's per-system files (same
    judgments; small text differences for some systems).
    """
    lay = _layout(dataset)
    if system is not None and system not in lay.systems:
        raise ValueError(f"kpqa {dataset}: unknown system '{system}' (choose from {lay.systems})")
    if release not in RELEASES:
        raise ValueError(f"kpqa: unknown release '{release}' (choose from {RELEASES})")
    folder = benchmark_dir(FOLDER, root)
    if release == "current":
        recs = _read(folder / lay.current, dataset, lay, _CURRENT_COLS | {"human": lay.human}, None)
        return [r for r in recs if system is None or r.extra["system"] == system]
    out: list[Record] = []
    for name in (system,) if system else lay.systems:
        out.extend(_read(folder / INITIAL / f"{lay.prefix}_{name}.csv", dataset, lay, _INITIAL_COLS, name))
    return out


def load_all(*, release: str = "current", root: str | os.PathLike[str] | None = None,
             names: tuple[str, ...] = tuple(DATASETS)) -> dict[str, list[Record]]:
    """Every data set by name."""
    return {name: load(name, release=release, root=root) for name in names}


def _layout(dataset: str) -> _Layout:
    if dataset not in DATASETS:
        raise ValueError(f"kpqa: unknown data set '{dataset}' (choose from {', '.join(DATASETS)})")
    return DATASETS[dataset]


def _read(path: Path, dataset: str, lay: _Layout, cols: dict[str, str], system: str | None) -> list[Record]:
    src = str(path)
    if not path.is_file():
        raise InputError("no such file (is the kpqa_human_eval folder complete?)", source=src)
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    header, body = rows[0], rows[1:]
    ref_cols = sorted((h for h in header if h.startswith(cols["ref"]) and h[len(cols["ref"]):].isdigit()
                       and h != cols["human"]), key=lambda h: int(h[len(cols["ref"]):]))
    for need in (cols["question"], cols["candidate"], cols["human"]):
        if need not in header:
            raise InputError(f"column '{need}' missing from header {header}", source=src, line=1)
    if len(ref_cols) < lay.n_refs:
        raise InputError(f"expected {lay.n_refs} reference column(s), found {ref_cols}", source=src, line=1)
    used, unused = ref_cols[:lay.n_refs], ref_cols[lay.n_refs:]
    core = {cols["question"], cols["candidate"], cols["human"], *ref_cols}
    per_system = len(body) // len(lay.systems) if system is None else len(body)
    out = []
    for i, row in enumerate(body):
        line = i + 2
        if len(row) != len(header):
            raise InputError(f"has {len(row)} columns, header has {len(header)}", source=src, line=line)
        cell = dict(zip(header, row))
        try:
            human = float(cell[cols["human"]])
        except ValueError:
            raise InputError(f"human score '{cell[cols['human']]}' is not a number", source=src,
                             line=line, field=cols["human"]) from None
        extra = {"human": human, "dataset": dataset,
                 "system": system or lay.systems[min(i // per_system, len(lay.systems) - 1)]}
        if unused:
            extra["unused_references"] = [cell[c] for c in unused]
        extra.update({h: v for h, v in cell.items() if h not in core and h not in ("", "Unnamed: 0")})
        out.append(Record(id=f"{dataset}-{i}", question=cell[cols["question"]], candidate=cell[cols["candidate"]],
                          references=[cell[c] for c in used], extra=extra, source=src, line=line,
                          present=frozenset({"id", "question", "candidate", "references"})))
    return out


__all__ = ["DATASETS", "TABLE3", "RELEASES", "systems", "load", "load_all"]
