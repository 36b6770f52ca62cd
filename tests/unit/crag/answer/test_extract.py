"""Extractive answers: whole evidence sentences, cited, with the answering span in bold."""

from __future__ import annotations

from dataclasses import replace

import pytest

from localcrag.crag.answer.extract import MAX_WORDS, NOT_STATED, answer_shape, extractive_answer
from localcrag.types import Evidence


def ev(n: int, text: str, score: float = 0.9) -> Evidence:
    return Evidence(n=n, text=text, source=f"/docs/file{n}.pdf", page=n + 4, score=score)


HEADS = ev(
    1,
    "Multi-head attention allows the model to jointly attend to information from differ-\n"
    "ent representation subspaces. In this work we employ h = 8 parallel attention layers, "
    "or heads. For each of these we use dk = dv = dmodel/h = 64.",
)
CAKE = ev(
    1,
    "Lemon cake\n\nMix the butter and sugar until pale. Add the eggs one at a time. "
    "Bake the lemon cake at 175 degrees Celsius for 40 minutes. Let it cool.",
)
WIFI = ev(
    1,
    "Welcome to the office. The guest wifi password rotates weekly and is posted at "
    "reception. Printers are on the second floor.",
)


def test_attention_heads_quotes_the_sentence_with_the_number_in_bold() -> None:
    # the question names the Transformer: the passage's file does (its context), the
    # sentence need not
    heads = replace(HEADS, source="/docs/transformer.pdf")
    out = extractive_answer(
        "How many attention heads does the Transformer base model use?", [heads]
    )
    assert out.text == "In this work we employ **h = 8** parallel attention layers, or heads [1]."
    assert out.cited == (1,) and out.span == "h = 8"


def test_lemon_cake_quotes_time_and_temperature() -> None:
    out = extractive_answer(
        "How long and at what temperature should I bake the lemon cake?", [CAKE]
    )
    assert out.sentences == ("Bake the lemon cake at 175 degrees Celsius for 40 minutes.",)
    assert "**175 degrees Celsius**" in out.text and "**40 minutes**" in out.text


def test_wifi_password_is_never_invented() -> None:
    out = extractive_answer("What is the guest wifi password?", [WIFI])
    assert out.text == "The guest wifi password rotates weekly and is posted at reception [1]."
    assert "**" not in out.text


def test_nothing_relevant_is_said_plainly_with_what_is_missing_and_what_came_closest() -> None:
    out = extractive_answer("Who designed the lighthouse?", [CAKE])
    assert out.text.startswith(NOT_STATED) and not out.found
    assert "No passage gives lighthouse, a name; closest:" in out.text and out.cited == (1,)
    assert extractive_answer("Who designed the lighthouse?", []).text == NOT_STATED


def test_pdf_line_break_hyphens_are_joined_and_quotes_are_verbatim_otherwise() -> None:
    out = extractive_answer("What does multi-head attention allow the model to do?", [HEADS])
    assert "different representation subspaces" in out.text
    assert all(
        s in " ".join(HEADS.text.replace("differ-\nent", "different").split())
        for s in out.sentences
    )


def test_each_quoted_sentence_cites_its_own_evidence() -> None:
    a = ev(1, "Emma Raducanu won the 2021 U.S. Open women's singles title.")
    b = ev(2, "The 2021 U.S. Open women's singles final was played in New York.")
    out = extractive_answer("Who won the women's singles U.S. Open in 2021?", [b, a])
    assert out.text.startswith("**Emma Raducanu** won") and out.cited[0] == 1
    assert out.text.endswith("[2].") or out.cited == (1,)


def test_shapes_come_from_the_question_word() -> None:
    assert answer_shape("How much does it cost?") == "number"
    assert answer_shape("When was it built?") == "date"
    assert answer_shape("Whose idea was it?") == "name"
    assert answer_shape("Where is the office?") == "place"
    assert answer_shape("Why is the sky blue?") is None


def test_when_and_where_emphasise_a_date_and_a_place() -> None:
    final = ev(1, "The final was played at Arthur Ashe Stadium on September 11, 2021.")
    assert "**September 11, 2021**" in extractive_answer("When was the final played?", [final]).text
    assert (
        "**Arthur Ashe Stadium**" in extractive_answer("Where was the final played?", [final]).text
    )


