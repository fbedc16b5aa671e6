"""Answer sentence selection (AS2) corpora: WikiQA and TREC-QA, plus system rankings.

An AS2 question has a list of candidate sentences with 0/1 correctness
labels. WikiQA also ships answer phrases inside its correct sentences
(AVA's short answer `s`) and, in `emnlp-table/*.rank`, the scores two
systems of the WikiQA paper gave every candidate.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

from qascore.records import InputError


@dataclass
class AS2Question:
    """One question with its candidates, in file order."""

    qid: str
    question: str
    candidates: list[str] = field(default_factory=list)
    labels: list[int] = field(default_factory=list)
    cand_ids: list[str] = field(default_factory=list)

    @property
    def positives(self) -> list[int]:
        return [i for i, y in enumerate(self.labels) if y == 1]

    @property
    def negatives(self) -> list[int]:
        return [i for i, y in enumerate(self.labels) if y == 0]


def _label(value: str, src: str, line: int) -> int:
    v = value.strip()
    if v not in ("0", "1"):
        raise InputError(f"label must be 0 or 1, got {v!r}", source=src, line=line, field="Label")
    return int(v)


def read_wikiqa_tsv(path: str | Path) -> list[AS2Question]:
    """WikiQA-{train,dev,test}.tsv. Quotes are literal text (QUOTE_NONE): some sentences contain '"'."""
    path = Path(path)
    src = str(path)
    out: dict[str, AS2Question] = {}
    with path.open(encoding="utf-8", newline="") as fh:
        rows = csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = [h.strip() for h in next(rows)]
        need = ("QuestionID", "Question", "SentenceID", "Sentence", "Label")
        for name in need:
            if name not in header:
                raise InputError(f"missing column {name}", source=src, line=1)
        col = {h: i for i, h in enumerate(header)}
        for line, row in enumerate(rows, 2):
            if not row:
                continue
            if len(row) != len(header):
                raise InputError(f"has {len(row)} columns, header has {len(header)}", source=src, line=line)
            qid = row[col["QuestionID"]]
            q = out.setdefault(qid, AS2Question(qid, row[col["Question"]]))
            q.candidates.append(row[col["Sentence"]])
            q.labels.append(_label(row[col["Label"]], src, line))
            q.cand_ids.append(row[col["SentenceID"]])
    return list(out.values())


def read_wikiqa(root: str | Path, split: str) -> list[AS2Question]:
    return read_wikiqa_tsv(Path(root) / f"WikiQA-{split}.tsv")


def read_answer_phrases(path: str | Path) -> dict[str, list[str]]:
    """WikiQASent.pos.ans.tsv -> {SentenceID: answer phrases}; empty and NO_ANS entries dropped."""
    path = Path(path)
    out: dict[str, list[str]] = {}
    with path.open(encoding="utf-8", newline="") as fh:
        rows = csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = [h.strip() for h in next(rows)]
        col = {h: i for i, h in enumerate(header)}
        phrase_cols = [i for h, i in col.items() if h.startswith("AnswerPhrase")]
        for row in rows:
            if len(row) < len(header):
                row = row + [""] * (len(header) - len(row))
            phrases = [row[i].strip() for i in phrase_cols]
            out[row[col["SentenceID"]]] = [p for p in phrases if p and p != "NO_ANS"]
    return out


def read_trecqa(split_dir: str | Path) -> list[AS2Question]:
    """A TREC-QA split folder (a.toks, b.toks, sim.txt, id.txt; one line per pair)."""
    d = Path(split_dir)
    files = {n: (d / f"{n}").read_text(encoding="utf-8").splitlines() for n in ("a.toks", "b.toks", "sim.txt", "id.txt")}
    n = len(files["a.toks"])
    for name, lines in files.items():
        if len(lines) != n:
            raise InputError(f"has {len(lines)} lines, a.toks has {n}", source=str(d / name))
    out: dict[str, AS2Question] = {}
    for i in range(n):
        qid = files["id.txt"][i].strip()
        q = out.setdefault(qid, AS2Question(qid, files["a.toks"][i]))
        q.candidates.append(files["b.toks"][i])
        q.labels.append(_label(files["sim.txt"][i], str(d / "sim.txt"), i + 1))
        q.cand_ids.append(str(len(q.candidates) - 1))
    return list(out.values())


# Extra AS2 training corpora (`--extra-train` of `train ava` / `train square`): name -> (benchmark folder, split)
EXTRA_TRAIN = {"trecqa": ("trecqa", "train")}


def read_extra_train(name: str, root: str | Path | None = None) -> list[AS2Question]:
    """The questions of an extra training corpus, read from the benchmark data root."""
    from qascore_lab.datasets import benchmark_dir

    if name not in EXTRA_TRAIN:
        raise ValueError(f"unknown extra training corpus '{name}'; known: {', '.join(EXTRA_TRAIN)}")
    folder, split = EXTRA_TRAIN[name]
    path = benchmark_dir(folder, root) / split
    if not path.is_dir():
        raise FileNotFoundError(f"{path} not found (extra training corpus '{name}')")
    return read_trecqa(path)


def read_rank(path: str | Path, questions: list[AS2Question]) -> list[list[float]]:
    """An emnlp-table `.rank` file (`qidx 0 sidx 0 score 0`) as per-question candidate scores.

    qidx counts questions from 1 in file order and sidx candidates from 0, as
    in the corpus' TREC-style `.ref` files; every candidate must be scored once.
    """
    path = Path(path)
    scores: list[list[float | None]] = [[None] * len(q.candidates) for q in questions]
    for line, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not text.strip():
            continue
        parts = text.split()
        if len(parts) < 5:
            raise InputError("expected 'qidx 0 sidx 0 score 0'", source=str(path), line=line)
        qi, si, sc = int(parts[0]) - 1, int(parts[2]), float(parts[4])
        if not (0 <= qi < len(questions)) or not (0 <= si < len(questions[qi].candidates)):
            raise InputError(f"question {qi + 1} / sentence {si} not in the corpus", source=str(path), line=line)
        scores[qi][si] = sc
    for qi, row in enumerate(scores):
        if any(s is None for s in row):
            raise InputError(f"question {qi + 1} has unscored candidates", source=str(path))
    return scores  # type: ignore[return-value]


def read_trecqa_train_all(root: str | Path | None = None) -> list[AS2Question]:
    """TREC-QA TRAIN-ALL (trecqa/train-all/train-all.jsonl.gz): 1,229 questions, automatic (noisy) labels."""
    import gzip
    import json

    from qascore_lab.datasets import benchmark_dir

    path = benchmark_dir("trecqa", root) / "train-all" / "train-all.jsonl.gz"
    out = []
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for n, line in enumerate(fh):
            if not line.strip():
                continue
            item = json.loads(line)
            q = AS2Question(f"all-{n}", item["question"])
            for k, c in enumerate(item["candidates"]):
                q.candidates.append(c["sentence"])
                q.labels.append(int(c["label"]))
                q.cand_ids.append(str(k))
            out.append(q)
    return out


def read_selqa(root: str | Path | None = None) -> list[tuple[str, AS2Question]]:
    """SelQA answer-sentence selection, dev + test files: (group key, question) pairs.

    The group key is the Wikipedia article and section: paraphrased questions ask about the same
    section, so splitting by it keeps a question and its paraphrase on one side.
    """
    import json

    from qascore_lab.datasets import benchmark_dir

    folder = benchmark_dir("selqa", root)
    out = []
    for split in ("dev", "test"):
        items = json.loads((folder / f"selqa-ass-{split}.json").read_text(encoding="utf-8"))
        for n, item in enumerate(items):
            answers = set(item["answers"])
            q = AS2Question(f"{split}-{n}", item["question"], list(item["candidates"]),
                            [int(k in answers) for k in range(len(item["candidates"]))],
                            [str(k) for k in range(len(item["candidates"]))])
            out.append((f"{item['article']}/{item['section']}", q))
    return out
