"""The fake API server's HTTP face: the Kubernetes REST API for what the store holds.

>>> from framework.apiserver import APIServer
>>> from framework.apiserver.http import APIHTTPServer
>>> with APIHTTPServer(APIServer()) as server:
...     server.url.startswith("http://127.0.0.1:")
True
"""

from framework.apiserver.http.server import (
    DEFAULT_BOOKMARK_INTERVAL,
    MAX_REQUEST_BODY_BYTES,
    APIHTTPServer,
)

__all__ = ["DEFAULT_BOOKMARK_INTERVAL", "MAX_REQUEST_BODY_BYTES", "APIHTTPServer"]
