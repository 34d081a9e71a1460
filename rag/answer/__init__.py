"""Writing the answer from the evidence retrieval gathered (its passages, figures and the facts of its Facts stage):
extractive offline, or phrased by an LLM when one is configured; citations and numbers verified. Nothing here reads the
store: `rag/assistant/` gathers the evidence and calls this layer."""

from rag.answer.model import Answer, Evidence

__all__ = ["Answer", "Evidence"]
