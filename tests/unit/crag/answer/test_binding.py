"""Every part of the question bound to one evidence unit, or an honest "not found".

One test per way answers went wrong on a library nobody tuned for: each builds its own
documents, asks as a user would and checks both the decision (the badge) and the answer.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from localcrag import events as ev
from localcrag.crag.answer.binding import bindings, raise_bound
from localcrag.crag.answer.constraints import read
from localcrag.crag.answer.extract import extractive_answer
from localcrag.crag.decide import decide
from localcrag.textutil import NOT_STATED, states_nothing
from localcrag.types import Action, Chunk, Evidence, Grade, WebResult
from tests.support.answers import LOWER, UPPER, ask
from tests.support.fakes import FakeGenerator, FakeGrader, FakeWeb, asked, quoting_pipeline

REPORT_2019 = """Statement of Functional Expenses
Year ended June 30
2019 2018
Salaries and wages 310,200 295,000
Insurance 12,345 11,200
Occupancy 40,100 39,800
Total expenses 1,234,567 1,100,000
Total expenses for the year were $1,234,567, up 12% on the year before."""

SURVEY_CSV = """survey.csv, row 2: respondent: 17; year: 2020; rate: 0.4.
survey.csv, row 3: respondent: 18; year: 2021; rate: 0.6."""

BIOS = """Emily Brontë wrote Wuthering Heights, published in December 1847.
Charlotte Brontë's Jane Eyre appeared two months earlier, in October 1847."""

SLIDES = """Quarterly review
Presented by Dana Whitfield, Head of Operations
Results improved in every region."""

DATASHEET = """Electrical characteristics
Supply voltage VDD 1.71 to 3.6 V
Supply current in normal mode 3.6 µA
Supply current in sleep mode 0.1 µA"""


def chunk(text: str, source: str, cid: str = "c1", heading: str | None = None) -> Chunk:
    return Chunk(cid, source, text, 11, 11, 0, len(text), heading, 60)


def test_a_number_in_the_question_is_a_constraint_never_the_answer() -> None:
    # "2020" is a value of the survey's year column, in a file about something else
    action, said = ask(
        "What were total expenses in FY 2020?",
        chunk(SURVEY_CSV, "/d/survey.csv"),
        chunk(REPORT_2019, "/d/2019 Annual Report.pdf", "c2"),
    )
    assert action is Action.INCORRECT  # no passage holds total expenses for 2020
    assert read("What were total expenses in FY 2020?").numbers == ()  # a period, no number


def test_one_line_item_is_answered_by_its_row_not_by_the_total() -> None:
    action, said = ask(
        "How much was spent on insurance in FY 2019?",
        chunk(REPORT_2019, "/d/2019 Annual Report.pdf"),
    )
    assert action is Action.CORRECT
    assert "**12,345**" in said and "1,234,567" not in said  # the 2019 column of the row


def test_the_period_is_checked_and_a_missing_one_is_said() -> None:
    action, said = ask(
        "How much was spent on insurance in fiscal 2016?",
        chunk(REPORT_2019, "/d/2019 Annual Report.pdf"),
    )
    assert action is Action.INCORRECT and said == "fiscal 2016"  # the row holds all but that
    # the year is the column's: 2018's figure for a 2018 question
    _, said = ask("What were the insurance costs in 2018?", chunk(REPORT_2019, "/d/r.pdf"))
    assert "**11,200**" in said


def test_the_person_asked_about_must_be_the_one_the_passage_is_about() -> None:
    action, said = ask("When was Jane Eyre published?", chunk(BIOS, "/d/brontes.txt"))
    assert action is Action.CORRECT and "**October 1847**" in said
    action, said = ask("When was Agnes Grey published?", chunk(BIOS, "/d/brontes.txt"))
    assert action is Action.INCORRECT and "Agnes Grey" in said


def test_a_column_meaning_comes_from_the_codebook_not_the_data() -> None:
    data = chunk("survey.csv, row 2: RESP: 17; RATE: 0.4.", "/d/survey.csv")
    book = chunk("Codebook\nRATE: share of answers returned within a week", "/d/codebook.md", "c2")
    action, said = ask("What does RATE mean?", data, book, score=0.6)
    assert action in (Action.CORRECT, Action.AMBIGUOUS)
    assert said.startswith("RATE: share of answers returned within a week")


def test_a_title_or_author_line_without_closing_punctuation_is_quotable() -> None:
    action, said = ask("Who presented the quarterly review?", chunk(SLIDES, "/d/review.pptx"))
    assert action is Action.CORRECT and "**Dana Whitfield**" in said
    assert not states_nothing(said)


def test_the_right_row_among_similar_ones() -> None:
    _, said = ask("What is the supply current in sleep mode?", chunk(DATASHEET, "/d/sensor.pdf"))
    assert said.startswith("Supply current in sleep mode") and "0.1 µA" in said
    assert "1.71" not in said and "3.6" not in said


@pytest.mark.parametrize(
    "question",
    [
        "How much was spent on rent in FY 2019?",  # another line item
        "How much was spent on insurance in FY 2017?",  # another year
        "Who presented the annual budget?",  # another thing presented
    ],
)
def test_answer_free_questions_are_refused_not_answered_with_the_nearest_figure(
    question: str,
) -> None:
    action, _ = ask(
        question, chunk(REPORT_2019, "/d/2019 Annual Report.pdf"), chunk(SLIDES, "/d/s.pptx", "c2")
    )
    assert action is Action.INCORRECT


ART = """By far the most famous work of Norman art is the Bayeux Tapestry, which is not a
tapestry but a work of embroidery.
HackRF One operating frequency: 1 MHz to 6 GHz."""


def test_an_asked_extreme_is_a_constraint_the_unit_must_state() -> None:
    # the most famous work is not the oldest one: a superlative picks one thing of a kind
    action, said = ask("What is the oldest work of Norman art?", chunk(ART, "/d/normans.txt"))
    assert action is Action.INCORRECT and said == "oldest"
    action, said = ask("What is the most famous work of Norman art?", chunk(ART, "/d/n.txt"))
    assert action is Action.CORRECT and "Bayeux Tapestry" in said
    # a range states its ends: the lowest frequency is its first figure
    action, said = ask("What is the lowest frequency HackRF One operates at?", chunk(ART, "/d/h"))
    assert action is Action.CORRECT and "1 MHz to 6 GHz" in said
    assert read("How many at least, and what is the most used?").extremes == ()


def test_a_quote_that_finds_nothing_says_what_is_missing_and_what_came_closest() -> None:
    evidence = [Evidence(1, REPORT_2019, "/d/2019 Annual Report.pdf", 11, score=0.8)]
    out = extractive_answer("How much was spent on insurance in FY 2016?", evidence)
    assert not out.found and out.text.startswith(NOT_STATED)
    assert "No passage gives FY 2016; closest: \u201cInsurance 12,345 11,200\u201d [1]." in out.text


def test_periods_are_read_in_the_forms_documents_write_them() -> None:
    def holds(question: str, text: str) -> bool:
        return all(p.found_in(text) for p in read(question).periods)

    assert holds("in FY 2019?", "Expenses 2019 2018")
    assert holds("in fiscal 2019?", "FY19 results")
    assert holds("in 2018-19?", "the 2018–2019 academic year")
    assert holds("in 2018–2019?", "FY 2019")
    assert holds("in Q2 2020?", "second quarter of 2020")
    assert holds("in the second quarter of 2020?", "Q2 2020 revenue")
    assert holds("on 2012/01/04?", "2012-01-04")
    assert holds("on 4 January 2012?", "Jan 4, 2012")
    assert not holds("in FY 2019?", "Expenses 2018 2017")
    assert not holds("in Q2 2020?", "Q3 2020 revenue")
    assert not holds("in 2019?", "20190 units")
    # a day of a month without its year, as a diary dates its entries
    assert holds("on June 20th?", "JUNE 20. We moved up")
    assert holds("on the 4th of July?", "4 July 1863")
    assert not holds("on June 20th?", "the 20th Ohio")
    assert not holds("on June 20th?", "June 2024")
    assert read("on June 20th?").entities == ()  # "20th" is the day, no name


def test_bindings_rank_complete_units_first_and_name_what_the_rest_lack() -> None:
    found = bindings("How much was spent on insurance in FY 2016?", [chunk(REPORT_2019, "/r.pdf")])
    assert not found[0].complete and found[0].missing == ("FY 2016",)


def test_a_table_without_a_value_there_answers_nothing() -> None:
    """R and pandas write a missing cell as NA: the row exists, the value does not."""
    rows = "profits.csv, row 85: year: 2012; Financial: NA; Domestic: NA."
    evidence = [Evidence(1, rows, "/d/profits.csv", 85, score=0.9)]
    out = extractive_answer("What were the Financial profits in 2012?", evidence)
    assert not out.found and out.text.startswith(NOT_STATED) and "**" not in out.text


def test_a_which_question_takes_the_thing_its_heading_names() -> None:
    """ "Which release ...": the changelog line holds the change, its heading the release."""
    log = "- Upgrade `pdfminer.six` to `20231228`.\n- Fix a crash."
    evidence = [Evidence(1, log, "/d/CHANGELOG.md", 1, score=0.9, heading="[0.11.0] - 2024-03-07")]
    out = extractive_answer("Which release upgraded pdfminer.six to 20231228?", evidence)
    assert out.text.startswith("Under \u201c**0.11.0**\u201d") or "**0.11.0**" in out.text


def test_a_heading_s_bare_number_names_no_thing() -> None:
    """A form's instructions under a page or section numbered "26": "which filing status"
    is not "26" (it had been answered so under CORRECT)."""
    line = "Is Form 1040NR, line 36, over $156,400 (box 3, 4, or 5 on page 1 of Form 1040NR)?"
    evidence = [Evidence(1, line, "/d/i1040nr.pdf", 3, score=0.9, heading="Instructions › 26")]
    out = extractive_answer("Which filing status corresponds to box 4 on Form 1040NR?", evidence)
    assert "**26**" not in out.text
    # nor is a row's place a thing: the file it names is where the row is, not what it says
    row = "f1040nr_2007.pdf, p. 3, row 74: box 3, 4, or 5 on page 1 of Form 1040NR)?."
    evidence = [Evidence(1, row, "/d/f1040nr_2007.pdf", 3, score=0.9, heading="Form › 26")]
    out = extractive_answer("Which filing status corresponds to box 4 on Form 1040NR?", evidence)
    assert "**f1040nr_2007.pdf**" not in out.text and "**26**" not in out.text
    assert "**3**" not in out.text  # "box 3" numbers a box, no filing status
    said = "The radio uses channel 11 by default."
    out = extractive_answer(
        "Which channel does the radio use by default?", [Evidence(1, said, "/d/r.md", 1, score=0.9)]
    )
    assert "**11**" in out.text  # after its kind's noun, a number is the thing asked


