"""METEOR 1.5 (the COCO configuration) through the meteor-1.5.jar that pycocoevalcap carries.

One persistent JVM per process (`-stdio -l en -norm`, as COCO runs it),
shared by every Meteor object; starting it loads the paraphrase tables (about
20 s on two cores), later calls only pay for the matching. Unlike COCO's
wrapper, which waits for each answer before sending the next line, all SCORE
lines of a call are written by a feeder thread while the answers are read, and
one EVAL line turns every segment's statistics into its score.

Input is COCO's: PTB tokens joined by spaces (the jar's -norm re-normalises).
agg='joint' sends all references in one SCORE line (METEOR's own
multi-reference matching); 'max'/'mean' score each reference alone (the KPQA
protocol). METEOR's alignment (exact, stem, synonym, paraphrase modules) lives
in the jar, so this metric takes no per-token weights.
"""

from __future__ import annotations

import atexit
import os
import subprocess
import threading
from typing import Sequence

from qascore.metrics.tokens import TokenMetric
from qascore.records import Record
from qascore.runtime.cache import shared
from qascore.text.coco import METEOR_JAR, coco_jar, java

METEOR_VERSION = "1.5"


class MeteorProcess:
    """A running meteor-1.5.jar in -stdio mode; thread-safe."""

    def __init__(self, memory: str = "2G") -> None:
        jar = coco_jar(METEOR_JAR)
        self._proc = subprocess.Popen(
            [java(), "-jar", f"-Xmx{memory}", str(jar), "-", "-", "-stdio", "-l", "en", "-norm"],
            cwd=str(jar.parent), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self._lock = threading.Lock()
        atexit.register(self.close)

    def score(self, pairs: Sequence[tuple[str, Sequence[str]]]) -> list[float]:
        """METEOR of each (hypothesis, references) pair; strings are space-joined tokens."""
        if not pairs:
            return []
        lines = [" ||| ".join(("SCORE", *(_clean(r) for r in refs), _clean(hyp))) + "\n" for hyp, refs in pairs]
        with self._lock:
            stats = self._round_trip(lines, len(lines))
            evals = self._round_trip(["EVAL ||| " + " ||| ".join(stats) + "\n"], len(stats) + 1)
        return [float(x) for x in evals[:len(stats)]]

    def _round_trip(self, lines: list[str], expect: int) -> list[str]:
        proc = self._proc
        if proc.poll() is not None:
            raise RuntimeError(f"METEOR process exited with code {proc.returncode}")
        assert proc.stdin is not None and proc.stdout is not None
        error: list[BaseException] = []
        payload = "".join(lines).encode("utf-8")

        def feed() -> None:
            assert proc.stdin is not None
            try:  # big writes: the GIL is released while the pipe drains
                view, fd_in = memoryview(payload), proc.stdin.fileno()
                while view:
                    view = view[os.write(fd_in, view):]
            except BaseException as err:  # surfaced below
                error.append(err)

        feeder = threading.Thread(target=feed, daemon=True)
        feeder.start()
        fd, buf, seen = proc.stdout.fileno(), bytearray(), 0
        while seen < expect:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise RuntimeError("METEOR process closed its output (out of memory? see java -Xmx)")
            buf += chunk
            seen += chunk.count(b"\n")
        feeder.join()
        if error:
            raise RuntimeError(f"writing to METEOR failed: {error[0]}")
        out = buf.decode("utf-8").split("\n")
        return [x.strip() for x in out[:expect]]

    def close(self) -> None:
        """Stop the jar and close both pipes (an open pipe is a ResourceWarning at exit)."""
        if self._proc.poll() is None:
            try:
                assert self._proc.stdin is not None
                self._proc.stdin.close()
            except OSError:
                pass
            self._proc.kill()
            self._proc.wait()
        for pipe in (self._proc.stdin, self._proc.stdout):
            if pipe is not None and not pipe.closed:
                try:
                    pipe.close()
                except OSError:
                    pass


def _clean(text: str) -> str:
    """COCO's clean-up of a segment: the jar separates fields with '|||' (COCO applies this to the
    hypothesis only; references get it too here, a field separator inside one would misalign)."""
    return text.replace("|||", "").replace("  ", " ").replace("\n", " ")


def meteor_process() -> MeteorProcess:
    """The process-wide METEOR JVM (started on first use)."""
    return shared(("meteor", METEOR_VERSION), MeteorProcess)


class Meteor(TokenMetric):
    """METEOR 1.5 as in the COCO toolkit."""

    name = "meteor"
    description = "METEOR 1.5 via the COCO jar (needs Java and pycocoevalcap; max over references)"
    aggregations = ("max", "mean", "joint")
    weighted = False
    main_part = "meteor"
    split_glued = False

    def signature_fields(self) -> dict:
        return {**super().signature_fields(), "meteor": f"{METEOR_VERSION}-en-norm"}

    def _score(self, records: Sequence[Record]) -> tuple[list[float], dict[str, list[float]]]:
        if not records:
            return [], {}
        tk = self.tokenized(records)
        cands = [" ".join(c) for c in tk.cand]
        refs = [[" ".join(r) for r in rs] for rs in tk.refs]
        if self.options["agg"] == "joint":
            return meteor_process().score(list(zip(cands, refs))), {}
        # Each distinct (candidate, reference) pair is scored once.
        keys = [(c, r) for c, rs in zip(cands, refs) for r in rs]
        unique = list(dict.fromkeys(keys))
        table = dict(zip(unique, meteor_process().score([(c, [r]) for c, r in unique])))
        return [self.combine([{"meteor": table[(c, r)]} for r in rs])["meteor"] for c, rs in zip(cands, refs)], {}