def test_the_grader_score_picks_among_sentences_and_length_is_bounded() -> None:
    text = " ".join(
        f"Sentence {w} talks about robots in factories number {i}."
        for i, w in enumerate(["alpha", "beta", "gamma", "delta", "epsilon"])
    )
    favour = lambda q, texts: [1.0 if "gamma" in t else 0.1 for t in texts]  # noqa: E731
    out = extractive_answer("What about robots in factories?", [ev(1, text)], score_texts=favour)
    assert out.sentences[0].startswith("Sentence gamma")
    assert len(out.text.split()) <= MAX_WORDS + 10 and len(out.sentences) <= 3


def test_a_sentence_that_only_restates_the_question_loses() -> None:
    e = ev(1, "What is a cobot? A cobot is a robot designed to work safely beside people.")
    out = extractive_answer("What is a cobot?", [e])
    assert out.sentences == ("A cobot is a robot designed to work safely beside people.",)


def test_a_label_number_is_not_an_answer_and_the_distinguishing_term_counts() -> None:
    a = ev(1, "Table 2: The model gets better scores than earlier models on German and French.")
    b = ev(2, "On German the big model gets a score of 28.4 points.")
    c = ev(3, "On French the big model gets a score of 41.0 points.")
    out = extractive_answer("What score does the big model get on French?", [a, b, c])
    assert out.sentences[0] == "On French the big model gets a score of 41.0 points."
    assert out.span == "41.0 points"


def test_a_lower_case_cross_reference_is_not_an_answer_number() -> None:
    from localcrag.crag.answer.extract import answer_spans

    s = "We tuned the learning rate (see section 5.4 and table 3) and settled on 0.002."
    spans = [s[a:b] for a, b in answer_spans(s, "What learning rate was used?", "number")]
    assert spans == ["0.002"]


def test_the_same_sentence_is_not_quoted_twice() -> None:
    a = ev(1, "API DocsEverything you need to call the API is in the reference.")
    b = ev(2, "Everything you need to call the API is in the reference.")
    out = extractive_answer("Where is everything you need to call the API?", [a, b])
    assert len(out.sentences) == 1


def test_a_question_that_asks_for_several_things_gets_more_than_one_sentence() -> None:
    from localcrag.crag.answer.extract import asked_items

    assert [
        asked_items(q)
        for q in (
            "What are two ways to water a fern?",
            "List the steps.",
            "What are some risks of overwatering?",
            "How many ferns?",
            "What is the process?",
            "What is X and why does it matter?",
            "How long and at what temperature?",
        )
    ] == [2, 3, 3, 1, 1, 2, 1]
    ferns = ev(
        1,
        "Ferns like shade and damp soil. Water a fern from below by standing its pot in a tray "
        "of rain water. Misting the fronds also keeps the plant moist in dry rooms. Repot in spring.",
    )
    one = extractive_answer("How do you water a fern?", [ferns])
    two = extractive_answer("What are two ways to water a fern?", [ferns])
    assert len(one.sentences) == 1 and len(two.sentences) == 2
    assert (
        two.sentences[1] == "Misting the fronds also keeps the plant moist in dry rooms."
    )  # the list goes on


def test_a_heading_or_menu_is_not_quoted_as_an_answer_but_a_list_item_is() -> None:
    from localcrag.crag.answer.extract import is_heading

    assert is_heading("Chapter 18: The Role of Government and Policy in AI")
    assert is_heading(
        "Accessing the Evaluate Feature Creating Test Cases Tips for Effective Evaluation"
    )
    assert not is_heading("b. Potentially multiple content block delta events")
    assert not is_heading("AI Optimizes Energy Management In Smart Cities.")  # a statement ends
    grid = ev(
        1,
        "Chapter 14: The Role of AI in Smart Grids\n\nAI-powered systems enhance grid "
        "stability and reduce energy waste.",
    )
    out = extractive_answer("What is the role of AI in smart grids?", [grid])
    assert out.sentences == ("AI-powered systems enhance grid stability and reduce energy waste.",)


def test_a_long_menu_of_section_titles_is_a_heading_even_with_lower_case_words() -> None:
    from localcrag.crag.answer.extract import is_heading

    menu = (
        "Introduction Benefits of Automated Routing Defining the Task Defining intent categories "
        "Example Data Scaling to large number of classes Evaluating the Performance of your Classifier"
    )
    assert is_heading(menu)
    assert not is_heading("Choose a deployment method such as the Claude API")  # a short list item