def test_a_row_is_not_named_by_a_figure_inside_the_question_s_date() -> None:
    """A county's row whose "Other Inactive" is 7 is not the row "as of 7/5/2022" names: the
    district's total asked is no county's (Greene's row had answered it under CORRECT)."""
    row = (
        "CongJul22.pdf, p. 3, row 9: District 3 County: Greene; District 3 Other Inactive: 7; "
        "District 3 Total Inactive: 907; District 3 Grand Total: 6505."
    )
    q = "What was the grand total of registered voters in District 3 as of 7/5/2022?"
    found = bindings(q, [chunk(row, "/d/CongJul22.pdf")])
    assert not found[0].complete and "the row asked for" in found[0].missing
    named = bindings(q.replace("District 3", "Greene County"), [chunk(row, "/d/CongJul22.pdf")])
    assert "the row asked for" not in named[0].missing
    # nor by a count that equals the question's year: Wright's 2020 No Party voters are no
    # row of "July 2020"; a row labelled by its year is named by it
    wright = (
        "CoJul22.pdf, p. 3, row 9: County: Wright; Republican Active: 3312; No Party Active: 2020."
    )
    q = "How many active Republicans were registered in Linn County in July 2020?"
    assert "the row asked for" in bindings(q, [chunk(wright, "/d/CoJul22.pdf")])[0].missing
    # nor by the owner of the name asked: "Iowa's District 1" is no row of Iowa County
    iowa = "CongJul22.pdf, p. 1, row 5: District 1 County: Iowa; District 1 Total Active: 10808."
    q = "What was the total number of active voters in Iowa's District 1 in July 2022?"
    assert "the row asked for" in bindings(q, [chunk(iowa, "/d/CongJul22.pdf")])[0].missing
    q = "How many active voters did Iowa County have in District 1 in July 2022?"
    assert "the row asked for" not in bindings(q, [chunk(iowa, "/d/CongJul22.pdf")])[0].missing
    year = "profits.csv, row 81: year: 2008; Financial: 86.8; Domestic: 1300.9."
    q = "What were Financial profits in 2008?"
    assert "the row asked for" not in bindings(q, [chunk(year, "/d/profits.csv")])[0].missing
    longley = "longley.csv, row 5: Obs: 4; TOTEMP: 61187; GNP: 284599; YEAR: 1950."
    q = "What was TOTEMP in 1950 in the Longley data?"
    assert "the row asked for" not in bindings(q, [chunk(longley, "/d/longley.csv")])[0].missing


def test_question_words_are_read_as_nouns_or_verbs_by_their_place() -> None:
    from localcrag.textutil.pos import is_noun

    def nouns(question: str) -> list[str]:
        words = question.rstrip("?").split()
        return [w for i, w in enumerate(words) if is_noun(words, i)]

    assert "bars" in nouns("Up to how many bars can a track be recorded")
    assert "rent" in nouns("How much was spent on rent")
    assert "take" not in nouns("How long did the firing take")
    assert "set" not in nouns("When was the budget set")
    assert "holds" not in nouns("Who holds the copyright")
    assert "hold" not in nouns("What does the column hold in the data")
    assert "rests" not in nouns("What is a problem that rests within NP")
    assert "cake" in nouns("How long should I bake the lemon cake")
    # after an inverted modal, the word after the subject that takes an object is its verb
    assert "claim" not in nouns("Can a taxpayer claim the standard deduction")
    assert "deduction" in nouns("Can a taxpayer claim the standard deduction")
    assert "limit" in nouns("What can the rate limit be raised to")
    # after do-support, a word after a subject the lexicon lacks (a name) is its verb
    assert "stop" not in nouns("Which Python version did pypdf 5.0.0 stop supporting")


def test_the_library_s_own_name_and_paraphrased_nouns_are_not_required() -> None:
    """A one-word name most passages hold is what the library is about; a noun no passage
    holds weighs nothing unless every noun is such (then nothing is about the question) or
    it narrows a noun the library holds ("identity theft")."""
    from localcrag.crag.answer.binding import key_terms

    df = {"anthropic": 200, "insurance": 3, "expense": 40, "rent": 0, "deficit": 0, "work": 5}
    df |= {"theft": 4, "identity": 0, "arrest": 30}

    def idf(term: str) -> tuple[int, int]:
        return df.get(term, 1), 1000

    keys = key_terms(read("How much did Anthropic pay for insurance and the deficit in 2019?"), idf)
    assert keys.names == () and [w for _, w in keys.required] == ["insurance"]
    assert "deficit" not in keys.weights
    keys = key_terms(read("How much was spent on rent in FY 2019?"), idf)
    assert [w for _, w in keys.required] == ["rent"]
    df["dyrrachium"] = 60  # in 6% of the passages: a topic of some, not the library's own name
    assert key_terms(read("Who attacked Dyrrachium in 1081?"), idf).names == ("Dyrrachium",)
    keys = key_terms(read("How many arrests for identity theft were made in 2009?"), idf)
    assert "identity" in [w for _, w in keys.required]  # unknown, though it modifies "theft"
    keys = key_terms(read("What resources are used to guage complexity?"), idf)
    assert "guage" not in keys.weights  # a word no lexicon knows: no kind of "complexity"
    df["crime"] = 7
    keys = key_terms(read("How many arrests for cybercrime were made in 2009?"), idf)
    assert "cybercrime" in [w for _, w in keys.required]  # a kind of crime, unknown
    keys = key_terms(read("How many arrests for motor theft were made in 2009?"), idf)
    assert "motor" not in [w for _, w in keys.required]  # a known modifier: only its head


def test_a_sentence_that_names_others_is_not_about_the_name_its_paragraph_holds() -> None:
    """A sentence speaks of a name its paragraph holds when it points back ("He") or names
    nobody; one that names others ("Viking settlers") speaks of them."""
    rollo = "Rollo was a Viking leader of great renown.\nEarlier Viking settlers had begun arriving in the 880s."
    action, said = ask("When did Rollo begin to arrive?", chunk(rollo, "/d/normans.txt"))
    assert action is Action.INCORRECT and said == "a date"
    rollo = "Rollo was a Viking leader of great renown.\nHe arrived with his men in 1066."
    action, said = ask("When did Rollo arrive?", chunk(rollo, "/d/normans.txt"))
    assert action is Action.CORRECT and "**1066**" in said
    # a unit after a figure names nobody: the board's sentence speaks of the paragraph's board
    board = "The HackRF One is a radio board.\nThe clock output gives 3.3 V square waves."
    action, said = ask(
        "What voltage does the clock output of the HackRF One give?", chunk(board, "/d/h")
    )
    assert action is Action.CORRECT and "3.3" in said


def test_particles_and_reflexive_pronouns_are_grammar_no_passage_must_hold() -> None:
    """ "kicked Ethelred out", "unify themselves": function words, not things an answer
    names, even where the library writes them rarely."""
    from localcrag.crag.answer.binding import key_terms

    def idf(term: str) -> tuple[int, int]:
        return 2, 1000  # every word rare: each noun the question holds is required

    for q, required in [
        ("Who kicked Ethelred out?", []),
        ("Who used the church to unify themselves?", ["church"]),
        ("Who held the castle against the king once again?", ["castle", "king"]),
    ]:
        assert [w for _, w in key_terms(read(q), idf).required] == required


def test_what_was_the_name_of_asks_a_name_whatever_it_names() -> None:
    # "count" names a title here, not a number asked for
    assert read("What was the name of the count of Apulia?").slot == "which"
    assert read("What was the name of the diarist's sister?").slot == "which"
    assert read("What was the count of votes in Apulia?").slot == "number"


def test_the_pipeline_refuses_what_no_passage_binds_and_says_what_it_found(tmp_path) -> None:
    """The real pipeline and index over a built annual report (fake embedder, grader and
    model): a line item of another year is refused, naming the year and the row that came
    closest, and `ask --json` says what was missing; the year the page holds is answered."""
    from localcrag.cli.ask import to_json
    from tests.support.fakes import FakeGenerator, asked, quoting_pipeline

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "2019 Annual Report.md").write_text(
        "# Statement of Functional Expenses\n\n" + REPORT_2019.replace("\n", "\n\n") + "\n",
        encoding="utf-8",
    )
    pipe = quoting_pipeline(
        docs, FakeGenerator(), upper_threshold=0.3, lower_threshold=0.1, strip_threshold=0.1
    )

    refused = asked(pipe, "How much was spent on insurance in FY 2016?")
    assert refused.action is Action.INCORRECT and refused.claims_nothing
    assert "No passage gives FY 2016" in refused.answer.text
    data = to_json(refused)
    assert data["refused"] and data["binding"]["missing"] == ["FY 2016"]
    assert data["binding"]["periods"] == ["FY 2016"]
    answered = asked(pipe, "How much was spent on insurance in FY 2019?")
    assert not answered.claims_nothing and "12,345" in answered.answer.text


