"""What the chosen generator is used for, and why, decided from its size before it loads.

One rule, the answer style's (``style.SMALL_MODEL_PARAMS``, about 1B parameters): a model
below it quotes evidence instead of writing, a model above it writes. The same model also
writes the web query and the standalone follow-up (``rewrite.py``, every output checked,
keyword rules when the check fails), so a capable model improves those with no setting. The
``llm`` yes/no grader is *not* switched on by size: with SmolLM2-135M-Instruct, the one
model its yes/no prompt was measured with, it scores at chance (SQuAD near-miss ROC-AUC
0.48 / 0.52, docs/evaluator.md; Gemma-3-270M was measured only for query likelihood), and
no model of 1B or more has been measured against the fusion grader on the dev sets here, so the fusion stays until such a measurement says otherwise
(``localcrag eval DEV --only evaluator --grader llm --generator NAME``).

The parameter count comes from the GGUF header (``llm.ggufmeta``): the settings screen and
`localcrag models` can say what will happen without loading a model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from localcrag.crag.answer.style import SMALL_MODEL_PARAMS, model_name, model_size, resolve_style
from localcrag.llm.chat import ModelFacts
from localcrag.llm.ggufmeta import GGUFError, read_meta

# What was measured, on what (docs/evaluator.md, "llm yes/no"): one model, not every small one.
MEASURED_AT_CHANCE = (
    "yes/no grading by prompting was measured at chance with SmolLM2-135M-Instruct "
    "(the one model under 1B it was measured on)"
)

_FACTS: dict[tuple[str, int, int], ModelFacts] = {}
GRADER_MEASURE = "localcrag eval DEV --only evaluator --grader llm --generator {name}"


@dataclass(frozen=True)
class Choice:
    part: str  # "answers", "web queries", "grader"
    choice: str
    why: str

    def line(self) -> str:
        return f"{self.part}: {self.choice} ({self.why})"


def generator_facts(settings: Any) -> ModelFacts:
    """What the generator is, read from its GGUF's header without loading it; with
    ``llm_endpoint``, the model server (``remote``: counted as capable)."""
    if url := settings.endpoint.llm_endpoint:
        from localcrag.llm.endpoint import EndpointLLM

        return EndpointLLM(url, settings.endpoint.llm_endpoint_model).facts
    path = settings.model_path(settings.models.generator)
    try:
        stat = path.stat()
        key = (str(path), stat.st_mtime_ns, stat.st_size)
        if key not in _FACTS:  # the settings screen asks on every keystroke
            meta = read_meta(path)
            _FACTS[key] = ModelFacts(path.name, path, meta.n_params, meta.size_label)
        return _FACTS[key]
    except (GGUFError, OSError):
        return ModelFacts(path.name, path)


def is_capable(facts: ModelFacts) -> bool:
    if facts.remote:
        return True
    n, _ = model_size(facts)
    return n is not None and n >= SMALL_MODEL_PARAMS


def model_choices(settings: Any, facts: ModelFacts | None = None) -> list[Choice]:
    """The answer style, the rewriter and the grader the generator gets (``facts``: what it
    is; by default read from the settings' model without loading it), each with why."""
    gen = facts if facts is not None else generator_facts(settings)
    name = model_name(gen)
    style, why = resolve_style(settings.generation.answer_style, gen)
    out = [
        Choice(
            "answers",
            "written by the model, each sentence checked"
            if style == "generative"
            else "quoted from the documents",
            why,
        )
    ]
    remote = gen.remote
    # rewrite.standalone_question: grammar before the model ("it" too when answers are quoted)
    grammar = (
        "; a follow-up that is only a phrase ('And the decoder?') "
        + ("or asks about a lone 'it' " if style == "extractive" else "")
        + "is completed by grammar first"
    )
    if is_capable(gen):
        out.append(
            Choice(
                "web queries and follow-ups",
                f"written by {name}",
                ("the llm_endpoint server" if remote else "a model of 1B+ parameters")
                + "; checked, keyword rules if the check fails"
                + grammar,
            )
        )
    else:
        out.append(
            Choice(
                "web queries and follow-ups",
                f"written by {name}, checked",
                "the keyword rules replace any rewrite that fails the check" + grammar,
            )
        )
    if settings.evaluator.grader == "llm":
        judge = settings.models.grader_llm or (name if remote else settings.models.generator)
        out.append(Choice("grader", f"llm yes/no with {judge}", "grader = llm"))
    elif is_capable(gen):
        measure = (
            GRADER_MEASURE.split(" --generator")[0] + "` with llm_endpoint set"
            if remote
            else GRADER_MEASURE.format(name=name) + "`"
        )
        out.append(
            Choice(
                "grader",
                settings.evaluator.grader,
                f"the llm grader is not used until it scores better than {settings.evaluator.grader} "
                f"with this model: measure with `{measure}",
            )
        )
    else:
        out.append(Choice("grader", settings.evaluator.grader, MEASURED_AT_CHANCE))
    return out
