"""An operating system's error as a sentence in the person's language, by its number.

``OSError.strerror`` is the C library's English ("Address already in use"):
fine for a log, not for the screen. The CLI words the common numbers itself
and, for the rest, gives the number's symbolic name (``ENOSPC``), which
reads the same in every language and can be looked up.
"""

from __future__ import annotations

import errno

from gleek_p2p.base.i18n import _

__all__ = ["os_error_words"]


def _errno_name(number: int | None) -> str:
    if number is None:
        return "?"
    return errno.errorcode.get(number, str(number))


def os_error_words(exc: OSError, listen: str | None = None) -> str:
    """What went wrong, for the person: worded by ``exc.errno``, never ``exc.strerror``.

    ``listen`` is the ``--listen HOST:PORT`` the command was given, if any:
    an address error is about it when no file is named.
    """
    number, filename = exc.errno, exc.filename
    if filename is None and listen is not None:
        if number == errno.EADDRINUSE:
            return _("the address {address} is already in use: choose another port with "
                     "--listen HOST:PORT (port 0 picks a free one)").format(address=listen)
        if number == errno.EACCES:
            return _("this program may not listen at {address} (ports below 1024 need "
                     "privileges): choose another port with --listen HOST:PORT").format(
                         address=listen)
        if number == errno.EADDRNOTAVAIL:
            return _("{address} is not an address of this machine: choose another with "
                     "--listen HOST:PORT").format(address=listen)
    if filename is not None:
        if number == errno.ENOENT:
            return _("no such file or folder: {file}").format(file=filename)
        if number in (errno.EACCES, errno.EPERM):
            return _("permission denied: {file}").format(file=filename)
        if number == errno.ENOSPC:
            return _("no space left on the disk for {file}").format(file=filename)
        return _("the system could not use {file} (error {name})").format(
            file=filename, name=_errno_name(number))
    return _("the system refused the operation (error {name})").format(
        name=_errno_name(number))