def _sequencer_docs(tmp_path) -> Path:
    """A product note that says what the LinnSequencer is, never when it was released, and
    a note on something else."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "seq.txt").write_text(
        "The LinnSequencer\n\nThe LinnSequencer is a 32-track MIDI sequencer with a fast disk "
        "drive. One way to create a song is to record each track all the way through, up to "
        "999 bars.\n",
        encoding="utf-8",
    )
    (docs / "garden.txt").write_text(
        "Gardening notes. Tomatoes need sun and water every day in summer.\n", encoding="utf-8"
    )
    return docs


class _Declining(FakeGenerator):
    """A model that says it cannot answer unless a web result is among its evidence."""

    def stream(self, prompt: str, *args: object, **kw: object) -> Iterator[str]:
        self.answer = (
            "It was released in 1985 [1]."
            if "example.org" in prompt
            else "I don't have enough information to answer that."
        )
        return super().stream(prompt, *args, **kw)


def test_relevant_passages_that_do_not_state_the_answer_are_never_correct(tmp_path) -> None:
    """The passages are about the thing asked (graded relevant) but the answer states
    nothing: the decision the run reports, the answer's badge and `--json` say Incorrect
    with why, never Correct beside a refusal; offline, the answer says the web was not
    searched. A question whose slot no passage fills is refused at the decision already."""
    from localcrag.cli.ask import to_json

    docs = _sequencer_docs(tmp_path)
    pipe = quoting_pipeline(docs, _Declining())
    run = asked(pipe, "How many tracks does the LinnSequencer have?", style="generative")
    assert max(g.score for g in run.grades.values()) >= pipe.settings.evaluator.upper_threshold
    assert run.answer is not None and states_nothing(run.answer.text)
    assert run.action is Action.INCORRECT and run.answer.action is Action.INCORRECT
    assert run.decision is not None and run.decision.reason.endswith("no passage states the answer")
    data = to_json(run)
    assert data["action"] == "incorrect" and data["refused"] and not data["citations"]
    assert data["reason"].endswith("no passage states the answer") and data["searched"]
    assert "web search was skipped" in run.answer.text.lower()  # why the web did not answer
    answered = asked(pipe, "How many tracks does the LinnSequencer have?")  # quoted
    assert answered.action is Action.CORRECT and "32" in answered.answer.text
    undated = asked(pipe, "When was the LinnSequencer released?")  # "999 bars" is no year
    assert undated.action is Action.INCORRECT and "999" not in undated.answer.text


def test_once_no_passage_states_the_answer_the_web_is_searched_when_allowed(tmp_path) -> None:
    """Correct revised to Incorrect is CRAG's Incorrect: online and allowed, the web is
    searched and its results answer, citing the URL; the refusal already streamed is
    withdrawn (the record keeps only the web's answer) and no server failure is reported."""
    from localcrag.crag.pipeline import NOT_STATED_WEB, Pipeline
    from localcrag.record import RunRecord
    from localcrag.settings import Settings

    library = quoting_pipeline(_sequencer_docs(tmp_path), FakeGenerator()).library
    web = FakeWeb(
        WebResult(
            "LinnSequencer",
            "https://example.org/linn",
            "The LinnSequencer has 32 tracks and was released in 1985 by Linn Electronics.",
        )
    )
    options = Settings(offline=False, web_search="always", answer_style="generative")
    pipe = Pipeline(options, library=library, grader=FakeGrader(), generator=_Declining(), web=web)
    run = RunRecord("How many tracks does the LinnSequencer have?", "crag")
    events = list(pipe.run(run.question))
    for event in events:
        run.add(event)
    assert web.queries, "the web was not searched after the revision"
    assert run.action is Action.INCORRECT and run.answer is not None
    assert "1985" in run.answer.text and not states_nothing(run.answer.text)
    assert [c.url for c in run.answer.citations] == ["https://example.org/linn"]
    assert run.streamed == run.answer.text and run.restarted is None
    restarts = [e for e in events if isinstance(e, ev.AnswerRestarted)]
    assert [(e.reason, e.server_failed) for e in restarts] == [(NOT_STATED_WEB, False)]


def test_a_number_that_counts_something_else_is_not_the_quantity_asked() -> None:
    """A count binds the question only when it counts what is asked: "32-track" is no price
    and no number of bars; a number with no noun of its own (a table cell), a scale word
    ("5 million people") or a currency is still a filler."""
    from localcrag.crag.answer.shapes import answer_spans

    def spans(sentence: str, question: str) -> list[str]:
        return [sentence[a:b] for a, b in answer_spans(sentence, question, "number")]

    seq = "The LinnSequencer is a 32-track sequencer that records up to 999 bars."
    assert spans(seq, "How much did the LinnSequencer cost?") == []
    assert spans(seq, "How many bars can it record?") == ["999 bars"]
    assert spans("It costs $1,299 for 32 tracks.", "How much did it cost?") == ["$1,299"]
    assert spans("Town: Ely; Residents: 20,256", "How many residents did Ely have?") == ["20,256"]
    assert spans("The city had 5 million people.", "How many people lived there?") == ["5 million"]
    assert spans("41,000 visitors saw 30 galleries.", "How many were there?") == [
        "41,000 visitors",
        "30 galleries",
    ]
    refused = extractive_answer(
        "How much did the LinnSequencer cost?", [Evidence(1, seq, "/d/seq.txt", 1, score=0.9)]
    )
    assert not refused.found and refused.text.startswith(NOT_STATED)


RESULTS_CSV = """STATE,ELECTORAL VOTES,TOTAL VOTES
TX,40,11388674
CA,54,15865475
OR,8,2244493
"""


def test_a_region_named_in_words_is_found_as_its_code_in_a_table(tmp_path) -> None:
    """A results table writes states as codes ("TX"); a question names "Texas". The real
    index and pipeline find the row and answer its cell; the code counts only as a cell's
    whole value, never as a word of prose ("OR" is no Oregon in "or")."""
    from localcrag.crag.answer.binding import Unit, bind, key_terms
    from localcrag.textutil.places import code_as_cell, regions_named
    from tests.support.fakes import FakeGenerator, asked, quoting_pipeline

    assert regions_named("votes in New York and Texas") == [
        ("New York", frozenset({"NY"})),
        ("Texas", frozenset({"TX"})),
    ]
    assert code_as_cell("OR", "results.csv, row 4: STATE: OR; TOTAL VOTES: 2244493.")
    assert not code_as_cell("OR", "Vote by mail OR in person.")
    cons = read("How many votes were cast in Oregon?")
    prose = Unit(1, "Vote by mail OR in person: 2244493 votes.", "guide", 0)
    assert "Oregon" in bind(cons, prose, key_terms(cons)).missing

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "results.csv").write_text(RESULTS_CSV, encoding="utf-8")
    pipe = quoting_pipeline(
        docs, FakeGenerator(), upper_threshold=0.3, lower_threshold=0.1, strip_threshold=0.1
    )
    answered = asked(pipe, "How many total votes were cast in Texas?")
    assert "**11388674**" in answered.answer.text, answered.answer.text
    refused = asked(pipe, "How many total votes were cast in Ohio?")
    assert refused.action is Action.INCORRECT and "Ohio" in refused.answer.text


def test_a_results_table_naming_candidates_by_surname_answers_for_a_state_named_in_words(
    tmp_path,
) -> None:
    """A results table heads each candidate's column by surname ("HARRIS") and writes states
    as codes ("IA"); the library also says "Iowa" in prose and has a table of electoral
    votes "CAST FOR KAMALA D. HARRIS" in every row. The row of Iowa in the candidates'
    table is searched by the code it writes (the prose's "Iowa" had kept it out of the
    evidence) and binds "Kamala Harris" by the column of her surname; prose that says
    "Harris" alone binds no one."""
    from localcrag.textutil.places import region_codes
    from tests.support.documents import make_results_csv
    from tests.support.fakes import FakeGenerator, asked, quoting_pipeline

    states = sorted(
        c
        for name in (
            "Iowa",
            "Ohio",
            "Texas",
            "Utah",
            "Idaho",
            "Maine",
            "Kansas",
            "Oregon",
            "Nevada",
            "Alabama",
            "Alaska",
            "Arizona",
            "Georgia",
            "Indiana",
            "Vermont",
            "Montana",
            "Wyoming",
        )
        for c in region_codes(name)
    )
    docs = tmp_path / "docs"
    docs.mkdir()
    make_results_csv(docs / "popular-votes.csv", states)
    (docs / "electoral.csv").write_text(
        "STATE,ELECTORAL VOTES,ELECTORAL VOTES CAST FOR KAMALA D. HARRIS (D)\n"
        + "".join(f"{st},{3 + i},{i % 2 * (3 + i)}\n" for i, st in enumerate(states)),
        encoding="utf-8",
    )
    (docs / "iowa.txt").write_text(
        "Iowa counts its votes by county. In Iowa, Harris campaigned in Des Moines.\n",
        encoding="utf-8",
    )
    pipe = quoting_pipeline(
        docs, FakeGenerator(), upper_threshold=0.3, lower_threshold=0.1, strip_threshold=0.1
    )
    iowa = 100_000 + states.index("IA") * 1_111
    answered = asked(pipe, "How many votes did Kamala Harris receive in Iowa?")
    assert f"**{iowa}**" in answered.answer.text, answered.answer.text
    refused = asked(pipe, "How many votes did Jill Stein receive in Iowa?")
    assert refused.action is Action.INCORRECT, refused.answer.text
    from localcrag.crag.answer.binding import _by_surname

    assert not _by_surname("Kamala Harris", "In Iowa, Harris campaigned in Des Moines.")
    # a place's name is no person's: "County: Iowa" is not Story County's row
    assert not _by_surname("Story County", "t.pdf, p. 2, row 3: County: Iowa; Active: 4730.")


def test_a_column_of_a_narrower_kind_does_not_answer_for_the_whole() -> None:
    """ "ELECTORAL VOTES" are a kind of votes: they answer "how many electoral votes", not
    "how many votes" (the figure would be quoted as if it were the count asked for)."""
    row = "results.pdf, p. 1, row 1: STATE: AL; ELECTORAL VOTES: 9; ELECTORAL VOTES CAST FOR ANN LEE: 9."
    action, said = ask("How many votes did Ann Lee receive in AL?", chunk(row, "/d/results.pdf"))
    assert action is Action.INCORRECT and "a number" in said
    action, said = ask(
        "How many electoral votes did Ann Lee get in AL?", chunk(row, "/d/results.pdf")
    )
    assert action is Action.CORRECT and "**9**" in said
    from localcrag.crag.answer.binding import _said, narrower

    asked = _said("How many registered voters in all were there?")
    assert narrower("Active Registered Voters", asked)  # "active" narrows; "registered" is asked
    assert not narrower("All Registered Voters", asked) and not narrower("TOTAL VOTES", asked)


