"""The C heap during an ingest (glibc only; elsewhere nothing is changed).

glibc serves a request of 128 KiB or more with its own mmap, returned on free, but after
the first such block is freed it raises that threshold (up to 32 MiB), so the OCR and
embedding models' big transient buffers land in the heap, where freed space is kept and
fragments: each model's peak then stacks on the last one's leftovers. ``bound_heap``
fixes the threshold at 128 KiB (which also stops the raising), so big buffers go back
when freed. Measured on the mixed-folder bench (``python -m bench --only mixed``), see
the module ``bench/mixed.py`` and BENCHMARKS.md section 15. Its cost is page faults: on
that 14-file folder (``localcrag ingest``, two interleaved pairs of runs, 2 busy cores,
2026-12-01) system CPU 1.4 -> 3.3-3.4 s and all CPU 83.5-88.5 -> 87.8-92.0 s (about +5%),
wall +2.2-2.6 s, for a peak of 533-539 MB instead of 620-664 MB.
"""

from __future__ import annotations

import ctypes
import sys

M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter numbers (malloc.h)
MMAP_THRESHOLD = 128 * 1024  # glibc's default starting value


def bound_heap() -> bool:
    """Fix glibc's mmap threshold for this process; False where there is no glibc."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD))
