"""Data model and I/O: what is read, what is passed through, and where bad input is located."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qascore.records import InputError, Record, parse_mapping, read_records


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_jsonl_roundtrip_keeps_extra_fields(tmp_path):
    p = write(tmp_path, "a.jsonl", json.dumps({"id": 7, "question": "q", "candidate": "c",
                                               "references": ["r1", "r2"], "human": 4.5, "system": "s"}) + "\n")
    (rec,) = read_records(p)
    assert (rec.id, rec.question, rec.candidate, rec.references) == ("7", "q", "c", ["r1", "r2"])
    assert rec.extra == {"human": 4.5, "system": "s"}
    assert rec.to_dict() == {"id": "7", "question": "q", "candidate": "c", "references": ["r1", "r2"],
                             "human": 4.5, "system": "s"}


def test_empty_strings_are_legal(tmp_path):
    p = write(tmp_path, "a.jsonl", '{"candidate": "", "references": [""]}\n')
    (rec,) = read_records(p)
    assert rec.candidate == "" and rec.references == [""]
    assert rec.id == "1"  # defaults to the line number


@pytest.mark.parametrize("text, line, field, needle", [
    ('{"candidate": "a", "references": ["r"]}\n{"candidate": \n', 2, None, "malformed JSON"),
    ('{"candidate": "a", "references": "r"}\n', 1, "references", "list of strings"),
    ('{"candidate": "a", "references": ["r", 3]}\n', 1, "references", "list of strings"),
    ('{"candidate": 5, "references": ["r"]}\n', 1, "candidate", "must be a string"),
    ('\n{"candidate": "a", "references": ["r"]}\n[1, 2]\n', 3, None, "JSON object"),
    ('{"id": true}\n', 1, "id", "string or an integer"),
])
def test_bad_jsonl_names_line_and_field(tmp_path, text, line, field, needle):
    p = write(tmp_path, "bad.jsonl", text)
    with pytest.raises(InputError) as info:
        read_records(p)
    err = info.value
    assert err.line == line and err.field == field and err.source == str(p)
    assert needle in str(err) and f"{p}:{line}" in str(err)


@pytest.mark.parametrize("name, text", [("e.jsonl", ""), ("e.jsonl", "\n\n"), ("e.csv", ""),
                                        ("e.csv", "question,answer\n")])
def test_empty_file_is_an_error(tmp_path, name, text):
    with pytest.raises(InputError, match="empty|no rows"):
        read_records(write(tmp_path, name, text))


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        read_records(tmp_path / "nope.jsonl")


def test_unknown_extension(tmp_path):
    with pytest.raises(InputError, match="unknown format"):
        read_records(write(tmp_path, "a.xml", "<a/>"))


def test_csv_with_mapping_and_numbered_reference_columns(tmp_path):
    p = write(tmp_path, "a.csv", "question,answer,reference2,reference1,reference10,scores\n"
                                 'q1,"a, b",r2,r1,r10,4.5\n'
                                 "q2,c,,r1b,,1\n")
    recs = read_records(p, mapping=parse_mapping(["candidate=answer", "references=reference*"]))
    assert [r.candidate for r in recs] == ["a, b", "c"]
    assert recs[0].references == ["r1", "r2", "r10"]  # numeric order, not lexical
    assert recs[1].references == ["r1b"]  # empty cells are absent references
    assert recs[0].extra == {"scores": "4.5"}
    assert recs[0].line == 2 and recs[1].line == 3


def test_tsv_default_columns(tmp_path):
    p = write(tmp_path, "a.tsv", "question\tcandidate\treferences\nq\tc\tr\n")
    (rec,) = read_records(p)
    assert (rec.question, rec.candidate, rec.references) == ("q", "c", ["r"])


def test_csv_mapping_to_unknown_column(tmp_path):
    p = write(tmp_path, "a.csv", "question,answer\nq,a\n")
    with pytest.raises(InputError, match="'hyp'"):
        read_records(p, mapping=parse_mapping(["candidate=hyp"]))


def test_csv_ragged_row(tmp_path):
    p = write(tmp_path, "a.csv", "question,candidate\nq,a\nq,a,extra\n")
    with pytest.raises(InputError) as info:
        read_records(p)
    assert info.value.line == 3


def test_jsonl_mapping_renames_keys(tmp_path):
    p = write(tmp_path, "a.jsonl", '{"query": "q", "hyp": "h", "references": ["r"]}\n')
    (rec,) = read_records(p, mapping=parse_mapping(["question=query", "candidate=hyp"]))
    assert (rec.question, rec.candidate) == ("q", "h")


def test_require_names_missing_field():
    rec = Record.from_dict({"candidate": "a"}, source="f.jsonl", line=4)
    with pytest.raises(InputError, match=r"f.jsonl:4: field 'references'"):
        rec.require("candidate", "references")


def test_bad_mapping_syntax():
    with pytest.raises(InputError, match="FIELD=COLUMN"):
        parse_mapping(["candidate"])


def test_answer_field_reads_checks_and_passes_through(tmp_path):
    """`answer` (for QG: the answer a question was generated for) is a string field like `context`."""
    p = write(tmp_path, "qg.jsonl", json.dumps({"candidate": "where was ann born?", "context": "Ann was born in Oslo.",
                                                "answer": "Oslo", "human": 3}) + "\n"
              + json.dumps({"candidate": "who?", "context": "x"}) + "\n")
    a, b = read_records(p)
    assert (a.answer, b.answer) == ("Oslo", "")
    assert a.extra == {"human": 3}
    assert a.to_dict() == {"candidate": "where was ann born?", "context": "Ann was born in Oslo.",
                           "answer": "Oslo", "human": 3}
    assert "answer" not in b.to_dict()
    bad = write(tmp_path, "bad.jsonl", '{"candidate": "q", "answer": ["Oslo"]}\n')
    with pytest.raises(InputError) as info:
        read_records(bad)
    assert info.value.field == "answer" and info.value.line == 1 and "must be a string" in str(info.value)
    with pytest.raises(InputError, match="'answer'"):
        Record(candidate="q", answer=3)  # type: ignore[arg-type]


def test_answer_from_csv_columns(tmp_path):
    p = write(tmp_path, "qg.csv", "prediction,passage,answer\nwho?,Ann ran.,Ann\n")
    (rec,) = read_records(p, mapping=parse_mapping(["candidate=prediction", "context=passage"]))
    assert (rec.candidate, rec.context, rec.answer) == ("who?", "Ann ran.", "Ann")
    q = write(tmp_path, "qg2.csv", "prediction,span\nwho?,Ann\n")
    (rec,) = read_records(q, mapping=parse_mapping(["candidate=prediction", "answer=span"]))
    assert rec.answer == "Ann" and rec.extra == {}
    # a column named `answer` mapped to another field is not also the answer
    r = write(tmp_path, "qa.csv", "question,answer,reference\nq?,Ann,Ann B\n")
    (rec,) = read_records(r, mapping=parse_mapping(["candidate=answer"]))
    assert (rec.candidate, rec.answer, rec.references) == ("Ann", "", ["Ann B"])
    assert "answer" not in rec.to_dict()