def test_a_line_about_something_else_in_the_asked_period_does_not_answer() -> None:
    """A codebook's line "As of February 2013, there were 4 such tables" holds the year and a
    number, and its file is about profits; the line itself is not: no answer for profits."""
    book = "Source\nAs of February 2013, there were 4 such tables available: Table 6.16A and 6.16B."
    c = chunk(book, "/d/IndustryProfits.html", heading="Industry Profits > Source")
    action, said = ask("What were industry profits in 2013?", c)
    assert action is Action.INCORRECT and "industry" in said  # what it lacks, said
    line = "In 2013 industry profits were 4 billion dollars."
    action, said = ask(
        "What were industry profits in 2013?", chunk(line, "/d/IndustryProfits.html")
    )
    assert action is Action.CORRECT and "4 billion" in said


ARRESTS = """Arrests: 2009, columns: Offense charged | Total | Under 18 years
Arrests: 2009, row 1: Offense charged: Fraud; Total: 173.7; Under 18 years: 5.1.
Arrests: 2009, row 2: Offense charged: Burglary; Total: 240.9; Under 18 years: 60.3."""


def test_a_row_answers_only_for_the_label_the_question_names() -> None:
    """A table's row is named by its label ("Fraud"); another offence's question is not
    answered by it, nor by a figure in the header's line ("Under 18 years")."""
    q = "How many arrests in total for fraud were made in 2009?"
    action, said = ask(q, chunk(ARRESTS, "/d/a.pdf"))
    assert action is Action.CORRECT and "**173.7**" in said
    forgery = "How many arrests for forgery were made in 2009?"
    action, said = ask(forgery, chunk(ARRESTS, "/d/a.pdf"))
    assert action is Action.INCORRECT
    rows = [b for b in bindings(forgery, [chunk(ARRESTS, "/d/a.pdf")]) if "row" in b.unit.text]
    assert all("the row asked for" in b.missing for b in rows if ", row " in b.unit.text)


def test_a_written_answer_states_the_figure_that_binds_the_question() -> None:
    """The generative style's draft gets the same check: a sentence stating the FY 2018
    figure for an FY 2019 question is dropped (both figures are in the evidence, so the
    grounding check alone passes it); the bound figure is kept."""
    from localcrag.crag.answer.shaping import SentenceGate

    evidence = [Evidence(1, REPORT_2019, "/d/2019 Annual Report.pdf", 11, score=0.8)]
    question = "How much was spent on insurance in FY 2019?"
    for draft, kept in [
        ("Insurance cost 11,200 [1]. ", False),
        ("Insurance cost 12,345 [1]. ", True),
    ]:
        gate = SentenceGate(evidence, question)
        gate.feed(draft)
        gate.finish()
        assert bool(gate.kept) is kept, gate.dropped
    gate = SentenceGate(evidence, question)
    gate.feed("Insurance cost 11,200 [1].")
    gate.finish()
    assert gate.dropped[0][1] == "its figure is not the one that binds every part of the question"


CHANGELOG = """0.9.0 (2021-06-15)

**Bugfixes**

* Replace all instances of `.format` with f-strings.
- [#15](https://x.org/issues/15) Fix duplicate strings being assigned to the same cell. [#206](https://x.org/pull/206) by [Eduardo Gonzalez Lopez de Murillas](https://x.org/edugonza)."""

PARTS = """Hardware Components

Major parts used in the Widget One:

MAX5864 ADC/DAC: -

Datasheet

There's also a register map document that Mike received directly from Maxim.

W25Q80BV flash memory: -"""


def test_a_list_item_is_one_entry_and_its_first_word_is_no_name() -> None:
    """A changelog item says its change in one sentence and who made it in the next: the
    item, read whole, answers "who"; "Replace", the first word of another item, is no name."""
    q = "Who fixed duplicate strings being assigned to the same cell in camelot?"
    action, said = ask(q, chunk(CHANGELOG, "/d/camelot-HISTORY.md"))
    assert action is Action.CORRECT and "**Eduardo Gonzalez Lopez de Murillas**" in said, said
    assert "Replace" not in said


def test_a_list_s_caption_is_the_context_of_its_items() -> None:
    """ "Major parts used in the Widget One:" introduces the lines below it: the part's line
    binds "major parts" through it and names the chip; a line relating within itself ("a
    document that Mike received") does not borrow its passage's words."""
    action, said = ask(
        "Which ADC/DAC chip is among the Widget One's major parts?", chunk(PARTS, "/d/hw.html")
    )
    assert action is Action.CORRECT and "**MAX5864**" in said, said
    mike = next(
        b
        for b in bindings(
            "Which chip did Mike get among the Widget One's parts?", [chunk(PARTS, "/d/hw.html")]
        )
        if b.unit.text.startswith("There's")
    )
    assert not mike.by_passage


def test_a_figure_of_another_kind_of_quantity_does_not_answer() -> None:
    """ "How much does it weigh?" asks for a mass: a power in dBm is no answer, a weight in
    grams is; a word after a figure that is English, not a unit ("3 in 2019"), is no kind."""
    from localcrag.textutil.quantities import asked_kind, figure_kind

    power = chunk("The maximum RX power of the Widget One is -5 dBm.", "/d/widget.html")
    action, said = ask("How much does the Widget One weigh?", power)
    assert action is Action.INCORRECT and "a number" in said
    action, said = ask("What is the maximum RX power of the Widget One?", power)
    assert action is Action.CORRECT and "-5 dBm" in said
    weight = chunk("The Widget One weighs 120 g without its case.", "/d/widget.html")
    action, said = ask("How much does the Widget One weigh?", weight)
    assert action is Action.CORRECT and "**120 g**" in said, said
    assert asked_kind("Is the current version stable?") is None  # "current" as an adjective
    assert figure_kind("rose 3 in 2019", len("rose 3")) is None
    # a ratio weighs nothing: "0 to 47 dB" (the range's unit is both figures') is no mass,
    # though decibels may give a power
    gain = chunk("The IF gain of the Widget One is 0 to 47 dB; RF gain: 0 or 14 dB.", "/d/w.html")
    action, said = ask("How much does the Widget One weigh?", gain)
    assert action is Action.INCORRECT and "a number" in said, said
    action, said = ask("What is the IF gain of the Widget One?", gain)
    assert action is Action.CORRECT, said
    assert figure_kind("2-20 MHz", 1) == figure_kind("20 MHz", 2)


def test_a_line_labelling_its_value_answers_before_one_that_only_names_the_thing() -> None:
    """ "What is the sample rate?" is answered by "supported sample rates: 2 Msps to 20 Msps",
    not by a sentence that lists "sample rate" among the specifications it names."""
    text = (
        "Specifications\nThe specifications include operating frequency, sample rate and "
        "dynamic range.\n\nFeatures\n\n- operating frequency: 1 MHz to 6 GHz\n"
        "- supported sample rates: 2 Msps to 20 Msps\n- resolution: 8 bits"
    )
    action, said = ask(
        "What is the sample rate of the Widget One?", chunk(text, "/d/Widget One.html")
    )
    assert action is Action.CORRECT and said.startswith("- supported sample rates: 2 Msps"), said


def test_a_leading_phrase_saying_where_to_look_does_not_hide_the_asked_slot() -> None:
    """ "In the deck's table, which Header 3 text goes with ...": the question proper starts
    after the comma, so the slot is "which" and "text" the kind asked, not a noun the row
    must write; the row that holds the given value answers with the named column's cell."""
    cons = read(
        "In the pricing deck's table, which Plan text goes with the row whose Seats value is 25?"
    )
    assert cons.slot == "which" and cons.kind == "text" and cons.numbers == ("25",)
    rows = "Plan: Basic; Seats: 5; Note: monthly.\nPlan: Team; Seats: 25; Note: yearly."
    action, said = ask(
        "In the pricing deck's table, which Plan text goes with the row whose Seats value is 25?",
        chunk(rows, "/d/pricing.pptx"),
    )
    assert action is Action.CORRECT and "**Team**" in said and "Basic" not in said
    assert read("In which year did Ely, a town, grow?").slot == "date"  # no leading phrase


def test_who_did_it_is_the_agent_after_by_not_another_name_in_the_line() -> None:
    """A changelog item names a tool and its contributor: "who contributed the change that
    replaced X with Y" is answered by the name after "by"; "change" is the category the
    relative clause defines, which the item need not write."""
    cons = read("Who contributed the change that replaced OldReader with NewReader in tablekit?")
    assert "chang" not in cons.terms and cons.slot == "name"
    log = (
        "- Replace `OldReader` with `NewReader` and pin PyParse to `>=3.0`. "
        "[#307](https://example.org/pull/307) by [Ada Quist](https://example.org/ada)."
    )
    action, said = ask(
        "Who contributed the change that replaced OldReader with NewReader in tablekit?",
        chunk(log, "/d/tablekit-HISTORY.md", heading="0.11.0 (2023-02-26)"),
    )
    assert action is Action.CORRECT and "**Ada Quist**" in said and "**PyParse**" not in said
    assert "fee" in read("What is the fee that members pay?").terms  # no name in the clause


def test_which_company_is_answered_by_a_name_with_its_legal_form_not_words_in_capitals(
    tmp_path,
) -> None:
    """A product sheet names its maker only in its address block; the sheet's title binds
    the product there. "Which company" asks for a name: the one written with its legal
    form, never a feature set in capitals ("PLAY, STOP") nor a plain heading word."""
    from localcrag.crag.answer.shapes import answer_spans

    q = "Which company made the TapeMaster?"
    assert read(q).slot == "name"
    controls = "Operation is like a tape deck with PLAY, STOP, RECORD and MIDI controls."
    assert [controls[a:b] for a, b in answer_spans(controls, q, "name")] == ["MIDI"]
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "sheet.txt").write_text(
        "The TapeMaster\n\nThe TapeMaster is a 16-track recorder for the studio.\n\n"
        f"{controls}\n\nQuorn Audio Works, Inc. 12 Mill Road, Ely\n",
        encoding="utf-8",
    )
    run = asked(quoting_pipeline(docs, FakeGenerator()), q)
    assert run.action is Action.CORRECT and "**Quorn Audio Works**" in run.answer.text


