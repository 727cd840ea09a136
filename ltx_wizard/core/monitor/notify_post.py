"""`--notify-url URL`: the ending POSTed as a small JSON document (run, cause, step, loss, text) for
a user who is not at the terminal (a chat webhook, ntfy, a phone's push relay).

The standard library's urllib, in a thread with a short timeout: a slow or dead endpoint delays
nothing and fails nothing; its error is one line. Only http and https URLs are taken, and no
redirect is followed (a POST redirected elsewhere is an error, said so). The one line names the
URL's host only: the path or query of a webhook is often its secret.
"""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from typing import Any, Callable
from urllib.parse import urlsplit

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.base.text_safety import clean_text, clip
from ltx_wizard.core.monitor.notify_ending import Ending

TIMEOUT_S = 10.0  # one POST; the watcher waits at most this long for it before it exits


def check_url(url: str) -> str:
    """The URL when it is http(s) with a host; UsageError otherwise (file:, ftp:, a bare path)."""
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        raise UsageError(f"--notify-url {clip(clean_text(url), 80)!r}: {exc}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(
            f"--notify-url {clip(clean_text(url), 80)!r} is not an http:// or https:// URL with a host"
        )
    return url


def _host(url: str) -> str:
    parts = urlsplit(url)
    return clean_text(f"{parts.scheme}://{parts.hostname}" + (f":{parts.port}" if parts.port else ""))


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # urllib then raises the 3xx as an HTTPError


def post_ending(url: str, ending: Ending, timeout_s: float = TIMEOUT_S) -> str | None:
    """POST the ending; None when the endpoint answered 2xx, else why not (one line)."""
    body = json.dumps(ending.as_json()).encode("utf-8")
    request = urllib.request.Request(
        check_url(url), data=body, method="POST", headers={"Content-Type": "application/json"}
    )
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        with opener.open(request, timeout=timeout_s) as reply:
            status = int(reply.status)
    except urllib.error.HTTPError as exc:
        status = exc.code
    except (OSError, ValueError) as exc:  # refused, unreachable, timed out, a TLS failure
        reason = getattr(exc, "reason", None) or exc
        return f"--notify-url: could not POST to {_host(url)}: {clip(clean_text(reason), 120)}"
    if not 200 <= status < 300:
        return f"--notify-url: {_host(url)} answered HTTP {status}"
    return None


def post_in_thread(url: str, ending: Ending, report: Callable[[str], None]) -> threading.Thread:
    """Start the POST in a daemon thread; `report` gets its error line, if any. Join it (with a
    timeout) before exiting so the request is not cut short."""

    def run() -> None:
        error = post_ending(url, ending)
        if error is not None:
            report(error)

    thread = threading.Thread(target=run, name="ltx-notify-url", daemon=True)
    thread.start()
    return thread
