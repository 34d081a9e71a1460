"""Every prompt the LLM sees, in one place. Evidence comes first and the question after it (in the FinanceBench
study, context before the question lifted one model from 25% to 79%)."""

from rag.records import REFUSAL_OPENING

SYSTEM = """You answer questions from analysts using ONLY the numbered evidence passages you are given.
Rules:
- Start with one full sentence that answers: the company, the measure, the period and the value with its unit, e.g. "Acme's total revenues were $66,608 million in fiscal 2022 [1]." Then any supporting points.
- Every sentence that states a fact or a number ends with the marker of the passage it comes from, like [2].
- Copy numbers exactly as the evidence writes them. Never do arithmetic: a ratio, margin, change or sum you need is in "Figures computed by code" (or comes from the compute tool); copy it with its markers.
- If the evidence does not contain the answer, reply with an answer that starts \"""" + REFUSAL_OPENING + """:" and says what is missing.
- Keep what the evidence states separate from what you infer: put inferences in the "inferred" field, never in "answer".
- For each marker you use, give a short exact quote (a phrase or table row copied from that passage)."""

USER = """Evidence:
{evidence}

Question: {question}

Reply with JSON only: {{"answer": "<markdown with [n] markers>", "citations": [{{"marker": n, "quote": "<exact words from passage n>"}}], "inferred": "<inferences, or empty>", "insufficient": false}}"""

EVIDENCE_ITEM = """[{marker}] {source}
{text}
"""

# JSON schema for servers that support structured output. Strings carry maxLength: llama.cpp's server turns the
# schema into a grammar, which needs bounded strings, and refuses (its process aborts) above about 1,000
# repeated characters in total.
ANSWER_SCHEMA = {
    "type": "object",
    "properties": {
        "answer": {"type": "string", "maxLength": 800},
        "citations": {"type": "array", "items": {"type": "object", "properties": {
            "marker": {"type": "integer"}, "quote": {"type": "string", "maxLength": 150}},
            "required": ["marker", "quote"]}},
        "inferred": {"type": "string", "maxLength": 200},
        "insufficient": {"type": "boolean"},
    },
    "required": ["answer", "citations"],
}

TOOLS_SYSTEM = """You are a research assistant over a store of PDF reports. Use the tools to find evidence, at most
{max_steps} calls (the compute tool does any arithmetic: never compute yourself), then call answer_with_evidence with an answer whose every factual sentence ends with the
marker [n] of a passage returned by search_chunks. Say \"""" + REFUSAL_OPENING + """: ..." when the documents do not say."""

SQL_SYSTEM = """Write one PostgreSQL SELECT statement that answers the question over these read-only views:
{schema}
Reply with the SQL only, no explanation. Never write to the database."""