def test_what_is_the_quantity_asks_for_a_number_and_a_line_that_only_names_it_is_no_answer() -> (
    None
):
    """ "What is the maximum sample rate X supports?": the subject's head noun is a
    quantity, so the answer holds a number; a line that only names the quantity
    ("specifications include ... maximum sample rate") is refused, never Correct. A noun
    phrase that goes on ("the rate limiting strategy") or "the F value" (a column's name)
    asks for no number."""
    from localcrag.crag.answer.shapes import answer_shape

    assert answer_shape("What is the maximum sample rate the Radio One supports?") == "number"
    assert answer_shape("What is the population of Ely?") == "number"
    assert answer_shape("What is the rate limiting strategy?") is None
    assert answer_shape("What is the F value of the iris ANOVA?") is None
    q = "What is the maximum sample rate the Radio One supports?"
    faq = "The Radio One's specifications include frequency range, maximum sample rate and bits."
    assert ask(q, chunk(faq, "/d/faq.html"))[0] is Action.INCORRECT
    action, said = ask(q, chunk("Radio One features: maximum sample rate: 20 Msps.", "/d/r.html"))
    assert action is Action.CORRECT and "**20** Msps" in said


def test_a_question_s_last_word_after_a_name_is_its_verb_unless_the_name_owns_it() -> None:
    from localcrag.textutil.pos import is_noun

    supports = "What is the maximum sample rate the Radio One supports".split()
    samples = "What is the resolution of the Radio One's samples".split()
    assert not is_noun(supports, len(supports) - 1)
    assert is_noun(samples, len(samples) - 1)


def test_a_choice_question_is_answered_by_the_option_the_evidence_states() -> None:
    """ "Is X A or B?" asks which option holds: a line stating one (not denying it, not
    asking it) answers, the one that predicates it ("X is a B ...") over lines that only
    mention the other; a line naming neither or both is no answer; the options and the
    noun they modify are no words a line must hold."""
    cons = read("Is the Radio One a full-duplex or a half-duplex device?")
    assert cons.slot == "choice" and cons.alternatives == ("full-duplex", "half-duplex")
    assert not {"duplex", "devic", "full", "half"} & set(cons.terms)
    faq = (
        "Why isn't the Radio One full-duplex?\n"
        "Full-duplex support would have made it larger.\n"
        "Users who need full-duplex can use two units.\n"
        "The Radio One is a half-duplex transceiver."
    )
    action, said = ask(
        "Is the Radio One a full-duplex or a half-duplex device?", chunk(faq, "/d/faq.md")
    )
    assert action is Action.CORRECT and said.startswith("The Radio One is a **half-duplex**")
    for unstated in (
        "The Radio One is a small, portable transceiver.",  # neither option
        "The Radio One does not support full-duplex operation.",  # a denial states none
    ):
        action, _ = ask(
            "Is the Radio One a full-duplex or a half-duplex device?", chunk(unstated, "/d/f.md")
        )
        assert action is Action.INCORRECT, unstated


def test_a_row_of_figures_read_without_its_header_fills_no_column() -> None:
    """A table the PDF reader could not read as one leaves its rows as bare figures ("37
    49,415 79 722 ..."): which figure is the "No Labels" column's is not written, so no
    figure of the row answers, though the page's heading names the period and the place."""
    text = (
        "Statewide Active Registration JAN 2024\n"
        "Democratic Green Libertarian No Labels Republican Other Total\n\n"
        "37 49,415 79 722 863 14,835 40,947 106,861"
    )
    action, said = ask(
        "How many active No Labels voters were registered statewide in January 2024?",
        chunk(text, "/d/state_voter_registration.pdf"),
    )
    assert action is Action.INCORRECT, said


def test_which_kind_is_answered_by_the_thing_written_as_that_kind() -> None:
    """ "Which CVE ...": CVE is the kind asked (not a name the evidence must hold), and of the
    lines that bind, the one whose thing is written as a CVE answers, not one naming an issue
    number beside the word; a long line ending in ":" is the caption of the list below it."""
    cons = read("Which CVE does the embedded libxls in readxl 1.4.2 fix?")
    assert cons.slot == "which" and cons.kind == "CVE" and "CVE" not in cons.entities
    news = (
        "readxl 1.4.2\n\n"
        "* We embed a development version of libxls, based on its most recent release, v1.6.2.\n"
        "The reason for embedding a development version is to ship a version of libxls that "
        "incorporates the fix for this CVE (#679):\n"
        "  - [CVE-2021-27836](https://nvd.nist.gov/vuln/detail/CVE-2021-27836)\n"
    )
    action, said = ask(
        "Which CVE does the embedded libxls in readxl 1.4.2 fix?", chunk(news, "/d/NEWS.md")
    )
    assert action is Action.CORRECT and "**CVE-2021-27836**" in said, said
    vignette = 'read_excel(readxl_example("deaths.xlsx"), range = "arts!A5:F15")'
    action, said = ask(
        "Which cell range does the vignette use to read the arts sheet of deaths.xlsx?",
        chunk(vignette, "/d/sheet-geometry.html"),
    )
    assert "**A5:F15**" in said, said


def test_a_thing_of_the_asked_kind_is_named_beside_its_noun_never_past_a_word() -> None:
    """ "Which overused dataset ...": "the Iris dataset" names a dataset from before its noun;
    "the dataset in Julia" names a language (a word stands between them), and "1 President"
    counts one. The line that names a thing of the kind answers."""
    readme = (
        "The Palmer penguins dataset in Julia:\n\n"
        "The goal of the Palmer Penguins dataset is to replace the highly overused Iris dataset "
        "for data exploration & visualization.\n"
    )
    action, said = ask(
        "Which overused dataset is the Palmer Penguins dataset meant to replace?",
        chunk(readme, "/d/README.md"),
    )
    assert action is Action.CORRECT and "**Iris**" in said and "Julia" not in said, said
    act = "The Digital Millennium Copyright Act was signed into law by 1 President Clinton."
    action, said = ask(
        "Which president signed the Digital Millennium Copyright Act into law?",
        chunk(act, "/d/copyright.pdf"),
    )
    assert "**Clinton**" in said, said


def test_a_date_never_answers_which() -> None:
    """ "Which Python version ...": a changelog heading's date is when the release came,
    never which version; the line under it that names one answers, and the question's own
    release is no answer either."""
    log = chunk(
        "Version 5.0.0, 2024-09-15\n\nThis version drops support for Python 3.7 (not "
        "maintained since July 2023) and PdfMerger.",
        "/d/pypdf-CHANGELOG.md",
    )
    action, said = ask("Which Python version did pypdf 5.0.0 stop supporting?", log)
    assert action is Action.CORRECT and "**3.7**" in said and "**2024" not in said, said


def test_a_line_that_says_the_asked_kind_answers_what_kind() -> None:
    """ "What calibre were the siege guns?": of the lines about the guns, the one that says
    "calibre" says which; the longer line that names more of the question's words (planted,
    division) says where they stand."""
    diary = (
        "We have several large siege guns, lately planted in the rear of our division, which "
        "it took ten yoke of oxen to haul, one at a time, to their places. These guns are "
        "nine-inch calibre and about twelve feet long."
    )
    action, said = ask(
        "What calibre were the big siege guns planted behind the diarist's division?",
        chunk(diary, "/d/diary.pdf"),
    )
    assert action is Action.CORRECT and "nine-inch calibre" in said and "oxen" not in said, said
    # "type" frames the question ("what architecture type"): a line saying "types" says no
    # kind, and the answer leads with the line about the architecture
    history = (
        "In England, the period of Norman architecture immediately succeeds that of the "
        "Anglo-Saxon and precedes the Early Gothic. Many types of Norman edifices in England "
        "were destroyed in later times."
    )
    action, said = ask(
        "What architecture type came after Norman in England?", chunk(history, "/d/normans.txt")
    )
    assert said.startswith("In England, the period of Norman architecture"), said


def test_a_unit_the_question_names_binds_the_figure() -> None:
    """ "What battery capacity, in mAh, ...?" asks for a figure in mAh: a version number in a
    change history is none; a figure under a header that writes the unit is."""
    from localcrag.textutil.quantities import named_unit

    question = "What battery capacity, in mAh, does the Widget spec require?"
    assert read(question).slot == "number" and named_unit("profits in Iowa in 2008") is None
    history = chunk(
        "Widget spec change history\nCR: 0575; Subject: Correction to extreme condition "
        "voltages for Lithium batteries in the Widget spec; New version: 8.1.0.",
        "/d/widget spec.docx",
    )
    action, said = ask(question, history)
    assert action is Action.INCORRECT and "a number" in said, said
    table = chunk(
        "Widget spec battery requirements\nParameter: battery capacity; Unit: mAh; Level: 1500.",
        "/d/widget spec.docx",
    )
    action, said = ask(question, table)
    assert action is Action.CORRECT and "**1500**" in said, said


def test_a_name_binds_without_its_accents_and_a_row_of_bare_figures_fills_no_slot() -> None:
    """A list sets names in capitals without accents ("CORVINO GERMAN"): the question's
    "Germán Corvino" is that name. The line is a table's row read without its header: which
    of its figures (an ID, a tax number, a date, an amount) is the contribution is not
    written, so none answers; a sentence that says it does."""
    row = chunk(
        "Donors 2013\nCORVINO GERMAN 27.491.524 20-27491524-3 09/10/2013 EFECTIVO $ 20.000,00",
        "/d/donors.pdf",
    )
    action, said = ask("How much did Germán Corvino contribute to the campaign?", row)
    assert action is Action.INCORRECT and "the column asked for" in said, said
    said_so = chunk("Donors 2013\nGerman Corvino gave $20,000 to the campaign.", "/d/donors.pdf")
    action, said = ask("How much did Germán Corvino contribute to the campaign?", said_so)
    assert action is Action.CORRECT and "**$20,000**" in said, said


