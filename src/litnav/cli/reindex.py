"""``litnav reindex``: rebuild a corpus's chunks, vectors and indexes in place from its database."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from litnav.cli.common import SetOpt, SettingsOpt, clean_errors, make_console, settings_from


def register(app: typer.Typer) -> None:
    """Add the ``reindex`` command to ``app``."""

    @app.command("reindex")
    def reindex_command(
        corpus: Path = typer.Option(..., "--corpus", help="Corpus directory."),
        set_: Optional[list[str]] = SetOpt,
        settings_file: Optional[Path] = SettingsOpt,
        no_progress: bool = typer.Option(False, "--no-progress", help="Hide the progress bars."),
    ) -> None:
        """Store new corpus settings (e.g. --set corpus.chunk_tokens=128 or corpus.model_path=DIR) and
        rebuild what depends on them from the corpus database: chunks, vectors, FAISS and BM25."""
        from litnav.corpus import CorpusError
        from litnav.corpus.maintenance import reindex

        settings = settings_from(settings_file, set_)
        with clean_errors(CorpusError, OSError):
            timings = reindex(corpus, settings.corpus, progress=not no_progress)
        make_console().print(f"reindexed {corpus} in {timings.get('total', 0.0):.1f} s")
