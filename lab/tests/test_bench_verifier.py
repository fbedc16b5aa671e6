"""`qascore-lab bench verifier` runs end to end on synthetic text and reports every row it promises."""

from __future__ import annotations

import re

import pytest


@pytest.mark.slow
def test_bench_verifier_reports_fp32_and_bf16_rows(tmp_path, capsys):
    from qascore_lab.cli import main

    assert main(["bench", "verifier", "-n", "8", "--threads", "1", "--batch-size", "4", "--dtype", "bf16",
                 "--data", str(tmp_path / "absent")]) == 0
    out = capsys.readouterr().out
    for row in ("ava", "ava (bf16)", "reference"):
        assert re.search(rf"^  {re.escape(row)}\s+[\d.]+ records/s", out, re.M), row
    assert not re.search(r"^  square", out, re.M)   # a single-input delta is timed only when --square names one
    assert len(re.findall(r"ratio ava bf16 / fp32: [\d.]+x$", out, re.M)) == 2
