"""The assistant: one question's plan. Its tools gather the evidence through the store (the retrieval pipeline with
its Facts stage, figures, related documents, read-only SQL), then `rag/answer/` writes the answer from that evidence
alone. `answer()` is the entry point of the CLI, the API and the pages."""

from rag.assistant.core import MAX_QUESTION, answer, check_question

__all__ = ["MAX_QUESTION", "answer", "check_question"]