def test_the_asked_kind_of_quantity_and_period_bind_a_row_of_a_table() -> None:
    """A table's row answers only with what the question asks: a percentage where it asks
    "what percentage" (a count of voters is none), a figure of the asked kind ("wind speed":
    a code's "909" is none), and its own period: a row dated "OCT 2023" does not answer for
    January 2023, though the file's name says "jan" and the row says 2023."""
    rows = chunk(
        "Registered voters by county\n"
        "registration_jan2024.pdf, p. 1, columns: County | Date/Period | Republican | Total\n"
        "registration_jan2024.pdf, p. 1, row 7: County: Pima; Date/Period: OCT 2023; "
        "Republican: 175,106; Total: 636,419.\n"
        "registration_jan2024.pdf, p. 1, row 8: County: Pima; Date/Period: JAN 2024; "
        "Republican: 171,377; Total: 629,052.",
        "/d/registration_jan2024.pdf",
    )
    action, said = ask("How many registered voters did Pima County have in January 2023?", rows)
    assert action is Action.INCORRECT, said
    action, said = ask("How many registered voters did Pima County have in October 2023?", rows)
    assert action is Action.CORRECT and "OCT 2023" in said and "636,419" in said, said
    action, said = ask(
        "What percentage of Pima County's voters were Republicans in October 2023?", rows
    )
    assert action is Action.INCORRECT, said
    shares = chunk(
        "Percentages by party\nIn October 2023, 27.51% of the voters of Pima County were Republicans.",
        "/d/registration_jan2024.pdf",
    )
    action, said = ask(
        "What percentage of Pima County's voters were Republicans in October 2023?", shares
    )
    assert action is Action.CORRECT and "27.51%" in said, said
    procedure = chunk(
        "Procedure Lay Down Tubulars\nRMS References: Manual Handling Operation RMS-DOP-909; "
        "stop when the wind speed exceeds the crane's limit.",
        "/d/procedure.docx",
    )
    action, said = ask(
        "What is the maximum wind speed for the Lay Down Tubulars procedure?", procedure
    )
    assert action is Action.INCORRECT, said


def test_a_numbered_name_holds_its_number_beside_its_noun() -> None:
    """ "District 10" is not "Legislative District 7" in a row whose precinct
    count is 10: the number of a numbered name binds beside its noun, not anywhere."""
    row = chunk(
        "Active registered voters, January 2024\n"
        "arizona.pdf, p. 3, row 3: Legislative District 7: Navajo; Precincts: 10; Total: 36,571.",
        "/d/arizona.pdf",
    )
    question = "How many active registered voters did District 10 have in January 2024?"
    action, said = ask(question, row)
    assert action is Action.INCORRECT, said
    other = chunk(
        "Active registered voters, January 2024\n"
        "In January 2024, District 10 had 50,149 active registered voters.",
        "/d/arizona.pdf",
    )
    action, said = ask(question, other)
    assert action is Action.CORRECT and "50,149" in said, said


def test_a_part_of_a_date_is_no_quantity() -> None:
    """ "How old was he?": the 18 of "1926-10-18" is a day of a date, not an age."""
    from localcrag.crag.answer.shapes import answer_spans

    line = "Chuck Berry, musician, born 1926-10-18, died aged 90."
    spans = [line[a:b] for a, b in answer_spans(line, "How old was Chuck Berry?", "number")]
    assert "18" not in spans and "10" not in spans and spans[:1] == ["90"], spans


def test_a_line_that_negates_a_word_of_the_question_does_not_bind_it() -> None:
    """ "active" asked, "Inactive County: Maricopa" read: the row is about the opposite (a
    report's inactive table), whatever its page's heading says; the active row answers."""
    heading = "Registration report > Active"
    inactive = chunk(
        "report.pdf, p. 6, row 24: Inactive County: Maricopa; Date/Period: JAN 2024; "
        "Democratic: 138,945.",
        "/d/report.pdf",
        heading=heading,
    )
    question = "How many active registered Democrats did Maricopa County have in January 2024?"
    action, said = ask(question, inactive)
    assert action is Action.INCORRECT and "active" in said, said
    active = chunk(
        "report.pdf, p. 1, row 24: Active County: Maricopa; Date/Period: JAN 2024; "
        "Democratic: 697,057.",
        "/d/report.pdf",
        "c2",
        heading=heading,
    )
    action, said = ask(question, inactive, active)
    assert action is Action.CORRECT and "697,057" in said and "138,945" not in said, said


PEOPLE_SHEET = """people.xlsx, sheet arts, row 2: Name: Prince; Profession: musician; Has kids: yes.
people.xlsx, sheet arts, row 3: Name: Alan Rickman; Profession: actor; Has kids: no.
people.xlsx, sheet arts, row 4: Name: George Michael; Profession: musician; Has kids: no."""


def test_a_yes_no_cell_is_a_constraint_and_the_row_name_the_answer() -> None:
    """ "Which musician had no kids?": the row must say "Has kids: no" and "musician"; its
    answer is the row's name, never the yes/no cell."""
    sheet = chunk(PEOPLE_SHEET, "/d/people.xlsx")
    action, said = ask("Which musician on the arts sheet had no kids?", sheet)
    assert action is Action.CORRECT and "**George Michael**" in said
    assert "Prince" not in said and "Alan Rickman" not in said
    # only rows of the other polarity or kind: no answer, and it says why
    other = chunk(PEOPLE_SHEET.rsplit("\n", 1)[0], "/d/people.xlsx")
    action, said = ask("Which musician on the arts sheet had no kids?", other)
    assert action is Action.INCORRECT


POWER_TABLE = """UE maximum output power
Operating Band: Band I; Power Class 1: +33; Power Class 2: +27.
Operating Band: Band III; Power Class 3: +24; Power Class 4: +21."""


def test_a_numbered_name_binds_its_own_number_only() -> None:
    """ "Power Class 3 in Band I": "Band III" is not "Band I" (a Roman numeral is a number),
    and a numbered name stays required however common its noun is in the library."""
    from localcrag.crag.answer.binding import key_terms

    table = chunk(POWER_TABLE, "/d/ts.docx")
    action, said = ask("What is the maximum output power of Power Class 1 in Band I?", table)
    assert action is Action.CORRECT and "+33" in said and "+21" not in said
    action, _ = ask("What is the maximum output power of Power Class 3 in Band I?", table)
    assert action is Action.INCORRECT  # Band I has no class 3; Band III is another band
    everywhere = lambda word: (900, 1000)  # noqa: E731 - every word in 90% of passages
    names = key_terms(
        read("What is the output power of Power Class 3 in Band I?"), everywhere
    ).names
    assert "Band I" in names and "Power Class 3" in names


SPEC_NOTES = """Minimum output power
Parameter: UE Output Power, 16QAM; Unit: dBm; Level: -30.
The minimum output power shall be less than -50 dBm.
NOTE 2 For Power class 4 this shall be at the maximum output power NOTE 3 For the UE which supports both bands the reference sensitivity level of -114.5 dBm shall apply for the band."""


def test_what_level_of_a_named_quantity_asks_for_its_figure() -> None:
    """ "Below what level must the minimum output power be?" asks for a power: the line that
    gives the *minimum* output power answers, not a table's output power at another test,
    a section number, or a figure at the far end of a run-on note."""
    assert read("Below what level must the UE minimum output power be?").slot == "number"
    assert read("What voltage does the board need?").slot == "number"
    assert read("What power supply does it use?").slot != "number"  # a supply, not a power
    action, said = ask(
        "Below what level must the UE minimum output power be?", chunk(SPEC_NOTES, "/d/ts.docx")
    )
    assert action is Action.CORRECT and "**-50 dBm**" in said
    notes = chunk(SPEC_NOTES.split("\n", 3)[3], "/d/ts.docx")
    action, said = ask("What is the maximum output power of Power Class 1?", notes)
    assert action is Action.INCORRECT  # "-114.5 dBm" is a sensitivity level, far off


def test_a_bound_is_part_of_the_quantity_asked() -> None:
    """ "maximum" is not "minimum": a line that gives a quantity's other bound does not
    answer; a range gives both ends, "up to" a maximum."""
    lines = chunk("The minimum sample rate of the Widget is 2 Msps.", "/d/widget.html")
    action, _ = ask("What is the maximum sample rate of the Widget?", lines)
    assert action is Action.INCORRECT
    span = chunk("Widget supported sample rates: 2 Msps to 20 Msps.", "/d/widget.html")
    assert ask("What is the maximum sample rate of the Widget?", span)[0] is Action.CORRECT
    up_to = chunk("The Widget samples at up to 20 Msps.", "/d/widget.html")
    assert ask("What is the maximum sample rate of the Widget?", up_to)[0] is Action.CORRECT


def test_a_chunk_that_binds_is_kept_before_one_that_scores_higher() -> None:
    """The grader scores topic: five "output power" table chunks outscore the line that
    gives the minimum output power; binding keeps the line."""
    from localcrag.crag.pipeline import best_graded

    rows = [
        chunk(
            f"Parameter: UE Output Power, test {i}; Unit: dBm; Level: -{20 + i}.",
            "/d/ts.docx",
            f"r{i}",
        )
        for i in range(5)
    ]
    line = chunk("The UE minimum output power shall be less than -50 dBm.", "/d/ts.docx", "m")
    q = "Below what level must the UE minimum output power be?"
    grades = raise_bound(q, [*(Grade(c, 0.9, "g") for c in rows), Grade(line, 0.6, "g")], UPPER)
    kept = best_graded(grades, 5)
    assert any(g.chunk.chunk_id == "m" for g in kept)


def test_a_relevant_line_that_holds_a_loose_question_is_kept_before_higher_rows() -> None:
    """A question with nothing exact to match raises nothing, but among the passages the
    grader found relevant, one with a line that holds the whole question is kept before data
    rows that only score higher; one the grader did not find relevant is not."""
    from localcrag.crag.pipeline import best_graded

    rows = [
        chunk(
            f"airquality.csv, row {i}: Ozone: {40 + i}; Solar.R: 190; Wind: 7.4; Temp: 67.",
            "/d/airquality.csv",
            f"r{i}",
        )
        for i in range(5)
    ]
    line = chunk(
        "Ozone: Mean ozone in parts per billion from 1300 to 1500 hours at Roosevelt Island",
        "/d/airquality.html",
        "m",
    )
    q = "According to the airquality help page, over which hours is the mean ozone taken?"
    assert read(q).hard == 0  # nothing exact: no score is raised

    def kept(score: float) -> list[str]:
        pool = [*(Grade(c, 0.95, "g") for c in rows), Grade(line, score, "g")]
        graded = raise_bound(q, pool, UPPER)
        assert [g.score for g in graded] == [g.score for g in pool]
        return [g.chunk.chunk_id for g in best_graded(graded, 5)]

    assert "m" in kept(UPPER + 0.01)
    assert "m" not in kept(UPPER - 0.01)


