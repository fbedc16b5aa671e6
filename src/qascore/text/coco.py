"""Where the COCO caption toolkit's Java jars are (the pycocoevalcap package carries them).

Used only by the optional Java paths (the exact Stanford PTB tokenizer and
METEOR 1.5); the pure-Python tokenizer needs neither Java nor this package.
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

from qascore.errors import MissingDependency

TOKENIZER_JAR = "tokenizer/stanford-corenlp-3.4.1.jar"
METEOR_JAR = "meteor/meteor-1.5.jar"


def coco_jar(relative: str) -> Path:
    """Absolute path of a jar inside pycocoevalcap, with a clear error if it is absent."""
    spec = importlib.util.find_spec("pycocoevalcap")
    if spec is None or not spec.submodule_search_locations:
        raise MissingDependency("the package pycocoevalcap (its jars run METEOR and the Java PTB tokenizer)",
                                "pip install 'qascore[coco]' (or pip install pycocoevalcap==1.2)")
    for folder in spec.submodule_search_locations:
        path = Path(folder) / relative
        if path.is_file():
            return path
    raise RuntimeError(f"pycocoevalcap is installed but {relative} is missing from it")


def java() -> str:
    """The java executable, or a clear error (Java 8+ runs both jars)."""
    exe = shutil.which("java")
    if exe is None:
        raise MissingDependency("Java (METEOR and the Java PTB tokenizer run jars)",
                                "install a JRE 8 or newer and put `java` on PATH (Debian: apt-get install default-jre-headless)")
    return exe
