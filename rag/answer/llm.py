"""The LLM client: any OpenAI-compatible server through the `openai` package. Structured output where the server
supports it (JSON schema, then JSON object), a tolerant parser otherwise; streamed to the caller."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

from rag.config import LLMSettings
from rag.errors import RagError, redact

if TYPE_CHECKING:  # openai is imported when a model is called, not with this module
    from openai.types.chat import ChatCompletionMessageParam


class LLMError(RagError):
    """The LLM could not answer (timeout, server error, unusable reply); the caller falls back."""


class Rejected(Exception):
    """The server refused the shape of the request (a response format, or tool calls, it does not support)."""


@contextmanager
def llm_errors(cfg: LLMSettings, rejected: tuple[type[Exception], ...] = (), shape_5xx: bool = False) -> Iterator[None]:
    """The openai client's errors, mapped once: LLMError for a timeout, an unreachable server or an HTTP error;
    Rejected for the kinds the caller names (and for 5xx when the request's shape may be the cause). Each message
    names the server without the secrets of its URL, and quotes the server's reply redacted."""
    import openai

    try:
        yield
    except openai.APITimeoutError as exc:
        raise LLMError(f"the LLM did not answer within {cfg.timeout_s:.0f} s") from exc
    except openai.APIConnectionError as exc:
        raise LLMError(f"cannot reach the LLM server at {redact(cfg.base_url or '')}") from exc
    except rejected as exc:
        raise Rejected(redact(str(exc))) from exc
    except openai.APIStatusError as exc:
        if exc.status_code >= 500 and shape_5xx:
            raise Rejected(redact(str(exc))) from exc
        raise LLMError(f"the LLM server answered HTTP {exc.status_code}") from exc


_FORMAT_CACHE: dict[str, str] = {}  # server (base URL and model) → the response format it accepted
_FORMATS = ("json_schema", "json_object", "text")


def _server(cfg: LLMSettings) -> str:
    return f"{cfg.base_url or ''} {cfg.model}"


def known_format(cfg: LLMSettings, path: Path | None) -> str | None:
    """The response format this server accepted before: in this process, else in the formats file (written by
    an earlier process), so a server is asked once, not once per process."""
    key = _server(cfg)
    if key not in _FORMAT_CACHE and path is not None:
        try:
            saved = json.loads(path.read_text())
        except (OSError, ValueError):
            saved = {}
        fmt = saved.get(key) if isinstance(saved, dict) else None
        if fmt in _FORMATS:
            _FORMAT_CACHE[key] = fmt
    return _FORMAT_CACHE.get(key)


def remember_format(cfg: LLMSettings, fmt: str, path: Path | None) -> None:
    """Keep the format that worked, in this process and in the formats file (written whole, then renamed; a
    folder that cannot be written only means the next process detects it again)."""
    key = _server(cfg)
    if _FORMAT_CACHE.get(key) == fmt:
        return
    _FORMAT_CACHE[key] = fmt
    if path is None:
        return
    try:
        saved = json.loads(path.read_text()) if path.exists() else {}
        saved = saved if isinstance(saved, dict) else {}
        saved[key] = fmt
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(saved, indent=1, sort_keys=True))
        tmp.replace(path)
    except (OSError, ValueError):
        pass


def make_client(cfg: LLMSettings):
    from openai import OpenAI

    key = cfg.api_key.get_secret_value() if cfg.api_key else "not-needed"
    return OpenAI(base_url=cfg.base_url, api_key=key, timeout=cfg.timeout_s, max_retries=0)


class ResponseFormat(TypedDict, total=False):
    """A chat request's response_format: OpenAI's json_schema, or llama.cpp's json_object with its schema."""
    type: str
    json_schema: dict[str, Any]
    schema: dict[str, Any]