def test_a_count_in_words_a_date_in_capitals_and_a_possessive() -> None:
    """ "ten years" and "thirteen dollars" fill a number slot; a diary's "JUNE 17TH" fills a
    date; "Once ..." opening a question is grammar; "the diarist's division" names an owner,
    not a kind of division the library must hold."""
    from localcrag.crag.answer.binding import key_terms

    law = chunk("Protection lasts ten years from the date of registration.", "/d/law.pdf")
    action, said = ask("Once a design is registered, how long does protection last?", law)
    assert action is Action.CORRECT and "**ten years**" in said
    assert "onc" not in read("Once a design is registered, how long does protection last?").terms
    diary = chunk(
        "JUNE 17TH.—I was detailed to guard rebel prisoners at the corral.", "/d/diary.pdf"
    )
    action, said = ask("On which day of June was the diarist detailed to guard prisoners?", diary)
    assert action is Action.CORRECT and "**JUNE 17TH**" in said
    unknown = lambda word: (0, 100) if word.startswith("diarist") else (5, 100)  # noqa: E731
    q = "What calibre were the siege guns behind the diarist's division?"
    assert "diarist" not in [t for t, _ in key_terms(read(q), unknown).required]


def test_a_header_line_answers_only_a_question_about_the_columns() -> None:
    header = chunk("cars.csv, columns: mpg | cyl | wt | hp", "/d/cars.csv")
    action, _ = ask("In what unit is the wt column of cars.csv given?", header)
    assert action is Action.INCORRECT  # a header names columns, no unit, no value


def test_a_sentence_is_read_with_the_one_before_it_in_its_paragraph() -> None:
    """ "As amended, section 108 permits up to three copies" goes on from the sentence
    before it, which says what the copies are for: its nouns count, not those of a sentence
    further away or another paragraph."""
    text = (
        "Prior to the amendment, section 108 let libraries make a single copy of a work for "
        "purposes of preservation. As amended, section 108 permits up to three copies, which "
        "may be digital, provided they stay on the premises.\n\n"
        "Section 104 asks for a report on the effects of the amendments within 24 months."
    )
    question = "How many preservation copies may a library make under section 108?"
    action, said = ask(question, chunk(text, "/d/summary.pdf"))
    assert action is Action.CORRECT and "**three copies**" in said
    # the paragraph's first sentence has no sentence before it to borrow from
    alone = "Section 108 permits up to three copies, which may be digital."
    assert ask(question, chunk(alone, "/d/summary.pdf"))[0] is Action.INCORRECT


def test_what_is_the_name_of_asks_for_a_name() -> None:
    """ "What was the name of the diarist's sister?" asks for a thing named: a line about
    the sister that names no one does not answer it."""
    assert read("What was the name of the diarist's bedridden sister?").slot == "which"
    line = "The diarist thought of home, and of the dear sister there, bedridden, with little hope."
    action, _ = ask("What was the name of the diarist's bedridden sister?", chunk(line, "/d/d.pdf"))
    assert action is Action.INCORRECT
    named = "The diarist wrote daily to his bedridden sister, Mary Ellen, in Ohio."
    action, said = ask(
        "What was the name of the diarist's bedridden sister?", chunk(named, "/d/d.pdf")
    )
    assert action is Action.CORRECT and "Mary" in said


def test_a_question_in_a_script_without_spaces_is_never_called_checked() -> None:
    """No word of "歌山镇农贸市场的总建筑面积是多少平方？" can be told apart, so no passage can
    be checked to hold its parts: however well graded, the badge is Ambiguous."""
    from localcrag.textutil import unspaced

    text = "项目概况 东阳市歌山镇农贸市场经营管理权项目的潜在投标人应在网上获取招标文件。"
    question = "歌山镇农贸市场的总建筑面积是多少平方？"
    assert unspaced(question) and not unspaced("Geshan farmers' market, 2021")
    grades = [Grade(chunk(text, "/d/tender.docx"), 0.9, "g")]
    assert decide(grades, UPPER, LOWER, question=question).action is Action.AMBIGUOUS
    assert decide(grades, UPPER, LOWER).action is Action.CORRECT  # no question: scores only


def test_a_preposition_before_what_asks_for_a_figure() -> None:
    """ "Up to what length count as useful articles": the noun after "what" is followed by a
    verb no list of function words holds, yet "up to what length" asks for a figure."""
    question = "Hulls of vessels up to what length count as useful articles?"
    assert read(question).slot == "number"
    assert read("What power supply does it need?").slot != "number"  # a supply, no figure
    text = (
        "Useful articles are limited to the hulls of vessels no longer than 200 feet. "
        "Hulls of vessels count as useful articles under the new chapter."
    )
    action, said = ask(question, chunk(text, "/d/summary.pdf"))
    assert action is Action.CORRECT and "**200 feet**" in said


def test_an_ordinal_numbers_a_name() -> None:
    """ "Iowa's 4th congressional district" is the district numbered 4: a row of District 1
    does not answer it, the row of District 4 does."""
    question = (
        "How many inactive voters did Sioux County have in Iowa's 4th congressional district?"
    )
    assert "District 4" in read(question).entities
    title = "State of Iowa Voter Registration Totals"
    first = "cong.pdf, p. 1, row 5: District: 1; County: Sioux; Total Inactive: 1554."
    fourth = "cong.pdf, p. 4, row 31: District: 4; County: Sioux; Total Inactive: 2021."
    assert ask(question, chunk(first, "/d/cong.pdf", heading=title))[0] is Action.INCORRECT
    action, said = ask(question, chunk(fourth, "/d/cong.pdf", heading=title))
    assert action is Action.CORRECT and "**2021**" in said
    prose = "In the 4th congressional district, Sioux County had 2,021 inactive voters."
    action, said = ask(question, chunk(prose, "/d/notes.md", heading=title))
    assert action is Action.CORRECT and "2,021" in said


def test_a_refusal_below_the_thresholds_still_says_what_came_closest() -> None:
    """Every passage scored under the lower threshold: Incorrect, and the refusal says what
    the closest unit lacks (the asked column of the asked county's row), not only that the
    documents do not answer it; a passage that holds nothing of the question is not quoted."""
    row = "report.pdf, p. 2, row 17: County: Linn; Democratic Active: 53580; Republican Active: 38870."
    question = "How many inactive Libertarian voters were there in Linn County?"
    d = decide([Grade(chunk(row, "/d/report.pdf"), 0.05, "g")], UPPER, LOWER, question=question)
    assert d.action is Action.INCORRECT and d.closest == row
    assert "Libertarian" in d.missing and "Linn County" not in d.missing
    other = chunk("The weather was mild all week.", "/d/notes.txt")
    d = decide([Grade(other, 0.05, "g")], UPPER, LOWER, question=question)
    assert d.action is Action.INCORRECT and d.closest is None and not d.missing


def test_a_noun_that_names_a_format_is_held_by_the_files_of_that_format() -> None:
    """ "In the python-docx example screenshot, ...": no line of an image says
    "screenshot"; its file is one. A .docx is none, whatever its name. Nouns any format is
    called by ("the report", "the slides") frame the question and constrain nothing."""
    from localcrag.crag.answer.binding import bindings
    from localcrag.crag.answer.constraints import FRAMING
    from localcrag.ingest.formats import FORMATS

    def idf(term: str) -> tuple[int, int]:
        return 2, 1000  # every noun rare: required

    def missing(question: str, text: str, source: str) -> tuple[str, ...]:
        ev = Evidence(1, text, source, 1)
        return next(b for b in bindings(question, [ev], idf) if b.unit.text == text).missing

    row = "Qty Id Desc 2 42 Eggs"
    q = "In the python-docx example screenshot, what Id does the Eggs row have?"
    assert missing(q, row, "/d/example-docx-01.png") == ()
    assert "screenshot" in missing(q, row, "/d/example-docx-01.docx")
    cell = "deaths.xlsx, sheet arts, row 10: Name: Prince; Age: 57."
    q = "How old was Prince according to the deaths workbook?"
    assert "workbook" not in missing(q, cell, "/d/deaths.xlsx")
    assert "workbook" in missing(q, cell, "/d/deaths.csv")
    framing = {k for f in FORMATS.values() for k in f.kinds if k in FRAMING}
    assert not framing, framing  # never a constraint: a kind no question could use


def test_a_thing_the_question_numbers_is_not_one_numbered_otherwise() -> None:
    """ "the second item": a line that says "first item" speaks of another; "the second
    slide": a passage of slide 1 is another slide's. A line that numbers nothing says
    nothing against it."""
    from localcrag.crag.answer.binding import bindings

    def missing(question: str, text: str, locator: str | None = None) -> tuple[str, ...]:
        ev = Evidence(1, text, "/d/deck.pptx", 1, locator=locator)
        return next(b for b in bindings(question, [ev]) if b.unit.text == text).missing

    q = "What is the second item of the unordered list?"
    assert "second item" in missing(q, "• first item in unordered list")
    assert "second item" not in missing(q, "• second item in unordered list")
    assert "second item" not in missing(q, "• spam and eggs")
    q = "What does the title on the second slide say?"
    assert "second slide" in missing(q, "Good moarning", "slide 1")
    assert "second slide" not in missing(q, "Good moarning", "slide 2")
    assert "4th district" in missing("Who won the 4th district?", "District 3: Smith won.")


def test_a_noun_beside_a_name_written_as_code_says_what_it_is_and_is_not_required() -> None:
    """ "the Page.find_table method", "version 0.11.0": the name is the constraint; a
    changelog that lists it seldom repeats what kind of thing it is."""
    from localcrag.crag.answer.binding import key_terms

    log = "## 0.10.0\n- Add Page.find_table(...) (#873).\n## 0.9.0\n- Add Page.dedupe_chars()."
    cons = read("In which pdfplumber release was the Page.find_table method added?")
    rare = key_terms(cons, lambda word: (2, 100))  # every noun in 2 of 100 passages: rare
    assert "method" not in dict(rare.required) and "method" not in rare.weights
    action, said = ask(cons.question, chunk(log, "/d/pdfplumber-CHANGELOG.md"))
    assert action is Action.CORRECT and "0.10.0" in said and "0.9.0" not in said
    # a noun beside a place's name is what is asked of it, not its kind: still required
    voters = key_terms(read("How many Kent County voters were there?"), lambda w: (2, 100))
    assert "voter" in dict(voters.required)


