"""The LanceDB store with a deterministic fake embedder: atomic replace, search modes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from localcrag.ingest.store import LanceStore, table_name
from localcrag.types import Chunk
from tests.support.fakes import FakeEmbedder, put_texts, texts_as_chunks

EMB = FakeEmbedder()


def test_table_name_changes_with_model_and_chunking() -> None:
    a = table_name("modelA", 200, 1, "v1")
    assert a == table_name("modelA", 200, 1, "v1")
    assert (
        len(
            {
                a,
                table_name("modelB", 200, 1, "v1"),
                table_name("modelA", 128, 1, "v1"),
                table_name("modelA", 200, 0, "v1"),
            }
        )
        == 4
    )


def test_replace_file_swaps_old_chunks_for_new(tmp_path: Path) -> None:
    store = LanceStore(tmp_path / "idx", "t", EMB.dim)
    put_texts(store, "/a.txt", ["apples are red", "pears are green", "plums are purple"], "h1")
    put_texts(store, "/b.txt", ["bananas are yellow"], "h2")
    assert store.count() == 4
    put_texts(store, "/a.txt", ["cherries are dark red"], "h3")
    assert store.count() == 2
    assert store.file_hashes() == {"/a.txt": "h3", "/b.txt": "h2"}
    assert {s.source: s.chunks for s in store.sources()} == {"/a.txt": 1, "/b.txt": 1}
    assert store.remove("/b.txt") == 1 and store.count() == 1


def test_search_modes(tmp_path: Path) -> None:
    store = LanceStore(tmp_path / "idx", "t", EMB.dim)
    texts = [
        "the transformer uses attention",
        "convolution networks see images",
        "recurrent networks read sequences",
        "gardening tips for tomatoes",
    ]
    put_texts(store, "/d.txt", texts, "h")
    store.ensure_fts(force=True)
    q = "attention transformer"
    v = EMB.embed([q])[0]
    for mode in ("vector", "text", "hybrid"):
        hits = store.search(q, v, 2, mode)
        assert hits[0].chunk.text == texts[0], mode
        assert [h.rank for h in hits] == list(range(len(hits)))
    # new rows are found by full-text search before the index is rebuilt
    put_texts(store, "/e.txt", ["zebras have stripes"], "z")
    assert store.search("zebras", None, 1, "text")[0].chunk.source == "/e.txt"


def test_get_chunk_and_empty_store(tmp_path: Path) -> None:
    store = LanceStore(tmp_path / "idx", "t", EMB.dim)
    assert store.count() == 0 and store.search("x", np.zeros(EMB.dim), 3, "hybrid") == []
    put_texts(store, "/a.txt", ["it's a quote's test"], "h")
    assert store.get("h-0").text == "it's a quote's test"
    assert store.get("nope") is None


def test_centroid_is_the_mean_of_the_stored_unit_vectors(tmp_path: Path) -> None:
    store = LanceStore(tmp_path / "idx", "t", EMB.dim)
    put_texts(store, "/a.txt", ["alpha beta", "gamma delta"], "h")
    vecs = EMB.embed(["alpha beta", "gamma delta"])
    vecs = vecs / np.linalg.norm(vecs, axis=1, keepdims=True)
    assert np.allclose(store.centroid(), vecs.mean(axis=0), atol=2e-3)  # int8 codes: ~1e-3


def _lancedb_flat(store: LanceStore, vector: np.ndarray, n: int) -> list[tuple[str, float]]:
    """LanceDB's own exact (index-free) cosine search: the reference the RAM copy must equal."""
    rows = (
        store.table.search(np.asarray(vector, dtype=np.float32), vector_column_name="vector")
        .metric("cosine")
        .select(["chunk_id"])
        .limit(n)
        .to_list()
    )
    return [(r["chunk_id"], r["_distance"]) for r in rows]


def test_ram_vector_search_equals_lancedb_and_follows_every_change(tmp_path: Path) -> None:
    store = LanceStore(tmp_path / "idx", "t", EMB.dim)
    rng = np.random.default_rng(0)
    words = [
        "attention",
        "robots",
        "tomatoes",
        "pricing",
        "caching",
        "latency",
        "normans",
        "france",
    ]
    for d in range(6):
        put_texts(
            store,
            f"/{d}.txt",
            [" ".join(rng.choice(words, 4)) + f" doc{d} part{i}" for i in range(5)],
            f"h{d}",
        )
    queries = [EMB.embed([w])[0] for w in words[:4]]

    def check() -> None:
        for q in queries:
            ours = [(r["chunk_id"], r["_distance"]) for r in store._vector(q, 7)]
            ref = _lancedb_flat(store, q, 7)
            assert np.allclose([d for _, d in ours], [d for _, d in ref], atol=1e-5)
            cut = ref[-1][1] - 1e-5  # below the last distance: no ties at the boundary
            assert {c for c, d in ours if d < cut} == {c for c, d in ref if d < cut}

    check()
    put_texts(store, "/2.txt", ["robots replaced", "tomatoes replaced"], "h2b")  # a replaced file
    check()
    assert not any(
        h.chunk.chunk_id.startswith("h2-") for h in store.search("robots", queries[1], 30, "vector")
    )
    store.remove("/4.txt")  # a deletion
    check()
    assert all(
        h.chunk.source != "/4.txt" for h in store.search("tomatoes", queries[2], 30, "hybrid")
    )
    put_texts(store, "/new.txt", ["pricing of prompt caching"], "hn")  # an append
    check()
    hits = store.search("pricing caching", EMB.embed(["pricing of prompt caching"])[0], 3, "hybrid")
    assert hits[0].chunk.chunk_id == "hn-0" and len(hits) == 3


