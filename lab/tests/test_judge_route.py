"""`lab/scripts/judge_route.py`: the routed dev figures are each row's probability from its own card, and the routed
card it writes is read by the product, each card's own verifier and trees beside it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]


def _fit(folder: Path, probs: list[float], y: list[int], shortest: list[int], threshold: float,
         verifier: bytes | None = None) -> None:
    """A fit folder as `train judge` leaves it: the card (a constant logistic model), its trees file name and the
    calibrated out-of-fold dev scores."""
    folder.mkdir()
    card = {"features": ["f1"], "platt": [1.0, 0.0], "threshold": threshold,
            "model": {"kind": "logistic", "mean": [0.0], "scale": [1.0], "coef": [0.0], "intercept": 0.0,
                      "trees": "judge.safetensors"}}
    (folder / "judge.safetensors").write_bytes(b"trees")
    if verifier is not None:
        (folder / "judge-verifier.safetensors").write_bytes(verifier)
        card["verifier"] = "judge-verifier.safetensors"
    (folder / "judge.json").write_text(json.dumps(card))
    np.savez_compressed(folder / "dev_scores.npz", probs=np.array(probs), y=np.array(y),
                        sources=np.array(["squad"] * len(y)), shortest=np.array(shortest))


def test_the_routed_rows_read_their_cards_and_the_written_card_carries_its_verifier(tmp_path):
    y = [1, 0, 1, 0]
    shortest = [1, 1, 8, 8]  # two short golds, two sentences
    _fit(tmp_path / "short", [0.9, 0.2, 0.1, 0.8], y, shortest, 0.5, verifier=b"short-gold verifier")
    _fit(tmp_path / "sent", [0.1, 0.9, 0.7, 0.3], y, shortest, 0.5)
    run = subprocess.run([sys.executable, "lab/scripts/judge_route.py", str(tmp_path / "short"), str(tmp_path / "sent"),
                          "--min-words", "1,6", "--write", str(tmp_path / "card"), "--pick", "6"],
                         cwd=REPO, capture_output=True, text=True, check=True)
    lines = {line.split()[0]: line.split() for line in run.stdout.splitlines() if line.startswith("min_words")}
    # K=6: rows 0-1 from the short card (0.9 / 0.2), rows 2-3 from the sentence card (0.7 / 0.3): perfectly ranked
    assert lines["min_words=6"][2] == "1.00000"
    # K=1: every row goes to the sentence card (0.1, 0.9, 0.7, 0.3): right above wrong in 1 of 4 pairs
    assert lines["min_words=1"][2] == "0.25000"
    out = tmp_path / "card"
    card = json.loads((out / "judge.json").read_text())
    nested = json.loads((out / "judge-sentences.json").read_text())
    assert card["verifier"] == "judge-verifier.safetensors" and "verifier" not in nested
    assert (out / "judge-verifier.safetensors").read_bytes() == b"short-gold verifier"
    assert card["model"]["trees"] == "judge.safetensors" and nested["model"]["trees"] == "judge-sentences.safetensors"
    assert card["sentences"]["min_words"] == 6 and card["sentences"]["card"] == "judge-sentences.json"
