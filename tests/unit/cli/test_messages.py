"""Ingest tells what it does and messages name exactly what is supported."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from localcrag.cli.main import build_parser
from localcrag.cli.progress import EVERY_S, Lines, ingest_progress
from localcrag.errors import BadDocument
from localcrag.ingest.formats import FORMATS, OLD_BINARY
from localcrag.ingest.parse import parse_document
from localcrag.ingest.progress import IngestProgress


def test_without_a_terminal_each_file_is_a_line_and_a_long_file_a_line_every_few_seconds() -> None:
    now = [0.0]
    out = io.StringIO()
    lines = Lines(out, clock=lambda: now[0])
    lines(IngestProgress(0, 3, "/d/big.csv", "reading"))
    now[0] = 2.0
    lines(
        IngestProgress(
            0, 3, "/d/big.csv", "embedding", chunks_done=128, chunks_total=1024, rate=64.0
        )
    )
    # the first event says the run started; the batch after it, under EVERY_S: nothing
    assert out.getvalue().splitlines() == ["[0/3] reading big.csv"]
    now[0] = 2.0 + EVERY_S
    lines(
        IngestProgress(
            0, 3, "/d/big.csv", "embedding", chunks_done=512, chunks_total=1024, rate=70.0
        )
    )
    lines(IngestProgress(1, 3, "/d/big.csv", "indexed", files_per_s=0.1, eta_s=20.0))
    lines(IngestProgress(2, 3, "/d/old.txt", "unchanged"))
    assert out.getvalue().splitlines() == [
        "[0/3] reading big.csv",
        "[0/3] embedding 512/1,024 chunks (70/s) · big.csv",
        "[1/3] indexed big.csv · 0.1 files/s · ~20 s left",
        "[2/3] unchanged old.txt",
    ]


def test_a_batch_slower_than_the_interval_still_gets_a_line_every_few_seconds() -> None:
    """The heartbeat's tick repeats the latest state once EVERY_S passed without a line
    (an embedding batch took 7-13 s on a busy machine), and says nothing before the first
    event nor once a file has ended."""
    now = [0.0]
    out = io.StringIO()
    lines = Lines(out, clock=lambda: now[0])
    now[0] = EVERY_S  # no event yet: nothing to repeat
    lines.tick()
    now[0] = EVERY_S + 1
    batch = IngestProgress(
        0, 2, "/d/big.csv", "embedding", chunks_done=128, chunks_total=1024, rate=14.0
    )
    lines(batch)  # the first event: its line
    now[0] = EVERY_S + 2
    lines.tick()  # under EVERY_S since that line: nothing
    now[0] = 2 * EVERY_S + 1
    lines.tick()  # the next batch is slow: the state again
    now[0] = 2 * EVERY_S + 2
    lines.tick()  # a line was just written
    now[0] = 3 * EVERY_S
    lines(IngestProgress(1, 2, "/d/big.csv", "indexed"))
    now[0] = 5 * EVERY_S
    lines.tick()  # nothing is being worked on
    state = "[0/2] embedding 128/1,024 chunks (14/s) · big.csv"
    assert out.getvalue().splitlines() == [
        state,
        f"{state} · still working",
        "[1/2] indexed big.csv",
    ]


def test_quiet_and_json_print_no_progress(capsys) -> None:
    for as_json, quiet in ((True, False), (False, True)):
        callback, close = ingest_progress(as_json, quiet)
        callback(IngestProgress(1, 1, "/d/a.txt", "indexed"))
        close()
    assert capsys.readouterr().err == ""


def test_help_names_exactly_the_supported_types() -> None:
    text = " ".join(build_parser().format_help().split())
    listed = re.search(r"index files or folders \(([^)]*)\)", text).group(1).split(", ")
    assert listed == sorted(FORMATS) and not set(OLD_BINARY) & set(listed)


def test_the_unsupported_type_message_lists_only_what_is_read(tmp_path: Path) -> None:
    f = tmp_path / "drawing.svg"
    f.write_text("<svg/>", encoding="utf-8")
    with pytest.raises(BadDocument) as exc:
        parse_document(f)
    message = str(exc.value)
    assert "drawing.svg" in message and all(ext in message for ext in FORMATS)
    assert not any(re.search(re.escape(ext) + r"\b(?!x)", message) for ext in OLD_BINARY), message


def test_ctrl_c_on_watch_prints_no_library_log_line() -> None:
    """watchfiles logs "KeyboardInterrupt caught, stopping watch" as a warning; watch() quiets it."""
    import logging
    from unittest import mock

    from localcrag.ingest.watch import watch

    with mock.patch("watchfiles.watch", return_value=iter(())):
        watch(mock.MagicMock(), [Path(".")], lambda r: None)
    assert logging.getLogger("watchfiles").getEffectiveLevel() >= logging.ERROR
