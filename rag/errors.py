"""Error hierarchy: every message says what went wrong and what to do."""


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
