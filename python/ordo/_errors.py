"""The exceptions of ordo: one class per engine status code, all under ordo.Error.

The compiled module raises these; each instance carries the engine's message
(``message``), its code name (``code``, e.g. ``"NotFound"``) and, for a damaged
page, its number (``page``).
"""


class Error(Exception):
    """Base of every error ordo raises.

    Attributes:
        code: the engine's status code name ("NotFound", "Busy", ...), or
            "Closed" for a closed database.
        message: the engine's message, naming the problem.
        page: for a CorruptionError tied to a page, its number; else None.
    """

    code = "Error"

    def __init__(self, message="", *args):
        super().__init__(message, *args)
        self.message = message
        self.page = None

    def __str__(self):
        return self.message


class NotFoundError(Error, KeyError):
    """A key, tree or file that does not exist (also a KeyError)."""

    code = "NotFound"


class InvalidArgumentError(Error, ValueError):
    """A wrong argument: an oversized key or value, a bad option or name, a
    handle of another database, a txn used in a forked child (also a ValueError)."""

    code = "InvalidArgument"


class CorruptionError(Error):
    """The file is damaged; ``page`` names the page when known. From
    Database.check(), ``report`` holds the whole report."""

    code = "Corruption"


class IOError(Error, OSError):  # noqa: A001 - ordo.IOError, an OSError with errno
    """The operating system failed a call; ``errno`` holds its errno."""

    code = "IOError"

    def __init__(self, message="", errno=0):
        OSError.__init__(self, errno, message)
        self.message = message
        self.page = None

    def __str__(self):
        return self.message


class BusyError(Error):
    """The writer lock is held (another handle, or this thread's open write
    txn, or a timeout ran out), or the txn is in a call in another thread."""

    code = "Busy"


class FullError(Error):
    """The disk, the file size limit or the address reservation is exhausted."""

    code = "Full"


class NotOrdoFileError(Error):
    """The file is not an ordo database."""

    code = "NotOrdoFile"


class VersionMismatchError(Error):
    """The file is an ordo database of a format version this build does not read."""

    code = "VersionMismatch"


class TxnEndedError(Error):
    """The txn was committed, aborted or reset, or its database was closed."""

    code = "TxnEnded"


class NeedsRecoveryError(Error):
    """A read-only open found commits in the file's log whose pages are not
    all in the file (a crash of the machine, or damage the message names):
    open the database writable once to replay them."""

    code = "NeedsRecovery"


class ClosedError(Error):
    """The database was closed."""

    code = "Closed"
