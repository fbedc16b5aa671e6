"""The metric cards are reference pages and the README guides a choice (issue 63).

- every card the README lists: at most 1,200 words, the sections of a reference page, no lab history (the
  machines or runs behind a figure, run folders, result files of lab runs);
- the README's results table: at most 14 rows of one line, no cell over 200 characters, each row linking
  a card that exists;
- the README's "Which metric?" table: each row names metrics that exist, the input fields each one needs,
  and a card that exists; the slow test scores a few bundled records with each.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")


def cards() -> list[Path]:
    """The metric cards the README's Documentation section lists."""
    block = README.split("Metric cards", 1)[1].split("Reference pages", 1)[0]
    found = [REPO / p for p in re.findall(r"\]\((docs/[\w-]+\.md)\)", block)]
    assert len(found) >= 9, found
    return found


CARDS = cards()
SECTIONS = ("measure", "input", "option", "output", "speed", "agreement", "limitations", "citation")
LAB_TALK = re.compile(r"\blent\b|\bruns/|this machine|another machine|same run|two runs|\bon a shared\b|"
                      r"\bsession\b|lab/results/[\w./-]+\.json|none of our other jobs", re.I)


@pytest.mark.parametrize("card", CARDS, ids=[c.name for c in CARDS])
def test_each_card_is_a_reference_page_of_at_most_1200_words(card):
    text = card.read_text(encoding="utf-8")
    assert len(text.split()) <= 1200, f"{card.name}: {len(text.split())} words (`wc -w`)"
    headings = " ".join(h.lower() for h in re.findall(r"^## (.+)$", text, re.M))
    missing = [s for s in SECTIONS if s not in headings]
    assert not missing, f"{card.name}: no section on {missing}"
    talk = [m.group(0) for m in LAB_TALK.finditer(text)]
    assert not talk, f"{card.name}: lab history in a card: {talk} (it belongs in lab/NOTES.md or lab/results/)"
    for link in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
        if not link.startswith("http"):
            assert (card.parent / link).resolve().exists(), f"{card.name}: broken link {link}"


def _table(title: str) -> list[list[str]]:
    section = README.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    assert rows and set(rows[1]) <= set("|-: "), f"{title}: no table"
    # cells split on " | " (a `\|` inside a cell is not a separator)
    return [[c.strip() for c in re.split(r"(?<!\\)\|", row.strip())[1:-1]] for row in rows[2:]]


def _card_links(cells: list[str]) -> list[str]:
    return re.findall(r"\]\((docs/[\w-]+\.md)(?:#[\w-]*)?\)", " ".join(cells))


def test_results_table_has_at_most_14_rows_of_short_cells_each_linking_its_card():
    rows = _table("Results")
    assert 0 < len(rows) <= 14, len(rows)
    for row in rows:
        assert len(row) == len(rows[0]), row
        long = [c for c in row if len(c) > 200]
        assert not long, f"cell over 200 characters: {long[0][:80]}..."
        links = _card_links(row)
        assert links, f"row links no card: {row[0]}"
        assert all((REPO / link).is_file() for link in links), links


def _guide() -> list[dict]:
    rows = []
    for task, metric, fields, speed, agreement, card in _table("Which metric?"):
        names = re.findall(r"`([\w:=,.-]+)`", metric)
        rows.append({"task": task, "specs": names, "fields": set(re.findall(r"`(\w+)`", fields)),
                     "speed": speed, "agreement": agreement, "card": _card_links([card])})
    return rows


GUIDE = _guide()


def test_the_guide_covers_the_tasks_of_issue_63_one_line_each():
    tasks = " ".join(r["task"].lower() for r in GUIDE)
    for task in ("chatbot", "extractive", "as2", "abstractive", "ranking generated questions", "qg system",
                 "kpqa", "ava", "square", "qrelscore"):
        assert task in tasks, task
    for row in GUIDE:
        assert row["speed"].split(":")[0] in ("instant", "fast", "medium", "slow"), row["speed"]
        assert re.search(r"\d\.\d", row["agreement"]), row   # a figure, taken from the card
        assert len(row["card"]) == 1 and (REPO / row["card"][0]).is_file(), row


@pytest.mark.parametrize("row", GUIDE, ids=[r["task"][:40] for r in GUIDE])
def test_each_guided_metric_exists_and_needs_only_the_fields_its_row_names(row):
    import qascore

    specs = [s for s in row["specs"] if s.split(":")[0] in qascore.list_metrics()]
    assert specs, f"{row['task']}: no metric named"
    first = qascore.load(specs[0])
    # the first metric of a row is the recommendation: its needs are exactly the fields named (`ref-qrelscore`
    # and the like, named beside it, may need one more, which the row says in words)
    assert set(first.requires) <= row["fields"] | {"candidate"}, (specs[0], first.requires, row["fields"])
    for spec in specs[1:]:
        qascore.load(spec)   # resolves: a real metric with valid options


@pytest.mark.slow
@pytest.mark.parametrize("row", GUIDE, ids=[r["task"][:40] for r in GUIDE])
def test_each_guided_metric_scores_the_bundled_examples(row, tmp_path, capsys):
    import qascore
    from qascore.cli import main

    example = "qg.jsonl" if "context" in row["fields"] else "genqa.jsonl"
    lines = (REPO / "examples" / example).read_text(encoding="utf-8").splitlines()[:3]
    (tmp_path / example).write_text("\n".join(lines) + "\n", encoding="utf-8")
    specs = [s for s in row["specs"] if s.split(":")[0] in qascore.list_metrics()]
    argv = ["score", str(tmp_path / example), "-o", str(tmp_path / "out.jsonl")]
    for spec in specs:
        argv += ["-m", spec]
    assert main(argv) == 0, capsys.readouterr().err
    assert len((tmp_path / "out.jsonl").read_text().splitlines()) == 3
