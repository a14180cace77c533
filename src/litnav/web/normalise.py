"""The title rule the matcher adds to the shared normalisers: the main title before a subtitle.
Titles, surnames and external ids use ``core.text.normalise_title``, ``core.text.surname`` and
``core.ids.find_external_id``, the forms the corpus stores, so both sides agree."""

from __future__ import annotations

import re

_SUBTITLE = re.compile(r"\s*[:?!]\s+|\s+[-\u2013\u2014]{1,2}\s+|(?<=[a-z]{3})\.\s+(?=[A-Z])")


def main_title(title: str) -> str | None:
    """The part of a raw title before its subtitle separator (``"Title: Subtitle"``,
    ``"Title - Subtitle"``, ``"Title? Subtitle"``, and PubMed's group-author sentence ``"Title.
    West of Scotland Coronary Prevention Study Group."``; not "U.S. Army"), or None when there is
    no subtitle."""
    parts = _SUBTITLE.split(title.strip(), maxsplit=1)
    if len(parts) == 2 and parts[0] and parts[1]:
        return parts[0]
    return None
