"""The exact COCO tokenizer: Stanford CoreNLP 3.4.1's PTBTokenizer run in Java.

What pycocoevalcap's PTBTokenizer does, batched in one JVM call: one text per
line (`-preserveLines -lowerCase`), then COCO's punctuation filter. Slower to
start (~0.5 s) than `qascore.text.ptb` and needs Java; offered for exactness.
"""

from __future__ import annotations

import subprocess
from typing import Sequence

from qascore.text.coco import TOKENIZER_JAR, coco_jar, java
from qascore.text.ptb import drop_punctuation


# Characters Java may read as line ends: made spaces so one text stays one line.
_LINE_BREAKS = {ord(c): " " for c in "\r\n\x0b\x0c\x85\u2028\u2029"}


def tokenize_java(texts: Sequence[str]) -> list[list[str]]:
    """Tokens of each text exactly as COCO's PTBTokenizer gives them (punctuation dropped)."""
    if not texts:
        return []
    # One text per line; line breaks inside a text become spaces, as COCO does.
    lines = [t.translate(_LINE_BREAKS) for t in texts]
    cmd = [java(), "-Dfile.encoding=UTF-8", "-cp", str(coco_jar(TOKENIZER_JAR)), "edu.stanford.nlp.process.PTBTokenizer",
           "-preserveLines", "-lowerCase", "-encoding", "utf-8"]
    proc = subprocess.run(cmd, input="\n".join(lines) + "\n", capture_output=True, text=True,
                          encoding="utf-8", check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"Java PTBTokenizer failed ({proc.returncode}): {proc.stderr.strip()[-500:]}")
    out = proc.stdout.split("\n")
    if len(out) < len(lines):
        raise RuntimeError(f"Java PTBTokenizer returned {len(out)} lines for {len(lines)} texts")
    # COCO splits on single spaces: tokens that span spaces keep their no-break spaces.
    return [drop_punctuation([w for w in line.rstrip().split(" ") if w]) for line in out[:len(lines)]]