def _formats(cfg: LLMSettings, schema: dict | None, path: Path | None) -> list[ResponseFormat | None]:
    if cfg.response_format == "text" or schema is None:
        return [None]
    js: ResponseFormat = {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema}}
    jo: ResponseFormat = {"type": "json_object", "schema": schema}  # llama.cpp's server reads the schema from here
    orders: dict[str, list[ResponseFormat | None]] = {"json_schema": [js], "json_object": [jo], "auto": [js, jo, None]}
    order = orders[cfg.response_format]
    known = known_format(cfg, path) if cfg.response_format == "auto" else None
    if known:
        after: dict[str, list[ResponseFormat | None]] = {"json_schema": [js, jo, None], "json_object": [jo, None], "text": [None]}
        order = after[known]
    return order


def chat(cfg: LLMSettings, messages: list[ChatCompletionMessageParam], schema: dict | None = None,
         on_token: Callable[[str], None] | None = None, client=None, formats_file: Path | None = None) -> str:
    """The model's reply text. Tries the structured formats in order (starting from the one this server accepted
    before, kept in formats_file); streams tokens to on_token."""
    import openai

    client = client or make_client(cfg)
    last: Exception | None = None
    for fmt in _formats(cfg, schema, formats_file):
        kwargs = dict(model=cfg.model, messages=messages, temperature=cfg.temperature, max_tokens=cfg.max_tokens)
        if fmt is not None:
            kwargs["response_format"] = fmt
        try:  # a format the server does not support (400, or 500 to json_schema on some servers): the next one
            with llm_errors(cfg, (openai.BadRequestError,), shape_5xx=fmt is not None and fmt["type"] == "json_schema"):
                text = _complete(client, kwargs, on_token)
        except Rejected as exc:
            last = exc
            continue
        if schema is not None:
            remember_format(cfg, fmt["type"] if fmt else "text", formats_file)
        return text
    raise LLMError(f"the LLM server rejected every response format ({last})")


def _complete(client, kwargs: dict, on_token: Callable[[str], None] | None) -> str:
    if not on_token:
        r = client.chat.completions.create(**kwargs)
        return r.choices[0].message.content or ""
    parts = []
    for ev in client.chat.completions.create(stream=True, **kwargs):
        delta = ev.choices[0].delta.content if ev.choices and ev.choices[0].delta else None
        if delta:
            parts.append(delta)
            on_token(delta)
    return "".join(parts)


def parse_reply(text: str) -> dict:
    """{"answer", "citations", "inferred", "insufficient"} from a reply that should be JSON: code fences, text
    around the object, trailing commas and single quotes are tolerated; plain text becomes the answer."""
    t = text.strip()
    t = re.sub(r"^```(?:json)?\s*|\s*```$", "", t)
    obj = None
    start = t.find("{")
    if start >= 0:
        depth, end, in_str, esc = 0, None, False, False
        for i, ch in enumerate(t[start:], start):
            if in_str:
                esc = (ch == "\\") and not esc
                if ch == '"' and not esc:
                    in_str = False
                continue
            if ch == '"':
                in_str = True
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    end = i + 1
                    break
        body = t[start:end] if end else t[start:] + "}" * max(depth, 1)
        for candidate in (body, re.sub(r",\s*([}\]])", r"\1", body), body.replace("'", '"')):
            try:
                obj = json.loads(candidate)
                break
            except json.JSONDecodeError:
                continue
    if not isinstance(obj, dict) or not isinstance(obj.get("answer"), str):
        m = re.search(r'"answer"\s*:\s*"((?:[^"\\]|\\.)*)', t)
        answer = json.loads(f'"{m.group(1)}"') if m else (t if not t.startswith("{") else "")
        return {"answer": answer, "citations": [], "inferred": "", "insufficient": False, "malformed": True}
    cites = []
    for c in obj.get("citations") or []:
        if isinstance(c, dict):
            try:
                cites.append({"marker": int(c.get("marker")), "quote": str(c.get("quote") or "")})  # type: ignore[arg-type]
            except (TypeError, ValueError):
                continue
    return {"answer": obj["answer"], "citations": cites, "inferred": str(obj.get("inferred") or ""),
            "insufficient": bool(obj.get("insufficient")), "malformed": False}

