"""Property: cutting an input file anywhere never crashes the build and never loses a record that
precedes the damage (issue 12, case 7).

"Precedes the damage" is measured independently of litnav's reader: the bytes a plain streaming
decompressor yields from the cut file (for an uncompressed file, the cut prefix itself), of which
every complete line (ending in a newline) must be stored.
"""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import tempfile
import unicodedata
import zlib
from pathlib import Path

import zstandard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from litnav.corpus import Corpus
from litnav.ingest import build

COMPRESS = {
    "": lambda b: b,
    ".gz": gzip.compress,
    ".zst": lambda b: zstandard.ZstdCompressor().compress(b),
    ".bz2": bz2.compress,
    ".xz": lzma.compress,
}


def _readable_prefix(suffix: str, cut: bytes) -> bytes:
    """The decompressed bytes available before the cut, by the codecs' own incremental decoders."""
    if suffix == "":
        return cut
    dec = {".gz": lambda: zlib.decompressobj(wbits=31), ".zst": lambda: zstandard.ZstdDecompressor().decompressobj(),
           ".bz2": bz2.BZ2Decompressor, ".xz": lzma.LZMADecompressor}[suffix]()
    try:
        return dec.decompress(cut)
    except Exception:  # the cut lies inside a header: nothing is readable
        return b""


TITLE = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=40)


def _visible(title: str) -> bool:
    """A title of only spaces or zero-width format characters is rejected as empty: not a record."""
    return any(not ch.isspace() and unicodedata.category(ch) != "Cf" for ch in title)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(titles=st.lists(TITLE.filter(_visible), min_size=1, max_size=25),
       suffix=st.sampled_from(sorted(COMPRESS)), fraction=st.floats(0.0, 1.0))
def test_random_truncation_never_crashes_and_keeps_every_record_before_the_damage(titles, suffix, fraction):
    records = [{"id": f"r{i:03d}", "title": t, "abstract": f"abstract {i} " * (i % 5)} for i, t in enumerate(titles)]
    data = "".join(json.dumps(r) + "\n" for r in records).encode()
    full = COMPRESS[suffix](data)
    cut = full[: int(len(full) * fraction)]
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / f"papers.jsonl{suffix}"
        src.write_bytes(cut)
        report = build([src], Path(tmp) / "c", fmt="jsonl", progress=False, finalize=False)
        with Corpus.open(Path(tmp) / "c") as c:
            stored = c.all_ids()
    prefix = _readable_prefix(suffix, cut)
    complete = prefix[: prefix.rfind(b"\n") + 1].decode("utf-8", errors="replace").splitlines()
    expected = {json.loads(line)["id"] for line in complete}
    assert expected <= set(stored)
    assert set(stored) <= {r["id"] for r in records}
    if suffix and len(cut) < len(full):
        assert str(src) in report.damaged_files  # a cut compressed file is always reported
