"""qascore: automatic scores for question answering and question generation.

`qascore.score(metric, candidates=[...], references=[[...]], ...)` scores texts in one call (`candidate=...`:
one example); `qascore.load(name, **options)` returns a metric; `qascore.list_metrics()` names them.
Nothing heavy is imported here: models load on first use and are shared.
"""

from qascore.version import __version__

from qascore.progress import quiet_library as _quiet_library  # noqa: E402

_quiet_library()  # no model-loading bars in a caller's training loop unless asked (QASCORE_PROGRESS=1)

from qascore.metrics.registry import list_metrics, load  # noqa: E402
from qascore.records import InputError, Record, read_records  # noqa: E402
from qascore.api import Scores, ScoredExample, score  # noqa: E402

__all__ = ["__version__", "score", "Scores", "ScoredExample", "load", "list_metrics", "Record", "read_records",
           "InputError"]
