"""Workflow edit metrics as PaperPilot reports them: how far a produced workflow is from a
reference one.

Nodes are compared by content, not by id: a node's signature is its operator and its
parameters (canonical JSON), so two planners naming nodes differently still match. The
node-set Jaccard is ``|A ∩ B| / |A ∪ B|`` over the signature multisets; the operator Jaccard
does the same over operator names only; edges are (signature of the input, signature of the
consumer). Edit counts: nodes to add (in the reference only), to remove (in the produced only)
and to modify (same id on both sides but another operator, parameters or inputs).
"""

from __future__ import annotations

import json
from collections import Counter

from litnav.core.records import Workflow


def _sig(node) -> str:
    return json.dumps([node.op, node.params], sort_keys=True, default=str)


def _jaccard(a: Counter, b: Counter) -> float:
    union = sum((a | b).values())
    return sum((a & b).values()) / union if union else 1.0


def workflow_edit_metrics(produced: Workflow, reference: Workflow) -> dict[str, float]:
    """``node_jaccard``, ``op_jaccard``, ``edge_jaccard`` (each in [0, 1], 1 = identical) and the
    edit counts ``added``, ``removed``, ``modified`` and ``edits`` (their sum) that turn
    ``produced`` into ``reference`` (see the module docstring)."""
    pa, ra = {n.id: n for n in produced.nodes}, {n.id: n for n in reference.nodes}
    psig, rsig = {i: _sig(n) for i, n in pa.items()}, {i: _sig(n) for i, n in ra.items()}
    pedges = Counter((psig[i], psig[n.id]) for n in produced.nodes for i in n.inputs if i in psig)
    redges = Counter((rsig[i], rsig[n.id]) for n in reference.nodes for i in n.inputs if i in rsig)
    added = sum(1 for i in ra if i not in pa)
    removed = sum(1 for i in pa if i not in ra)
    modified = sum(1 for i in pa if i in ra and (psig[i] != rsig[i] or pa[i].inputs != ra[i].inputs))
    return {
        "node_jaccard": _jaccard(Counter(psig.values()), Counter(rsig.values())),
        "op_jaccard": _jaccard(Counter(n.op for n in produced.nodes), Counter(n.op for n in reference.nodes)),
        "edge_jaccard": _jaccard(pedges, redges),
        "added": float(added), "removed": float(removed), "modified": float(modified),
        "edits": float(added + removed + modified),
    }
