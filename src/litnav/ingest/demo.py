"""The demo corpus: the 250 ACL papers (S2ORC full-text JSON) shipped by the ``aclsum`` package."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

from litnav.ingest.build import BuildReport, build


def aclsum_papers_dir() -> Path:
    """Folder of aclsum's ``paper_jsons/*.json``; raises ``FileNotFoundError`` when absent."""
    path = Path(str(resources.files("aclsum"))) / "dataset" / "paper_jsons"
    if not path.is_dir():
        raise FileNotFoundError(f"aclsum is installed without its paper JSONs ({path})")
    return path


def build_demo_corpus(corpus_dir: str | Path, settings: Any = None, progress: bool = True) -> BuildReport:
    """Build (or complete) the demo corpus at ``corpus_dir`` from aclsum's 250 papers."""
    return build([aclsum_papers_dir()], corpus_dir, fmt="s2orc-json", settings=settings, progress=progress)
