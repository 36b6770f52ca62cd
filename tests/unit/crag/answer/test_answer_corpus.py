"""No artefact of the bundled model reaches the user.

tests/data/answer_corpus.json holds real, raw outputs of SmolLM2-135M-Instruct (the default
generator) with the evidence it was shown, recorded by scripts/answer_corpus.py over
questions of every shared data set. Each raw output goes through the product's grounding
check (``crag.grounding.ground``) and, streamed, through the answer stage's
``shaping.SentenceGate``; the extractive answer (``crag.extract.extractive_answer``) is what
the user sees in the extractive style and when no generated sentence survives: all are checked.

How each pattern was chosen (before the corpus was read; none uses a corpus answer's words):
* ``EMPTY_LEAD``: "The answer:", "The answer is." -- the filler the bundled model once wrote verbatim,
  generalised to "the answer" (optionally "is") followed by a colon or a full stop, once
  citations are taken out (they are not words: "The answer is [1]." says nothing either).
* ``EMPTY_PREDICATE``: a sentence that ends on a bare "is"/"are"/"was"/"were" or a colon,
  citations aside -- once "The guest wifi password is [1]." (added after a first look
  at the corpus showed that form with other subjects; it is grammar, not a corpus word).
* ``bracket_debris``: a bracket that is not a well-formed citation "[n]" / "[n, m]" and is
  not copied from the evidence (evidence may quote code or links) -- once "[4)".
* ``echoed_label``: the labels the prompt itself shows next to each passage ("file.pdf,
  p. 5", a URL), their file names and file-name stems, and any word shaped like a file name
  (name.ext) that the evidence does not contain -- once "(q54-negative-6.txt)" and
  "according to [q002-positive-6]".
* ``restated_instruction``: any four consecutive words of the prompt's own instructions
  (``generate.SYSTEM`` and the reminder ``generate._ASK``, minus the refusal sentence, which
  is a legitimate answer) that the question and the evidence do not contain, or a line
  opening like a prompt section ("Question:", "Sources:").
The detectors are checked on the reported examples below, so they cannot pass by accident.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from localcrag.crag.answer.generate import _ASK, REFUSAL, SYSTEM
from localcrag.eval.metrics import unsupported_terms
from localcrag.textutil import states_nothing
from localcrag.types import Evidence
from tests.support import DATA

CORPUS = DATA / "answer_corpus.json"
ITEMS = json.loads(CORPUS.read_text(encoding="utf-8"))["items"]

EMPTY_LEAD = re.compile(r"(?i)\bthe answer(?:\s+is)?\s*[:.](?!\d)")
EMPTY_PREDICATE = re.compile(r"(?i)(?:\b(?:is|are|was|were)|:)\s*(?:[.!?]|$)")
_CITATIONS = re.compile(r"\[\d+(?:\s*,\s*\d+)*\]")
_FILE_NAME = re.compile(
    r"\b[\w-]+\.(?:pdf|txt|md|markdown|html?|epub|json|csv|docx?)\b", re.IGNORECASE
)
_PROMPT_HEAD = re.compile(r"(?im)^\s*(?:question|sources?|answer the question)\s*:")
_WORDS = re.compile(r"[a-z0-9]+")


def _words(text: str) -> list[str]:
    return _WORDS.findall(text.lower())


def _shingles(text: str, n: int = 4) -> set[tuple[str, ...]]:
    w = _words(text)
    return {tuple(w[i : i + n]) for i in range(len(w) - n + 1)}


INSTRUCTIONS = _shingles((SYSTEM + " " + _ASK).replace(REFUSAL, " "))


def bracket_debris(answer: str, evidence_text: str) -> list[str]:
    """Whitespace-delimited tokens holding a bracket that is neither a citation nor evidence text."""
    rest = _CITATIONS.sub(" ", answer)
    return [tok for tok in rest.split() if re.search(r"[\[\]]", tok) and tok not in evidence_text]


def echoed_label(answer: str, labels: list[str], evidence_text: str) -> list[str]:
    found = []
    prose = answer.lower()
    for label in labels:
        name = label.rsplit(", p. ", 1)[0]
        stem = Path(name).stem if not name.startswith("http") else name
        for form in {label, name, stem}:
            if (
                len(form) >= 4
                and form.lower() in prose
                and form.lower() not in evidence_text.lower()
            ):
                found.append(form)
    found += [f for f in _FILE_NAME.findall(answer) if f not in evidence_text]
    return found


def restated_instruction(answer: str, question: str, evidence_text: str) -> list[str]:
    said = _shingles(answer) & INSTRUCTIONS
    allowed = _shingles(question) | _shingles(evidence_text)
    out = [" ".join(s) for s in sorted(said - allowed)]
    return out + [m.group(0).strip() for m in _PROMPT_HEAD.finditer(answer)]


def artefacts(answer: str, question: str, evidence: list[dict]) -> list[str]:
    """Every artefact found in ``answer``, each as "kind: text" (empty: clean)."""
    ev_text = "\n".join(e["text"] for e in evidence)
    ev_flat = " ".join(ev_text.split())
    words = " ".join(_CITATIONS.sub(" ", answer).split())
    out = [f"filler: {m.group(0)}" for m in EMPTY_LEAD.finditer(words) if m.group(0) not in ev_text]
    # sentences end at [.!?] or at a citation (a quote of the evidence ends with its [n]);
    # a sentence copied from the evidence is the documents' text, not the model's filler
    sentences = re.split(r"(?<=[.!?])\s+|\n|\s*\[\d+(?:\s*,\s*\d+)*\][.!?]?\s*", answer)
    out += [
        f"empty predicate: {s.strip()[-40:]}"
        for s in sentences
        if EMPTY_PREDICATE.search(s.strip())
        and " ".join(s.replace("**", "").split()) not in ev_flat
    ]
    out += [f"bracket debris: {t}" for t in bracket_debris(answer, ev_text)]
    out += [
        f"source label: {t}" for t in echoed_label(answer, [e["label"] for e in evidence], ev_text)
    ]
    out += [f"restated instruction: {t}" for t in restated_instruction(answer, question, ev_text)]
    return out


def as_evidence(item: dict) -> list[Evidence]:
    """The corpus evidence back as the product's Evidence (label "name, p. N" -> source, page)."""
    out = []
    for e in item["evidence"]:
        m = re.fullmatch(r"(.*), p\. (\d+)", e["label"])
        url = e["label"] if e["label"].startswith("http") else None
        out.append(
            Evidence(
                n=e["n"],
                text=e["text"],
                source=m.group(1) if m else e["label"],
                page=int(m.group(2)) if m else None,
                url=url,
                kind="web" if url else "document",
            )
        )
    return out


