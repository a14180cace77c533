"""Finalize's chunking and BM25 stages re-run on a copy of a built corpus (e.g. one that
``bench/scale.py`` built), timed in CPU seconds of this process (all threads) and wall seconds,
with peak RSS: per-core rates of those stages with the current code, without re-ingesting.

    python bench/scale_finalize.py /work/scratch/scale/n100k/corpus /tmp/copy

Prints one JSON line: ``{"chunk": {"wall_s", "cpu_s"}, "bm25": {...}, "chunks", "papers",
"peak_rss_gib"}``. The copy is overwritten.
"""

from __future__ import annotations

import json
import resource
import shutil
import sys
import time
from pathlib import Path


def main(src: Path, dst: Path) -> dict:
    from litnav.corpus import CorpusWriter
    from litnav.corpus.build import _build_bm25, _chunk, _staged_chunk_count
    from litnav.corpus.chunking import Chunker
    from litnav.corpus.encoder import Encoder
    from litnav.corpus.schema import EMBED_DIR

    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst)
    shutil.rmtree(dst / EMBED_DIR, ignore_errors=True)  # chunk shards of an unfinished build
    with CorpusWriter.open(dst) as w:
        w.conn.execute("UPDATE papers SET chunked = false")
        w.conn.execute("DELETE FROM chunks")
        enc = Encoder.from_settings(w.settings)
        limit = min(w.settings.chunk_tokens, enc.max_tokens)
        out: dict = {}
        for name, fn in (("chunk", lambda: _chunk(dst, w.conn, Chunker.for_encoder(enc, limit), False)),
                         ("bm25", lambda: _build_bm25(dst, w.conn, False))):
            t, c = time.perf_counter(), time.process_time()
            fn()
            out[name] = {"wall_s": round(time.perf_counter() - t, 1), "cpu_s": round(time.process_time() - c, 1)}
        out["chunks"] = _staged_chunk_count(dst / EMBED_DIR)[1]  # the staged build chunks into embed/ shards
        out["papers"] = w.conn.execute("SELECT count(*) FROM papers").fetchall()[0][0]
    out["peak_rss_gib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 2)
    return out


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    print(json.dumps(main(Path(sys.argv[1]), Path(sys.argv[2]))))
