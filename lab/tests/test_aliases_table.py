"""`qascore-lab train aliases`: WordNet's noun synsets read from a data file written here, and the sets it keeps."""

from __future__ import annotations

import argparse

import pytest

from qascore.metrics.aliases import DEFAULT_TABLE
from qascore_lab.text.wordnet import available
from qascore_lab.train.aliases import names_things, run, synsets

def test_the_builder_keeps_sets_that_name_things(tmp_path):
    data = tmp_path / "data.noun"
    data.write_text("  1 This software and database is provided\n"
                    "00001 03 n 02 Japan 0 Nippon 0 000 | an island country\n"
                    "00002 03 n 02 increase 0 growth 0 000 | a process\n"
                    "00003 03 n 03 malleus 0 hammer(a) 0 MRI 0 000 | made up\n", encoding="utf-8")
    groups = synsets(data)
    assert groups == [["Japan", "Nippon"], ["increase", "growth"], ["malleus", "hammer", "MRI"]]
    assert [names_things(g) for g in groups] == [True, False, True]


@pytest.mark.skipif(not available(), reason="WordNet's files are not installed (Debian's wordnet-base)")
def test_the_shipped_table_is_what_the_command_writes(tmp_path):
    out = tmp_path / "aliases.json.gz"
    assert run(argparse.Namespace(out=str(out))) == 0
    assert out.read_bytes() == DEFAULT_TABLE.read_bytes()