def test_a_modifier_of_a_noun_the_library_never_writes_is_no_constraint() -> None:
    """ "running mate" where the library writes "for Vice President": both words are the
    question's way of putting it; "identity theft" where the library knows theft is a kind
    of a thing it knows, and its modifier stays required."""
    from localcrag.crag.answer.binding import key_terms

    def idf(word: str) -> tuple[int, int]:
        return {"running": 3, "mate": 0, "ballot": 20, "identity": 0, "theft": 4}.get(word, 5), 100

    cons = read("Who was the running mate on the Louisiana ballot?")
    assert "run" not in key_terms(cons, idf).weights
    theft = key_terms(read("How many identity theft cases were reported?"), idf)
    assert "ident" in dict(theft.required)


def test_a_row_cell_is_the_column_binding_read_with_its_codebook() -> None:
    """ "army deaths from zymotic disease": the column is Disease ("deaths from zymotic
    diseases", its codebook says), never Army (the army's strength) for sharing a word."""
    data = chunk(
        "nightingale.csv, row 10 (1855-01-01): Month: Jan; Year: 1855; Army: 32393; "
        "Disease: 2761; Wounds: 48.",
        "/d/nightingale.csv",
    )
    book = chunk(
        "nightingale.csv columns\nArmy: Estimated average monthly strength of the British army\n"
        "Disease: Number of deaths from preventable zymotic diseases\n"
        "Wounds: Number of deaths directly from battle wounds",
        "/d/nightingale.md",
        "c2",
    )
    action, said = ask(
        "How many British army deaths from zymotic disease were recorded in January 1855?",
        data,
        book,
    )
    assert action is Action.CORRECT and "**2761**" in said and "32393" not in said, said


def test_a_line_beside_the_one_asked_is_not_quoted_from_a_passage_bound_as_a_whole() -> None:
    """A chart's rows in one passage: the 2nd Qtr's line answers, not the 1st Qtr's."""
    chart = (
        "Pie chart, Category | Sales\nPie chart, Category: 1st Qtr; Sales: 8.2.\n"
        "Pie chart, Category: 2nd Qtr; Sales: 3.2.\nPie chart, Category: 3rd Qtr; Sales: 1.4."
    )
    action, said = ask(
        "In the pie chart, what is the Sales value for the 2nd Qtr?", chunk(chart, "/d/deck.pptx")
    )
    assert action is Action.CORRECT and "2nd Qtr; Sales: 3.2" in said and "8.2" not in said, said


def test_a_percentage_is_read_from_a_row_labelled_so() -> None:
    rows = (
        "registration.pdf, p. 1, row 47: County: Totals:; Period: OCT 2023; Democratic: "
        "1,252,630; Republican: 1,444,953.\nregistration.pdf, p. 1, row 50: County: "
        "Percentages:; Period: OCT 2023; Democratic: 29.76; Republican: 34.33."
    )
    action, said = ask(
        "What percentage of registered voters were Republicans in October 2023?",
        chunk(rows, "/d/registered-voters.pdf"),
    )
    assert action is Action.CORRECT and "**34.33**" in said, said


def test_a_refusal_always_names_what_is_missing() -> None:
    """A lone figure that binds every part is no line to quote: the refusal names what the
    closest quotable line lacks, never "No passage gives ;" (an empty list of what is missing)."""
    from localcrag.crag.answer.binding import Bound, Unit
    from localcrag.crag.answer.extract import _not_found

    evidence = [Evidence(1, "4\n7b 7a", "/d/f1040nr.pdf", 1, score=0.8)]
    lone = Bound(Unit(1, "4", "f1040nr.pdf", 0), (), "7b", 4)
    lacking = Bound(Unit(1, "7b 7a", "f1040nr.pdf", 1), ("4",), "7b", 3)
    out = _not_found([lone, lacking], evidence)
    assert not out.found and "gives ;" not in out.text
    assert out.text == f"{NOT_STATED} No passage gives 4; closest: \u201c7b 7a\u201d [1]."
    assert _not_found([lone], evidence).text == NOT_STATED


def test_a_name_written_as_one_word_is_found_as_its_words_and_a_name_may_hold_an_ampersand() -> (
    None
):
    """ "the WorldPhones data" is the file a page calls "World Phones"; "AT&T" is a name,
    even opening its line."""
    from localcrag.crag.answer.binding import _has_entity
    from localcrag.crag.answer.shapes import answer_spans

    assert _has_entity("WorldPhones", "World Phones The World's Telephones > Source")
    assert not _has_entity("WorldPhones", "World population and telephones")
    line = "AT&T (1961) The World's Telephones."
    spans = answer_spans(line, "Whose 1961 publication is the source of the data?", "name")
    assert [line[a:b] for a, b in spans][:1] == ["AT&T"]


def test_the_entry_of_a_run_on_line_the_question_names_is_the_one_in_bold() -> None:
    """A results line lists each state's running mate: the name in bold is Louisiana's
    ("LA: Ajamu Baraka"), not the first name the line gives."""
    line = (
        "Jill Stein (BP, GPF, GR, GRE, IND, KYP, MTP, OTH, PET, PG, WG) (Rudolph Ware for Vice "
        "President; AL, ID, KY, MN, NE, TN: Samson Kpadenou for Vice President; LA: Ajamu "
        "Baraka for Vice President; MA: Gloria Caballero-Roca for Vice President)"
    )
    action, said = ask(
        "Who was listed for Vice President with Jill Stein on the Louisiana ballot?",
        chunk(line, "/d/2024 ballot results.pdf"),
    )
    assert action is Action.CORRECT and "LA: **Ajamu Baraka**" in said, said


def test_a_parenthesis_of_plain_words_explains_and_a_groups_label_is_no_narrower_kind() -> None:
    """ "(active plus inactive)" explains "grand total"; it is no code to find, and its words
    do not pull the answer to the active or inactive column. A column named by its group
    ("US Representative District 3 Grand Total") counts the grand total, no narrower kind."""
    question = (
        "What was the grand total of registered voters (active plus inactive) in Polk County "
        "in the July 2022 congressional district report?"
    )
    cons = read(question)
    assert cons.entities == ("Polk County",) and "inact" not in cons.terms
    row = (
        "CongJul22.pdf, p. 3, row 16: US Representative District 3 County: Polk; US "
        "Representative District 3 Total Active: 279905; US Representative District 3 Total "
        "Inactive: 49522; US Representative District 3 Grand Total: 329427."
    )
    action, said = ask(question, chunk(row, "/d/Registered voters July 2022.pdf"))
    assert action is Action.CORRECT and "**329427**" in said, said


def test_a_sign_set_apart_is_the_asked_number_and_a_code_is_found_across_separators() -> None:
    """ "- 10 MHz" is the -10 asked (a range's "5 - 10" is no -10); "DOP-1013A" is the
    procedure a file named "240-DOP-1013A_Lay_Down_Tubulars" holds."""
    from localcrag.crag.answer.binding import _has_entity, _has_number

    assert _has_number("-10", "Power Class: 3; offset: + 10 MHz or - 10 MHz; ACLR limit: 43 dB")
    assert not _has_number("-10", "a range of 5 - 10 MHz")
    assert _has_entity("DOP-1013A", "240 DOP 1013A Lay Down Tubulars")
    assert not _has_entity("DOP-1013A", "240 DOP 1014A Lay Down Tubulars")


def test_a_lead_in_line_is_no_answer_to_what_its_items_give() -> None:
    """ "The three RX gain controls are at these stages:" leads into the items that give the
    steps; quoted alone under CORRECT it answered nothing."""
    text = (
        "The three RX gain controls are at these stages:\nRF (amp, 0 or 14 dB)\n"
        "IF (lna, 0 to 40 dB in 8 dB steps)\nThe two TX gain controls are at these stages:"
    )
    out = extractive_answer(
        "In what steps can the HackRF IF (lna) gain be set?",
        [Evidence(1, text, "/d/hackrf-faq.html", 1, score=0.9)],
    )
    assert "stages" not in out.text, out.text
    assert not out.found or "8 dB steps" in out.text, out.text


def test_a_row_cut_at_its_chunks_end_is_no_lead_in_and_the_setting_names_no_column() -> None:
    """A row whose chunk ends mid-row ("...; elpct:") is still a row; "In the California
    test score data, how many computers ...": the phrase that says where to look names the
    source, so the test score column is not the one asked."""
    row = (
        "Caschool.csv, row 3 (2): county: Butte; district: Manzanita Elementary; computer: 101; "
        "testscr: 661.2; elpct:"
    )
    book = "Caschool columns\ncomputer: number of computers\ntestscr: average test score"
    evidence = [
        Evidence(1, row, "/d/Caschool.csv", 3, score=0.9),
        Evidence(2, book, "/d/Caschool.html", 1, score=0.8),
    ]
    out = extractive_answer(
        "In the California test score data, how many computers does Manzanita Elementary "
        "in Butte county have?",
        evidence,
    )
    assert "**101**" in out.text and "**661.2**" not in out.text, out.text


def test_a_leading_when_clause_sets_the_scene_only_before_a_question() -> None:
    """ "When X, this represents what Y?" asks the what, not a date; "When was X updated,
    according to Y?" asks a date: what follows its comma asks nothing."""
    assert read("When extensive time is required, this represents what case?").slot is None
    assert read("When was the file last updated, according to the format document?").slot == "date"
    assert read("When deciding whether to cache, what is the main cost?").slot != "date"


def test_a_product_named_beside_its_version_is_no_kind_and_stays_required() -> None:
    """ "pdfplumber 0.4.0": the product the version belongs to, not what kind of thing the
    version is; camelot's 0.4.0 does not answer for it."""
    from localcrag.crag.answer.binding import key_terms

    cons = read("When was pdfplumber 0.4.0 released?")
    assert "pdfplumber" in dict(key_terms(cons, lambda word: (2, 100)).required)
    action, said = ask(
        cons.question, chunk("Release History\n0.4.0 (2018-11-23)", "/d/camelot-HISTORY.md")
    )
    assert action is Action.INCORRECT and "pdfplumber" in said, said


def test_an_explaining_parenthesis_chooses_no_column() -> None:
    """ "grand total of registered voters (active plus inactive)": a county's row cut before
    its Grand Total gives no "Other Active" figure for it."""
    row = (
        "CongJul22.pdf, p. 3, row 9: US Representative District 3 County: Greene; US "
        "Representative District 3 Democratic Active: 1441; US Representative District 3 "
        "Other Active: 45"
    )
    from localcrag.crag.answer.binding import cell_value

    question = "What was the grand total of registered voters (active plus inactive) in District 3?"
    assert cell_value(row, question) != "45"
