"""What a page request to the board service may be told: refused (one line), or refused
because the service is stopping after its journal failed."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from controller.session import JournalWriteError


class ServiceError(ValueError):
    """A request the service cannot carry out (bad game name, no choice open, …)."""


class ServiceFailed(ServiceError):
    """A page request after (or causing) a journal write failure: the service is stopping."""


def page_request(method: Callable[..., Any]) -> Callable[..., Any]:
    """A page request that may write the journal: after a write failure it is refused
    (ServiceFailed, one line), never answered with state the journal does not hold."""

    @functools.wraps(method)
    def request(self: Any, *args: Any, **kwargs: Any) -> Any:
        if self.failure is not None:
            raise ServiceFailed(f"{self.failure}; the service is stopping")
        try:
            return method(self, *args, **kwargs)
        except JournalWriteError:
            raise ServiceFailed(f"{self.failure}; the service is stopping") from None
    return request
