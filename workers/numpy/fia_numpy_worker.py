#!/usr/bin/python3
"""A `numbers` worker for `fiacheck --sut exec:COMMAND` (docs/sut/exec.md):
FusedInferAttentionScore computed in NumPy from the documents
(docs/semantics.md, docs/features/*.md), independently of fiacheck's own
fast/ and ref/.  docs/sut/numpy.md says what it covers.

    fiacheck run --sut exec:'/usr/bin/python3 workers/numpy/fia_numpy_worker.py' CASES"""

import os
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import call                                   # noqa: E402
import wire                                   # noqa: E402
from layout import Uncovered                  # noqa: E402

NAME = "numpy"
VERSION = "1.0"
NOT_COVERED = 990001
RUNTIME_ERROR = 361001
# FIA_NUMPY_WORKER_VERBOSE=1: say each refusal on stderr (a campaign's
# summary counts them but does not say why)
VERBOSE = os.environ.get("FIA_NUMPY_WORKER_VERBOSE", "") == "1"


def answer(req, out):
    try:
        call.coverage(req)
        if req.phase == "check":
            wire.write_status(out, 0)
            return
        blobs = call.compute(req)
    except Uncovered as e:
        if VERBOSE:
            sys.stderr.write("fia_numpy_worker: not covered: %s\n" % e)
        wire.write_status(out, NOT_COVERED, str(e))
        return
    except Exception as e:                     # the worker's own failure, said as such
        traceback.print_exc(file=sys.stderr)
        wire.write_status(out, RUNTIME_ERROR, "numpy worker error: %s: %s"
                          % (type(e).__name__, e))
        return
    wire.write_outputs(out, blobs)


def main():
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    label = VERSION + ("+plant-" + call.PLANT if call.PLANT else "")
    wire.write_hello(out, "numbers", NAME, label)
    while True:
        try:
            req = wire.read_request(inp)
        except wire.ProtocolError as e:
            sys.stderr.write("fia_numpy_worker: %s\n" % e)
            return 2
        if req is None:
            return 0
        answer(req, out)


if __name__ == "__main__":
    sys.exit(main())
