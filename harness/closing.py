"""``Closing``: what holds a resource (a file descriptor, a database) and is closed when
the ``with`` block it was opened for ends."""

from __future__ import annotations

from typing import Self


class Closing:
    """``with value:`` closes ``value`` when the block ends; a subclass defines ``close``."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["Closing"]
