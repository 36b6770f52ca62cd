"""The C heap during an ingest (glibc only; elsewhere nothing is changed).

glibc serves a request of 128 KiB or more with its own mmap, returned on free, but after
the first such block is freed it raises that threshold (up to 32 MiB), so the OCR and
embedding models' big transient buffers land in the heap, where freed space is kept and
fragments: each model's peak then stacks on the last one's leftovers. ``bound_heap``
fixes the threshold (which also stops the raising), so big buffers go back when freed.

The value is a trade measured 2026-12-01 (one run each, 2 cores): peak RSS of the 14-file
folder of ``python -m bench --only mixed`` and OCR CPU a page (5 scanned pages of
AI_Information.pdf, engine warm) after it was set:

| threshold | mixed-folder peak | OCR CPU a page |
|---|---|---|
| not fixed (glibc's default) | 620-664 MB | 2.6-2.9 s |
| 128 KiB | 525-539 MB | 5.0-5.3 s (every big allocation an mmap, its pages faulted in) |
| 1 MiB | 534 MB | 4.1 s |
| **4 MiB** | 548 MB | 3.5 s |
| 16 MiB | 580 MB | 3.6 s |

(``malloc_trim`` after each page and batch instead: 597-624 MB, 4.0 s.)
"""

from __future__ import annotations

import ctypes
import sys

M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter numbers (malloc.h)
MMAP_THRESHOLD = 4 << 20  # measured below: 128 KiB doubled OCR's CPU a page


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
