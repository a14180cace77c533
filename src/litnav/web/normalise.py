"""The title rules the matcher adds to the shared normalisers: the main title before a subtitle,
Greek letters written out.
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


GREEK = {n: chr(0x03B1 + i) for i, n in enumerate(
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho varsigma sigma tau "
    "upsilon phi chi psi omega".split())}
"""Greek letter names -> lower-case letters (LaTeX's names: ``\\epsilon``, ``\\varphi`` and capitals too)."""
GREEK.update({"var" + n: GREEK[n] for n in ("epsilon", "theta", "pi", "rho", "sigma", "phi")})
GREEK.update({n.capitalize(): c.upper() for n, c in list(GREEK.items()) if not n.startswith("var")})

_GREEK_WORD = re.compile(r"(?<![A-Za-z])(" + "|".join(sorted(GREEK, key=len, reverse=True)) + r")(?![A-Za-z])",
                         re.IGNORECASE)


def greek_letters(title: str) -> str:
    """``title`` with Greek letter names written as letters (``"epsilon-Contamination"`` ->
    ``"ε-Contamination"``, ``"Beta"`` -> ``"β"``): a corpus from S2 or arXiv keeps a title's
    ``$\\epsilon$`` as the letter, a reference list may spell it out."""
    return _GREEK_WORD.sub(lambda m: GREEK[m.group(1).lower()], title)