def test_a_space_before_a_comma_does_not_make_a_second_sentence() -> None:
    a = ev(1, "The API response has a stop_reason of tool_use , signaling Claude's intent.")
    b = ev(2, "The API response has a stop_reason of tool_use, signaling Claude's intent.")
    out = extractive_answer(
        "What does a stop_reason of tool_use signal?", [a, b], lambda q, ts: [0.9] * len(ts)
    )
    assert len(out.sentences) == 1


def test_spaces_around_any_punctuation_do_not_make_a_second_sentence() -> None:
    a = ev(1, "Power user tip : wrap each document in tags ( <examples> ) before asking.")
    b = ev(2, "Power user tip: wrap each document in tags (<examples>) before asking.")
    out = extractive_answer(
        "How should documents be wrapped?", [a, b], lambda q, ts: [0.9] * len(ts)
    )
    assert len(out.sentences) == 1


def test_with_grades_the_chunk_grade_weighs_in_without_them_only_the_words_do() -> None:
    # Two sentences the sentence scorer cannot tell apart: the one in the better graded
    # chunk is quoted. Standard RAG (no scorer) ranks by the question's words alone.
    poor = ev(1, "Ferns grow well in shade on damp ground.", score=0.2)
    good = ev(2, "Ferns grow best in shade with damp soil.", score=0.9)
    flat = lambda q, ts: [0.5] * len(ts)  # noqa: E731
    assert extractive_answer("Where do ferns grow?", [poor, good], flat).cited[0] == 2
    assert extractive_answer("Where do ferns grow?", [poor, good]).cited[0] == 1  # a tie: the first


def test_a_sentence_whose_passage_names_what_it_is_about_beats_one_about_something_else() -> None:
    # Made up: the answer sentence says "they", its predecessor names the tomato pumps. On its
    # own words it ties with a sentence about other sprinklers; but the question's nouns
    # ("tomato", "pumps") are bound only by the tomato passage, so the herb sprinklers'
    # flow is never the answer (crag/binding).
    tomato = ev(
        2,
        "Pump care\n\nThe tomato pumps are flushed every month. "
        "At night, they run at a flow of 4 litres per minute.",
    )
    herbs = ev(1, "At night, the herb sprinklers run at a flow of 2 litres per minute.")
    q = "What flow do the tomato pumps run at during the night?"
    out = extractive_answer(q, [herbs, tomato])
    assert out.sentences[0].startswith("At night, they run") and out.cited[0] == 2


def test_how_long_emphasises_a_duration_over_another_number() -> None:
    e = ev(
        1, "The large kilns were fired for 1,200 cycles (9 days). The small kilns fire in 2 hours."
    )
    out = extractive_answer("How long did firing the large kilns take?", [e])
    assert out.span == "9 days" and out.sentences[0].startswith("The large kilns")
    road = ev(1, "The new bridge is 450 metres long and opened in 2019.")
    assert extractive_answer("How long is the new bridge?", [road]).span == "450 metres"


def test_how_much_emphasises_a_quantity_over_a_year_and_who_a_person_over_a_weekday() -> None:
    budget = ev(1, "The travel budget for 2026 is 48,000 euros, approved by Marta Lindqvist.")
    assert extractive_answer("How much is the travel budget?", [budget]).span == "48,000 euros"
    assert (
        extractive_answer("When was the budget set?", [budget]).span == "2026"
    )  # a year is a date
    coffee = ev(1, "Descaling is done every second Friday by Priya.")
    assert extractive_answer("Who does the descaling?", [coffee]).span == "Priya"
    # alone, the year and the weekday are still emphasised: the order changes, not the spans
    assert (
        extractive_answer("How many were sold in the peak?", [ev(1, "Sales peaked in 1998.")]).span
        == "1998"
    )
    assert extractive_answer("Who comes?", [ev(1, "The cleaners come on Friday.")]).span == "Friday"


TOMATOES = "They need watering every second day and a stake once they reach 40 cm."
MILESTONE = "Milestone: Certification; Date: February 2026; Owner: Maria Okafor."


