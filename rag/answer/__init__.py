"""Evidence-grounded answers: extractive offline, any OpenAI-compatible LLM when configured; citations verified."""

from rag.answer.core import answer
from rag.answer.model import Answer, Evidence

__all__ = ["Answer", "Evidence", "answer"]