def test_all_texts_samples_evenly_above_a_limit(tmp_path: Path) -> None:
    store = LanceStore(tmp_path / "idx", "t", EMB.dim)
    put_texts(store, "/a.txt", [f"text number {i}" for i in range(10)], "h")
    assert len(store.all_texts()) == 10 and len(store.all_texts(20)) == 10
    sample = store.all_texts(3)
    assert len(sample) == 3 and set(sample) <= set(store.all_texts())


def test_an_index_written_before_locators_loads_and_gains_the_column(tmp_path: Path) -> None:
    """Tables made before the locator column existed are searched as they are (locator None)
    and get the column on their next write, so no re-index is needed."""
    import lancedb
    import pyarrow as pa

    from localcrag.ingest.rows import arrow_rows, schema

    old_schema = pa.schema([f for f in schema(EMB.dim) if f.name != "locator"])
    chunks = texts_as_chunks("/old.txt", ["walruses sleep on ice floes"], "h0")
    rows = arrow_rows(
        EMB.dim, "/old.txt", "h0", 1, chunks, EMB.embed([c.text for c in chunks]), 0.0
    )
    db = lancedb.connect(str(tmp_path / "idx"))
    db.create_table("t", data=rows.drop_columns(["locator"]).cast(old_schema))
    store = LanceStore(tmp_path / "idx", "t", EMB.dim)
    for mode in ("hybrid", "vector", "text"):
        hit = store.search("walruses ice", EMB.embed(["walruses ice"])[0], 1, mode)[0]
        assert hit.chunk.chunk_id == "h0-0" and hit.chunk.locator is None
    assert store.get("h0-0").locator is None
    new = [Chunk("s-0", "/deck.pptx", "otters hold hands", 2, 2, 0, 17, None, 3, "slide 2")]
    store.replace_file("/deck.pptx", "h1", 2, new, EMB.embed([new[0].text]))
    assert "locator" in store.table.schema.names
    assert store.get("s-0").locator == "slide 2" and store.get("h0-0").locator is None
    assert (
        store.search("otters", EMB.embed(["otters"])[0], 1, "hybrid")[0].chunk.locator == "slide 2"
    )


def test_tied_passages_rank_the_same_whatever_order_the_table_stores_them(tmp_path: Path) -> None:
    """Passages a search scores alike (the same words, the same vector) share a rank, and
    ties go by chunk id: a table that stores the same rows in another order (a rebuilt or
    repaired index) returns the same passages in the same order."""
    from localcrag.ingest.names import fuse

    fused, order = fuse([[1, 2, 3], [3, 2]], {}, 10, [[0.9, 0.5, 0.5], [2.0, 2.0]])
    assert fused[2] == fused[3] and order[0] in (2, 3)

    twins = [f"The robot arm number {i} is calibrated by shift 7." for i in range(8)]
    same = "The gripper is calibrated every week."
    results = []
    for name, sources in (("a", range(8)), ("b", reversed(range(8)))):
        store = LanceStore(tmp_path / name, "t", EMB.dim)
        for i in sources:  # one file each, written in opposite orders
            put_texts(store, f"/d/note{i}.txt", [twins[i].replace(str(i), "N"), same], f"n{i}")
        store.ensure_fts(force=True)
        q = "Which robot arm is calibrated by shift 7?"
        hits = store.search(q, EMB.embed([q])[0], 5, "hybrid")
        results.append([h.chunk.chunk_id for h in hits])
    assert results[0] == results[1] and len(results[0]) == 5


def test_tied_passages_rank_the_same_wherever_the_library_lives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A chunk's id starts with a hash of its file's path (ingest/library); ties go by the
    rest of it (the content's hash, the passage number), so the same files in another folder
    (another user, a fresh evaluation home, a test's temporary folder) rank alike."""
    from localcrag.ingest.library import Library
    from localcrag.settings import Settings

    words = ["amber", "birch", "cedar", "delta", "ember", "fjord", "grove", "heath"]
    results = []
    for home, folder in (("a", "ann/docs"), ("b", "lab/papers")):
        docs = tmp_path / folder
        docs.mkdir(parents=True)
        for w in words:
            (docs / f"{w}.txt").write_text(f"The gripper of arm {w} is calibrated weekly.\n")
        monkeypatch.setenv("LOCALCRAG_HOME", str(tmp_path / home))
        library = Library(Settings(), embedder=EMB)
        assert not library.ingest([docs]).failed
        hits = library.store.search("gripper calibrated weekly", None, len(words), "text")
        assert len({h.score for h in hits}) == 1  # every passage scored alike
        results.append([Path(h.chunk.source).name for h in hits])
    assert results[0] == results[1] and len(results[0]) == len(words)
