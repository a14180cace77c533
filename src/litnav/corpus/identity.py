"""Corpus settings as part of the corpus identity.

A corpus stores its :class:`CorpusSettings` on its first build and reads them back on every later
build: a build that does not name a setting keeps the stored value (so adding one file never
re-chunks or re-embeds the corpus). Settings the stored vectors depend on (``IDENTITY_FIELDS``:
the embedding model and the chunk size) can only change through an explicit rebuild
(``litnav reindex`` or ``litnav build --reembed``); any other build that asks for a different value
is refused before anything is stored, with the exact command that does the rebuild.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from litnav.core.settings import CorpusSettings
from litnav.corpus.errors import CorpusError

log = logging.getLogger(__name__)

IDENTITY_FIELDS = ("model_path", "chunk_tokens", "encoder_backend")
"""Corpus settings the stored chunks and vectors depend on."""


class SettingsChangeError(CorpusError):
    """A build asked for a value of an identity setting (model, chunk size) that differs from the
    one the corpus was built with; the message gives the command that rebuilds the corpus."""


def set_arg(field: str, value: Any) -> str:
    """``corpus.FIELD=VALUE`` as ``--set`` parses it back (JSON for non-strings, ``null`` for None)."""
    text = value if isinstance(value, str) else json.dumps(value)
    return f"corpus.{field}={text}"


def _same_model(stored: CorpusSettings, wanted: CorpusSettings, stored_model: dict | None) -> bool:
    """True when ``wanted`` names the same model as ``stored``: the same folder, or (when the corpus
    recorded its model) a folder whose identity (name, dim, weights hash) is the recorded one."""
    if stored.model_path == wanted.model_path:
        return True
    if stored.model_path and wanted.model_path and Path(stored.model_path).resolve() == Path(wanted.model_path).resolve():
        return True
    if not stored_model:
        return False
    from litnav.corpus.encoder import Encoder

    try:
        return Encoder.from_settings(wanted).matches(stored_model)
    except (CorpusError, OSError):
        return False


def merge_settings(
    directory: Path,
    stored: dict[str, Any] | None,
    given: CorpusSettings | None,
    stored_model: dict[str, Any] | None = None,
    allow_change: bool = False,
) -> CorpusSettings:
    """The settings a build of ``directory`` runs with.

    ``stored`` is the corpus's stored settings (None for a new corpus); ``given`` the caller's
    settings, of which only the fields set explicitly (``model_fields_set``: ``--set``, a settings
    file, keyword arguments) override the stored ones. With ``allow_change`` False, an explicit
    identity field (``IDENTITY_FIELDS``) that differs from the stored value raises
    :class:`SettingsChangeError` naming the old and new values and the rebuild command.
    ``stored_model`` is the corpus's recorded model identity, so that a different path to the same
    weights is not a change. Nothing is written here.
    """
    if not stored:
        return given if given is not None else CorpusSettings()
    # corpora stored before encoder backends existed were embedded with torch fp32
    base = CorpusSettings.model_validate({"encoder_backend": "torch", **stored})
    if given is None:
        return base
    explicit = {f: getattr(given, f) for f in given.model_fields_set}
    wanted = CorpusSettings.model_validate({**base.model_dump(), **explicit})
    changed = [f for f in IDENTITY_FIELDS if f in explicit and getattr(wanted, f) != getattr(base, f)]
    if "model_path" in changed and _same_model(base, wanted, stored_model):
        changed.remove("model_path")
    if changed and not allow_change:
        old = ", ".join(set_arg(f, getattr(base, f)) for f in changed)
        new = " ".join(f"--set {set_arg(f, getattr(wanted, f))}" for f in changed)
        raise SettingsChangeError(
            f"corpus {directory} was built with {old}; {new} would re-chunk and re-embed the whole corpus, "
            f"so this build was refused and nothing was changed. To rebuild it with the new value run "
            f"`litnav reindex --corpus {directory} {new}` (or add --reembed to this build); to keep the "
            f"corpus's value, drop that --set")
    return wanted