# --- the detectors find what was reported ----------------------------------------------------------

REPORTED = [
    (
        {"label": "q54-negative-6.txt", "text": "The final was played in New York."},
        "It was played in New York (q54-negative-6.txt).",
    ),
    (
        {"label": "q002-positive-6.txt", "text": "Norway won the most medals."},
        "Norway won the most medals, according to [q002-positive-6].",
    ),
    (
        {"label": "cake.md", "text": "Bake the lemon cake at 175 degrees."},
        "The recipe for lemon cake is a classic.The answer:.",
    ),
    ({"label": "wifi.md", "text": "The guest wifi password rotates weekly."}, "The answer is."),
    (
        {"label": "wifi.md", "text": "The guest wifi password rotates weekly."},
        "The guest wifi password is [1].",
    ),
    (
        {"label": "medals.md", "text": "South Korea hosted the 2018 Winter Olympics."},
        "South Korea - 2018 [4) United States [1]",
    ),
    (
        {"label": "AI_Information.pdf, p. 3", "text": "Cobots work next to people."},
        "Write the source number in square brackets after each fact.",
    ),
]


@pytest.mark.parametrize("evidence, answer", REPORTED)
def test_each_reported_artefact_is_detected(evidence: dict, answer: str) -> None:
    assert artefacts(answer, "a question?", [evidence])


