"""The exporter's HTTP session, bounded against a hostile collector (§12; issue 30, finding
10): every answer is read as a stream and at most ``MAX_ANSWER_BYTES`` of it kept (an OTLP
answer is a few bytes: an ``ExportTraceServiceResponse`` or an error status), then the
connection is dropped — a collector that answers with gigabytes costs a few KB. Each read
still waits at most the export timeout (the SDK's), and the SDK bounds its retries by a
total deadline; the answer's body is read in at most ``MAX_ANSWER_BYTES`` / chunk reads."""

from __future__ import annotations

from typing import Any

import requests

MAX_ANSWER_BYTES = 4 * 1024


class BoundedSession(requests.Session):
    """A ``requests.Session`` whose responses hold at most ``MAX_ANSWER_BYTES`` of body."""

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:
        kwargs["stream"] = True
        response = super().send(request, **kwargs)
        try:
            body = response.raw.read(MAX_ANSWER_BYTES + 1)
        except Exception:  # a broken answer: what was read is all there is
            body = b""
        finally:
            response.close()  # not read to its end: the connection is dropped, not reused
        response._content = body[:MAX_ANSWER_BYTES]  # requests' own cache of the body
        response._content_consumed = True
        return response


__all__ = ["MAX_ANSWER_BYTES", "BoundedSession"]
