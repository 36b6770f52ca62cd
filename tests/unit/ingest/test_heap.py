"""``ingest.heap.bound_heap``: big freed buffers go back to the system (glibc only)."""

from __future__ import annotations

import platform
import subprocess
import sys

import pytest

from localcrag.ingest.heap import bound_heap

# 20 buffers of 4 MiB freed with small objects allocated between them: without a fixed
# threshold glibc raises it past 4 MiB after the first free, the rest land in the heap
# and stay there (the small objects pin its top); prints the MB given back
PROBE = """
import sys
from localcrag.ingest.heap import bound_heap
if sys.argv[1] == "bound":
    bound_heap()
def rss():
    return int(open("/proc/self/statm").read().split()[1]) * 4096 / 2**20
first = bytearray(4 << 20)
del first
big, small = [], []
for i in range(20):
    big.append(bytearray(4 << 20))
    small.append(bytearray(2048))
held = rss()
del big
print(round(held - rss()))
"""

glibc = pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
    reason="glibc only",
)


def _given_back(mode: str) -> int:
    out = subprocess.run(
        [sys.executable, "-c", PROBE, mode], capture_output=True, text=True, check=True
    )
    return int(out.stdout)


@glibc
def test_freed_big_buffers_go_back_once_the_heap_is_bounded() -> None:
    assert bound_heap() is True
    assert _given_back("bound") >= 70  # of 80 MB
    assert _given_back("default") < 40  # the glibc behaviour it exists for