def test_clean_answers_pass_the_detectors() -> None:
    ev = [
        {
            "label": "handbook.pdf, p. 2",
            "text": "See [the guide](https://x.org). Cobots work next to people.",
        }
    ]
    assert (
        artefacts(
            "Cobots work next to people [1]. See [the guide](https://x.org) [1, 2].", "q?", ev
        )
        == []
    )
    assert artefacts(REFUSAL, "q?", ev) == []


# --- the corpus ---------------------------------------------------------------------------------


def test_corpus_covers_every_data_set_and_its_raw_output_has_artefacts() -> None:
    """The corpus is real raw output: every set is there, and the detectors fire on some raw
    answers (if they fired on none, the product test below would prove nothing)."""
    assert {it["set"] for it in ITEMS} == {
        "ai-information",
        "anthropic-docs",
        "squad2",
        "attention",
    }
    assert 60 <= len(ITEMS) <= 140 and CORPUS.stat().st_size < 300_000
    assert any(not it["answerable"] for it in ITEMS if it["set"] == "squad2")
    raw_hits = [it["id"] for it in ITEMS if artefacts(it["raw"], it["question"], it["evidence"])]
    assert len(raw_hits) >= 5


@pytest.fixture(scope="module")
def processed() -> list[tuple[dict, list[Evidence], str, str]]:
    """(item, evidence, kept text after the grounding check, the extractive answer) per item:
    computed once, both product paths, for the two tests below."""
    from localcrag.crag.answer.extract import extractive_answer
    from localcrag.crag.answer.grounding import ground

    out = []
    for it in ITEMS:
        evidence = as_evidence(it)
        out.append(
            (
                it,
                evidence,
                ground(it["raw"], evidence).text + "\n" + _streamed(it, evidence),
                extractive_answer(it["question"], evidence).text,
            )
        )
    return out


def _streamed(item: dict, evidence: list[Evidence]) -> str:
    """The raw output fed to the answer stage's ``SentenceGate`` in 4-character pieces, as the
    model streams it: what the generative answer shows, sentence by sentence."""
    from localcrag.crag.answer.shaping import SentenceGate

    gate = SentenceGate(evidence, item["question"])
    raw = item["raw"]
    shown = [gate.feed(raw[i : i + 4])[0] for i in range(0, len(raw), 4)]
    return "".join(shown) + gate.finish()


def test_no_artefact_reaches_the_user(processed) -> None:
    """What the user sees: the kept sentences, or the extractive answer when none is kept."""
    bad = []
    for it, _, kept, quote in processed:
        for kind, shown in (("kept", kept), ("extractive", quote)):
            if shown and (found := artefacts(shown, it["question"], it["evidence"])):
                bad.append(f"{it['id']} ({kind}): {found} in {shown[:120]!r}")
    assert not bad, "\n".join(bad)


def test_every_number_and_name_of_a_kept_answer_is_in_its_evidence(processed) -> None:
    """Checked with eval's own detector (eval/metrics.py), not the product's check. A quote
    that claims nothing ("The documents do not state it. No passage gives Henry II ...")
    names what the question asked for, as eval's own scoring of refusals does: no claim."""
    bad = []
    for it, evidence, kept, quote in processed:
        texts = [e.text for e in evidence]
        for kind, shown in (("kept", kept), ("extractive", quote)):
            if shown and not states_nothing(shown) and (missing := unsupported_terms(shown, texts)):
                bad.append(f"{it['id']} ({kind}): {missing} in {shown[:120]!r}")
    assert not bad, "\n".join(bad)
    assert any(kept.strip() for _, _, kept, _ in processed), (
        "the grounding check kept no generated sentence at all"
    )
