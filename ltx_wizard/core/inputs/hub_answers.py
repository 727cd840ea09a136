"""What the Hugging Face Hub answers, checked before it is trusted, and its failures in one line.

The Hub (or a mirror at HF_ENDPOINT, or a proxy in between) is input the wizard did not write:
a file's size must be a whole number of bytes (not "abc", not -5: it decides the free-disk
refusal and is shown to the user), and a file name must stay inside the folder it lands in (a
`..` or absolute name would write elsewhere). A failure of the Hub or the network is one line
with its cause and the next step (retry, token, space), never a library's traceback; the
exception chain is read for the cause, since huggingface_hub wraps its HTTP errors.
"""

from __future__ import annotations

import errno
import re
from pathlib import PurePosixPath
from typing import Any

from ltx_wizard.core.base.errors import UsageError, WizardError
from ltx_wizard.core.base.text_safety import clean_text, clip
from ltx_wizard.core.io.bounded import json_int

MAX_FILE_BYTES = 10**14  # 100 TB: far above any model file; a larger "size" is not one
MAX_NAME_CHARS = 1000
_QUOTED = re.compile(r"'([^']*)'")


class HubAnswerError(WizardError):
    """The Hub's answer does not hold together: nothing is offered or downloaded from it."""


def file_size(value: Any, *, repo: str, name: str) -> int:
    try:
        return json_int(value, what=f"the size of {clip(name)}", lo=0, hi=MAX_FILE_BYTES)
    except UsageError as exc:
        raise HubAnswerError(
            f"the Hub's answer for {repo} is malformed ({exc.message}): retry "
            "later; if it persists, the endpoint (HF_ENDPOINT) or a proxy is "
            "not serving the real Hub"
        ) from None


def file_name(value: Any, *, repo: str) -> str:
    """A repository file name that stays below the folder it is downloaded into."""
    name = value if isinstance(value, str) else None
    parts = PurePosixPath(name).parts if name else ()
    if (
        not name
        or len(name) > MAX_NAME_CHARS
        or name.startswith("/")
        or "\\" in name
        or ".." in parts
        or clean_text(name) != name
    ):
        shown = clip(clean_text(value), 60)
        raise HubAnswerError(
            f"the Hub lists a file named {shown!r} in {repo}, which would land "
            "outside the download folder: nothing was downloaded from it; "
            "report it to the repository's owner"
        )
    return name


def siblings(info: Any, repo: str) -> dict[str, int]:
    """name -> size of every file the model info lists, each checked."""
    found: dict[str, int] = {}
    for sibling in getattr(info, "siblings", None) or []:
        name = file_name(getattr(sibling, "rfilename", None), repo=repo)
        size = getattr(sibling, "size", None)
        found[name] = 0 if size is None else file_size(size, repo=repo, name=name)
    return found


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    link: BaseException | None = exc
    while link is not None and link not in seen and len(seen) < 10:
        seen.append(link)
        link = link.__cause__ or link.__context__
    return seen


def _names(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


def _status(exc: BaseException) -> int | None:
    response = getattr(exc, "response", None)
    code = getattr(response, "status_code", None)
    return code if isinstance(code, int) else None


def _http(code: int, repo: str) -> str:
    if code == 401:
        return (
            f"the Hub refused the token for {repo} (HTTP 401): log in again (hf auth login) or fix HF_TOKEN"
        )
    if code == 403:
        return (
            f"no access to {repo} (HTTP 403): accept its terms at https://huggingface.co/"
            f"{repo} with the account of your token"
        )
    if code == 404:
        return (
            f"{repo} or the file was not found on the Hub (HTTP 404): a private repository "
            "needs a token (hf auth login)"
        )
    if code == 429:
        return "the Hub is rate-limiting this address (HTTP 429): wait a few minutes and retry"
    if code >= 500:
        return f"the Hub answered HTTP {code} (its own error) for {repo}: retry in a few minutes"
    return f"the Hub answered HTTP {code} for {repo}: retry, or download it with `hf download`"


def failure(exc: BaseException, *, repo: str, dest: object, what: str) -> WizardError:
    """One line for a failed Hub request or download: the cause first, then the next step."""
    chain = _chain(exc)
    for link in chain:
        if isinstance(link, WizardError):
            return link
        if isinstance(link, OSError) and link.errno in (errno.ENOSPC, errno.EDQUOT):
            return WizardError(
                f"no space left in {dest} while {what}: free some space, or set "
                "LTX_MODELS_DIR to a larger disk; the partial file resumes"
            )
    for link in chain:
        code = _status(link)
        if code is not None:
            return WizardError(f"{what} failed: {_http(code, repo)}")
    names = set().union(*(_names(link) for link in chain))
    if "RemoteProtocolError" in names:
        return WizardError(
            f"{what} failed: the connection kept dropping before the whole answer "
            "came (after retries): run it again; it resumes from the partial file"
        )
    if names & {"TimeoutException", "Timeout", "ReadTimeout", "ConnectTimeout"}:
        return WizardError(
            f"{what} failed: the Hub did not answer in time: retry; a slow link "
            "can raise HF_HUB_DOWNLOAD_TIMEOUT"
        )
    if "OfflineModeIsEnabled" in names:
        return WizardError(f"{what} failed: HF_HUB_OFFLINE is set: unset it to download")
    if names & {"ConnectError", "ConnectionError", "LocalEntryNotFoundError"}:
        return WizardError(
            f"{what} failed: cannot reach the Hugging Face Hub: check the network "
            "(or HF_ENDPOINT), then retry"
        )
    if isinstance(exc, ValueError) and ".." in str(exc):  # the hub's own name check refused it
        named = _QUOTED.search(str(exc))
        shown = clip(clean_text(named.group(1) if named else exc), 60)
        return HubAnswerError(
            f"{what} failed: the Hub lists a file named {shown!r} in {repo}, "
            "which would land outside the download folder: nothing was "
            "written outside it; report it to the repository's owner"
        )
    return WizardError(
        f"{what} failed ({type(exc).__name__}: {clip(clean_text(exc), 120)}): "
        "retry; it resumes from the partial file"
    )
