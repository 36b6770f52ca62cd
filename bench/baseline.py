"""The tutorial baseline: seed ``shared/seeds/001_05cc9736a273efbd.txt`` re-implemented.

Faithful to the seed's code: PyMuPDF ``page.get_text()`` concatenated per document,
fixed 1000/200-character chunks, a ``SimpleVectorStore`` (a Python list of numpy vectors
searched with a Python loop of cosine similarities), embeddings requested in batches of
100 (``create_embeddings``), and an LLM grader that *generates* a score and parses it with
a regex (``evaluate_document_relevance``). Only the cloud calls change: embeddings come
from the same local sentence-transformers model localcrag uses, and the grader runs on
the local chat model through ``localcrag.llm.gguf``. Prints are dropped (they are not work).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np


def extract_text_from_pdf(pdf_path: Path) -> str:
    """Seed: ``text += page.get_text()`` for every page."""
    import pymupdf

    pdf = pymupdf.open(str(pdf_path))
    text = ""
    for page_num in range(len(pdf)):
        text += pdf[page_num].get_text()
    return text


def chunk_text(text: str, chunk_size: int = 1000, overlap: int = 200) -> list[dict]:
    """Seed: fixed windows of ``chunk_size`` characters, stepping ``chunk_size - overlap``."""
    chunks = []
    for i in range(0, len(text), chunk_size - overlap):
        piece = text[i : i + chunk_size]
        if piece:
            chunks.append(
                {
                    "text": piece,
                    "metadata": {
                        "start_pos": i,
                        "end_pos": i + len(piece),
                        "source_type": "document",
                    },
                }
            )
    return chunks


class SimpleVectorStore:
    """Seed: parallel Python lists; search is a Python loop of cosine similarities."""

    def __init__(self) -> None:
        self.vectors: list[np.ndarray] = []
        self.texts: list[str] = []
        self.metadata: list[dict] = []

    def add_item(self, text: str, embedding: Any, metadata: dict | None = None) -> None:
        self.vectors.append(np.array(embedding))
        self.texts.append(text)
        self.metadata.append(metadata or {})

    def add_items(self, items: Sequence[dict], embeddings: Sequence[Any]) -> None:
        for item, embedding in zip(items, embeddings):
            self.add_item(text=item["text"], embedding=embedding, metadata=item.get("metadata", {}))

    def similarity_search(self, query_embedding: Any, k: int = 5) -> list[dict]:
        if not self.vectors:
            return []
        query_vector = np.array(query_embedding)
        similarities = []
        for i, vector in enumerate(self.vectors):
            similarity = np.dot(query_vector, vector) / (
                np.linalg.norm(query_vector) * np.linalg.norm(vector)
            )
            similarities.append((i, similarity))
        similarities.sort(key=lambda x: x[1], reverse=True)
        return [
            {"text": self.texts[idx], "metadata": self.metadata[idx], "similarity": float(score)}
            for idx, score in similarities[:k]
        ]


def create_embeddings(encode: Callable[[list[str]], Any], texts: list[str] | str) -> Any:
    """Seed: batches of 100 texts per embedding request (here: one local encode call each)."""
    input_texts = texts if isinstance(texts, list) else [texts]
    all_embeddings: list[Any] = []
    for i in range(0, len(input_texts), 100):
        all_embeddings.extend(list(encode(input_texts[i : i + 100])))
    return all_embeddings[0] if isinstance(texts, str) else all_embeddings


def process_document(
    pdf_path: Path, encode: Callable[[list[str]], Any], store: SimpleVectorStore | None = None
) -> SimpleVectorStore:
    """Seed's ingestion: extract, chunk 1000/200, embed, add to the store."""
    text = extract_text_from_pdf(pdf_path)
    chunks = chunk_text(text, 1000, 200)
    embeddings = create_embeddings(encode, [c["text"] for c in chunks])
    store = store if store is not None else SimpleVectorStore()
    store.add_items(chunks, embeddings)
    return store


GRADER_SYSTEM = """
    You are an expert at evaluating document relevance.
    Rate how relevant the given document is to the query on a scale from 0 to 1.
    0 means completely irrelevant, 1 means perfectly relevant.
    Provide ONLY the score as a float between 0 and 1.
    """


def evaluate_document_relevance(llm: Any, query: str, document: str) -> float:
    """Seed's grader on a local chat model: generate <=5 tokens at T=0, regex the number."""
    return grade_parsed(llm, query, document)[0]


def grade_parsed(llm: Any, query: str, document: str) -> tuple[float, bool]:
    """(score, whether the regex found a number): the seed falls back to 0.5 silently."""
    messages = [
        {"role": "system", "content": GRADER_SYSTEM},
        {"role": "user", "content": f"Query: {query}\n\nDocument: {document}"},
    ]
    try:
        prompt = llm.chat_prompt(messages)
        score_text = llm.complete(prompt, 5).strip()
        match = re.search(r"(\d+(\.\d+)?)", score_text)
        return (float(match.group(1)), True) if match else (0.5, False)
    except Exception:  # noqa: BLE001 - the seed returns 0.5 on any error
        return 0.5, False