@pytest.mark.parametrize(
    "question, sentence, span",
    [
        # a date written day-month-year or month-year, whole (was the year alone)
        (
            "When was the travel budget approved?",
            "It was approved by Maria Okafor on 12 March 2025.",
            "12 March 2025",
        ),
        (
            "When is the field trial?",
            "Milestone: Field trial; Date: October 2025; Owner: Samuel Otieno.",
            "October 2025",
        ),
        # how often: a frequency (no digit of its own) before a measurement
        ("How often do the tomatoes need watering?", TOMATOES, "every second day"),
        (
            "How often should I take the tablets?",
            "Take 2 tablets three times a day with water.",
            "three times a day",
        ),
        ("How tall do the tomatoes get before staking?", TOMATOES, "40 cm"),
        # when: a time of day, or else a frequency, after any date
        (
            "When does the canteen serve lunch?",
            "The canteen serves lunch from 11:30 until 2 pm on weekdays.",
            "11:30",
        ),
        (
            "When must lockers be emptied?",
            "Lockers must be emptied every evening before closing time.",
            "every evening",
        ),
        (
            "When are the bins emptied next?",
            "The bins are emptied every week, next on 4 May 2026.",
            "4 May 2026",
        ),
        # who in a table row: the person, not a column header before its colon ("Date")
        ("Who owns the certification milestone?", MILESTONE, "Maria Okafor"),
    ],
)
def test_the_emphasised_span_is_the_whole_answer_of_the_asked_kind(
    question: str, sentence: str, span: str
) -> None:
    # the sentence as its passage gives it: what "it" and "they" are is said before it
    said = " ".join(w for w in question.rstrip("?").split()[1:] if w[:1].islower())
    assert extractive_answer(question, [ev(1, f"About {said}. {sentence}")]).span == span


def test_the_citation_marker_goes_before_a_closing_colon() -> None:
    e = ev(1, "Glazes are fired in the kiln. The studio kiln can be used in two modes:")
    assert extractive_answer("How can the studio kiln be used?", [e]).text.endswith(
        "two modes [1]:"
    )


def test_a_reference_marker_is_not_an_answer_number() -> None:
    from localcrag.crag.answer.extract import answer_spans

    s = "We used the Adam optimizer [20] with a learning rate of 0.002 as in [3, 18]."
    spans = [s[a:b] for a, b in answer_spans(s, "What learning rate was used?", "number")]
    assert spans == ["0.002"]
    out = extractive_answer("What learning rate was used?", [ev(1, s)])
    assert "[**" not in out.text and "**0.002**" in out.text


def test_a_column_header_or_a_word_of_a_file_name_is_never_the_emphasised_answer() -> None:
    """A question "who wrote the guide" bolded **Data** (from the file's own name), "who
    approved it" a header; with nothing else of the asked shape, nothing is bold."""
    from localcrag.types import Evidence

    guide = Evidence(1, "This Data Handbook was written for new analysts.", "/d/Data Handbook.docx")
    found = extractive_answer("Who wrote the guide?", [guide])
    assert found.span is None and "**" not in found.text
    row = extractive_answer(
        "Who approved it?", [ev(1, "Owner: approved at the meeting by the board.")]
    )
    assert row.span is None and "**" not in row.text
    named = Evidence(
        1, "The handbook was written by Ana Souza for new analysts.", "/d/Data Handbook.docx"
    )
    assert extractive_answer("Who wrote the handbook?", [named]).span == "Ana Souza"


def test_a_sentence_case_title_is_never_the_whole_answer() -> None:
    """A question "who chaired the meeting" was answered by the note's title line."""
    note = ev(
        1,
        "Stats team meeting notes (2024-03-12)\n\nAttendees were from three teams. "
        "The meeting was chaired by Priya Nair, who opened with the budget.",
    )
    found = extractive_answer("Who chaired the stats team meeting?", [note])
    assert "Stats team meeting notes" not in found.text and "Priya Nair" in found.text


@pytest.mark.parametrize(
    "sentence, bold",
    [
        # a flattened ANOVA summary row: the nearest number (529, a sum) is not a count
        ("Groups Count Sum Average Variance Diet A 20 529 26.45 12.3", None),
        ("There were 529 participants in total, split into groups.", None),
        ("SS between groups was 529 and each group had 20 observations.", "20 observations"),
        ("The number of observations was 20 and the sum 529.", "20"),
    ],
)
def test_a_how_many_question_emphasises_only_a_number_of_what_it_counts(
    sentence: str, bold: str | None
) -> None:
    # the passage's heading names the groups; the sentences differ in what they count
    found = replace(ev(1, sentence), heading="Observations per group")
    out = extractive_answer("How many observations per group?", [found])
    assert out.span == bold, out.text
    assert ("**" in out.text) == (bold is not None)
