"""Error hierarchy: every message says what went wrong and what to do; redact() keeps secrets out of messages."""

from __future__ import annotations

import logging
import re
from typing import Any
from urllib.parse import unquote


class RagError(Exception):
    """Base of all errors this package raises on purpose."""


class IngestError(RagError):
    """A file could not be ingested; nothing was written for it."""


class NotAPDFError(IngestError):
    pass


class EmptyFileError(IngestError):
    pass


class CorruptPDFError(IngestError):
    pass


class PasswordRequiredError(IngestError):
    pass


class WrongPasswordError(PasswordRequiredError):
    pass


class LimitExceededError(IngestError):
    pass


class StoreError(RagError):
    """The database could not be reached or answered with an error."""


class EmbeddingModelMismatch(StoreError):
    """The store was built with another embedding model; searching it would be meaningless."""


class SearchError(RagError):
    pass


# Secrets in messages. Every error, reason, trace, export, API reply and log line goes through redact(): a URL keeps
# its scheme, host, path and harmless parameters; its user-info, its secret parameters, Authorization values and API
# keys become ***. Over-masking a rare shape (an '@' in a path after a port) is preferred to leaking a password.
_USERINFO = re.compile(
    r"(?i)\b([a-z][a-z0-9+.\-]*://)"
    r"(?:[^\s/?#\"<>\\`]*@"  # user-info up to the last '@' of the authority (a password with an unencoded '@')
    r"|[^\s/?#@:\"<>\\`]+:[^\s@\"<>\\`]*@)")  # user:password with an unencoded '/', '?' or '#' in the password
_SECRET_NAME = re.compile(r"(?i)key|token(?!s)|secret|passw|pwd|sig|auth|credential|cookie|session")
_TOKEN68 = r"[A-Za-z0-9\-._~+/]+=*"
_SCHEMES = r"(?:bearer|basic|token|digest)\s+"
_HEADER = re.compile(rf"(?i)\b((?:proxy-)?authorization|x-api-key|api[-_]key|cookie)(['\"]?\s*[:=]\s*['\"]?)"
                     rf"({_SCHEMES})?(?!{_SCHEMES})({_TOKEN68})")
_QUOTED_KEY = re.compile(r"""(['"])([\w.%-]+)\1(\s*:\s*)(['"])(.*?)\4""")
# an unquoted value ends at whitespace, '&' or '#'; a last ',', ';', '.' or ')' is the sentence's, not the value's
_NAME_VALUE = re.compile(r"""(?<![\w%.-])([\w%.-]+)=('[^']*'|"[^"]*"|[^\s&#'"<>]*[^\s&#'"<>,;.)])""")
_BEARER = re.compile(r"(?i)\b(bearer\s+)([A-Za-z0-9\-._~+/]{12,}=*)")
_KEYS = re.compile(r"\b(?:sk-[A-Za-z0-9_\-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|"
                   r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*)")
_ENV_SECRETS = ("RAG_API_KEY", "SUPABASE_KEY", "OPENAI_API_KEY", "RAG_LLM__API_KEY", "RAG_DB__SUPABASE_KEY",
                "RAG_DB__READER_PASSWORD")


def _secret(value: str) -> bool:
    return value != "***" and any(ch.isalnum() for ch in value)


def _header(m: re.Match) -> str:
    name, sep, scheme, value = m.groups()
    return f"{name}{sep}{scheme or ''}***" if _secret(value) else m.group(0)


def _quoted(m: re.Match) -> str:
    q, name, sep, vq, value = m.groups()
    return f"{q}{name}{q}{sep}{vq}***{vq}" if _SECRET_NAME.search(unquote(name)) and _secret(value) else m.group(0)


def _name_value(m: re.Match) -> str:
    name, value = m.groups()
    return f"{name}=***" if _SECRET_NAME.search(unquote(name)) and _secret(value) else m.group(0)


def redact(text: str) -> str:
    """A message fit to show or log: no user-info of a URL, no secret parameter (key=, token=, password=, sig=…),
    no Authorization or API-key value, no API key of a known shape, no key of ours from the environment."""
    import os

    for name in _ENV_SECRETS:
        secret = os.environ.get(name)
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    text = _USERINFO.sub(r"\1***@", text)
    text = _HEADER.sub(_header, text)
    text = _QUOTED_KEY.sub(_quoted, text)
    text = _NAME_VALUE.sub(_name_value, text)
    text = _BEARER.sub(r"\1***", text)
    return _KEYS.sub("***", text)


def redact_json(value: Any) -> Any:
    """redact() over every string of a JSON-like value (dicts, lists), keys kept."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: redact_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_json(v) for v in value]
    return value


class RedactLogs(logging.Filter):
    """A handler's filter: every record it writes, and its traceback, through redact()."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            record.msg, record.args = redact(record.getMessage()), ()
        except Exception:  # a malformed call (its arguments do not fit): logging reports it when it formats
            pass
        if record.exc_info:
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
            record.exc_info = None
        return True


def redact_logs() -> None:
    """RedactLogs on every handler of the root logger (once each): every log line of the process is redacted."""
    for handler in logging.getLogger().handlers:
        if not any(isinstance(f, RedactLogs) for f in handler.filters):
            handler.addFilter(RedactLogs())
