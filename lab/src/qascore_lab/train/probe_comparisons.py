"""`qascore-lab train probe-comparisons`: a wrong answer that wins a comparison with the gold, or is named as
the gold's something ("B is a better fit than A.", "A's counterpart, B."), and the two exchanged.

The judge's `lesser_role` rule (`qascore.text.roles`) reads these forms. `relation` pairs teach the verifier
(their train split is in `ava`'s training), so an offset fitted on them is set by the few answers the
verifier still misreads; these pairs are kept out of the verifier's training, so that the offset is fitted
on rows it never saw, as `names` pairs are for `name_clash`. Built as `relation` is (`probe_relations.exchanged`),
from the suite's assertion pairs and splits, seeded by (seed, question); family `comparison`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from qascore_lab.train.probe_relations import exchanged
from qascore_lab.train.probes import composed_command

FAMILY = "comparison"
# {A} is what the sentence asserts; {B} follows "than" or possesses {A} (a lower-case word after "'s")
TEMPLATES = ("{A} is a better fit than {B}.", "{A}, better known than {B}.", "{A} is more likely than {B}.",
             "{A} ranks higher than {B}.", "{A}, greater than {B}.", "Sooner {A} than {B}.",
             "{B}'s neighbour, {A}.", "{B}'s counterpart: {A}.", "{A}, {B}'s closest match.",
             "{A} is {B}'s equivalent.")


def build(probes: Path, seed: int) -> dict[str, list[dict[str, Any]]]:
    return exchanged(probes, seed, FAMILY, TEMPLATES)


add_arguments, run = composed_command("runs/probe-comparisons", build, FAMILY)
