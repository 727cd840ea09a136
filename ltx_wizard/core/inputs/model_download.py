"""Models offered for download when none are found: the files the trainer's docs name, each
offered alone with its size, the free disk, the gated-terms notice and the token state, and
downloaded with huggingface_hub (resumable) only after an explicit yes.

The files are the ones the LTX-2 README (LTX-2.5 split pack) and MODELS-LTX-2.3.md (unified
checkpoint and its Gemma 3) name for training: the `dev` checkpoints, as the trainer's docs train.
The destination is $LTX_MODELS_DIR, else ~/models (the skill's onboarding reference), one
folder per release. huggingface_hub is imported only here, when an offer is made; its own token
resolution (HF_TOKEN, the saved login) decides whether a token exists.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path
from typing import Any, Callable, Mapping

from pydantic import BaseModel, ConfigDict

from ltx_wizard.core.base.errors import UsageError, WizardError
from ltx_wizard.core.inputs.hub_answers import failure as hub_failure, siblings
from ltx_wizard.core.io.bounded import read_bytes

GB = 1e9
TOKEN_MAX_BYTES = 64 * 1024  # a token is ~40 characters


class ModelFile(BaseModel):
    model_config = ConfigDict(frozen=True)

    repo: str
    filename: str | None  # None: the whole repository (a Gemma folder)
    role: str  # checkpoint, text_encoder, video_vae, audio_vae
    folder: str  # under the models folder

    def label(self) -> str:
        return f"{self.repo}/{self.filename}" if self.filename else f"{self.repo} (whole folder)"


RELEASES: dict[str, tuple[ModelFile, ...]] = {
    # LTX-2 README, "LTX-2.5": the dev transformer, the packed Gemma 4 and both VAEs
    "ltx-2.5": (
        ModelFile(
            repo="Lightricks/LTX-2.5",
            role="checkpoint",
            folder="ltx-2.5",
            filename="diffusion_models/ltx-2.5-22b-dev-transformer-bf16.safetensors",
        ),
        ModelFile(
            repo="Lightricks/LTX-2.5",
            role="text_encoder",
            folder="ltx-2.5",
            filename="text_encoders/gemma4-12b-with-proj-ltx-2.5-bf16.safetensors",
        ),
        ModelFile(
            repo="Lightricks/LTX-2.5",
            role="video_vae",
            folder="ltx-2.5",
            filename="vae/ltx-2.5-video-vae-bf16.safetensors",
        ),
        ModelFile(
            repo="Lightricks/LTX-2.5",
            role="audio_vae",
            folder="ltx-2.5",
            filename="vae/ltx-2.5-audio-vae-bf16.safetensors",
        ),
    ),
    # MODELS-LTX-2.3.md: the unified dev checkpoint and the Gemma 3 root it declares
    "ltx-2.3": (
        ModelFile(
            repo="Lightricks/LTX-2.3",
            role="checkpoint",
            folder="ltx-2.3",
            filename="ltx-2.3-22b-dev.safetensors",
        ),
        ModelFile(
            repo="google/gemma-3-12b-it-qat-q4_0-unquantized",
            role="text_encoder",
            folder="gemma-3-12b-it",
            filename=None,
        ),
    ),
}


class Offer(BaseModel):
    model_config = ConfigDict(frozen=True)

    file: ModelFile
    dest: Path  # the folder it is downloaded into
    size_bytes: int | None
    free_bytes: int
    gated: bool
    token: bool
    refusal: str = ""  # why it cannot be downloaded now; "" when it can
    # 1: the machine or the Hub failed (no disk, no answer, a malformed one); 2: the user's
    # account or settings (gated terms, no token)
    refusal_code: int = 2

    def line(self) -> str:
        size = size_text(self.size_bytes) if self.size_bytes else "size unknown"
        text = (
            f"{self.file.role.replace('_', ' ')}: {self.file.label()} ({size}) into "
            f"{self.dest}; {self.free_bytes / GB:.0f} GB free there"
        )
        if self.gated:
            text += (
                f"; gated: accept the terms at https://huggingface.co/{self.file.repo} "
                "with the account of your token"
            )
        return text + ("" if self.token else "; no Hugging Face token found")


def size_text(size: int) -> str:
    """1.2 GB, 3.4 MB or 4.0 KB: a small file is not shown as 0.0 GB."""
    for unit, scale in (("GB", GB), ("MB", 1e6)):
        if size >= scale / 10:
            return f"{size / scale:.1f} {unit}"
    return f"{size / 1e3:.1f} KB"


def models_dir(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    given = env.get("LTX_MODELS_DIR")
    return Path(given).expanduser() if given else Path(env.get("HOME", "~")).expanduser() / "models"


def _free_bytes(path: Path) -> int:
    probe = path
    while not probe.exists() and probe.parent != probe:
        probe = probe.parent
    try:
        return shutil.disk_usage(probe).free
    except OSError as exc:
        raise UsageError(
            f"the models folder {path} cannot be checked ({exc.strerror}): set "
            "LTX_MODELS_DIR to a folder you can write to"
        ) from None


def _hub() -> Any:
    try:
        import huggingface_hub
    except ImportError:
        raise UsageError(
            "downloads need huggingface_hub: pip install 'ltx-wizard[download]' "
            "(or pip install huggingface_hub)"
        ) from None
    # its retries log a warning each ("Trying to resume download..."): the failure, if it comes,
    # is one line of ours (hub_answers.py), and the TUI's screen is no place for its log
    from huggingface_hub.utils import logging as hub_logging

    hub_logging.set_verbosity_error()  # type: ignore[no-untyped-call]  # unannotated upstream
    return huggingface_hub


def make_offers(
    release: str, roles: list[str] | None = None, *, env: Mapping[str, str] | None = None
) -> list[Offer]:
    """One offer per file of `release` (only `roles` when given), each with its refusal."""
    if release not in RELEASES:
        raise UsageError(f"release {release!r} is not one the trainer's docs name: {', '.join(RELEASES)}")
    env = os.environ if env is None else env
    hub = _hub()
    endpoint = env.get("HF_ENDPOINT") or None
    token = _token(hub)
    api = hub.HfApi(endpoint=endpoint, token=token)
    root = models_dir(env)
    infos: dict[str, Any] = {}
    offers = []
    for file in RELEASES[release]:
        if roles is not None and file.role not in roles:
            continue
        dest = root / file.folder
        offers.append(_offer(hub, api, infos, file, dest, token))
    return offers


def _token(hub: Any) -> str | None:
    """The hub's own token resolution, once its saved token file is known to be a small regular
    file (the hub opens it plainly: a FIFO there would hang it, /dev/zero fill memory)."""
    saved = Path(hub.constants.HF_TOKEN_PATH)
    if os.path.lexists(saved):
        read_bytes(saved, what="the saved Hugging Face token", limit=TOKEN_MAX_BYTES)
    token: str | None = hub.get_token()
    return token


def _offer(
    hub: Any, api: Any, infos: dict[str, Any], file: ModelFile, dest: Path, token: str | None
) -> Offer:
    free = _free_bytes(dest)
    base = dict(file=file, dest=dest, free_bytes=free, token=bool(token))
    try:
        if file.repo not in infos:
            infos[file.repo] = api.model_info(file.repo, files_metadata=True)
        info = infos[file.repo]
        sizes = siblings(info, file.repo)  # every name and size checked (hub_answers.py)
    except Exception as exc:  # noqa: BLE001 - offline, no such repo, a malformed answer
        cause = hub_failure(exc, repo=file.repo, dest=dest, what=f"asking the Hub about {file.repo}")
        return Offer(**base, size_bytes=None, gated=False, refusal=cause.message, refusal_code=1)
    if file.filename is not None and file.filename not in sizes:
        return Offer(
            **base,
            size_bytes=None,
            gated=False,
            refusal_code=1,
            refusal=f"the Hub lists no {file.filename} in {file.repo}: the release "
            "changed; download it with `hf download` and pass the path",
        )
    size = sizes[file.filename] if file.filename else sum(sizes.values())
    gated = bool(getattr(info, "gated", False))
    offer = Offer(**base, size_bytes=size, gated=gated)
    refusal = _refusal(hub, api, offer, token)
    # no room, or the access check found no answer: the machine's side
    code = 1 if refusal.startswith(("needs ", "cannot check")) else 2
    return offer.model_copy(update={"refusal": refusal, "refusal_code": code})


def _refusal(hub: Any, api: Any, offer: Offer, token: str | None) -> str:
    need = offer.size_bytes or 0
    if need > offer.free_bytes:
        return (
            f"needs {need / GB:.1f} GB but {offer.dest} has {offer.free_bytes / GB:.1f} GB "
            "free: free some space, or set LTX_MODELS_DIR to a larger disk"
        )
    if offer.gated and not token:
        return (
            f"{offer.file.repo} is gated: accept its terms at "
            f"https://huggingface.co/{offer.file.repo}, then log in (hf auth login) or set "
            "HF_TOKEN"
        )
    if offer.gated:
        try:
            api.auth_check(offer.file.repo, token=token)
        except hub.errors.GatedRepoError:
            return (
                f"your Hugging Face token has no access to {offer.file.repo}: accept its "
                f"terms at https://huggingface.co/{offer.file.repo} with that account"
            )
        except Exception as exc:  # noqa: BLE001 - the network or the Hub: one line, as above
            cause = hub_failure(exc, repo=offer.file.repo, dest=offer.dest, what="checking access")
            return f"cannot check access to {offer.file.repo}: {cause.message}"
    return ""


def download(
    offer: Offer, *, env: Mapping[str, str] | None = None, on_bytes: Callable[[int], None] | None = None
) -> Path:
    """Download an accepted offer (resumable: a rerun continues a partial file); returns the
    file (or folder) the Paths screen and `plan` then check like a typed path. Any failure is one
    WizardError with its cause and next step (hub_answers.py); the partial file stays in the
    hub's hidden `.cache/huggingface/download/` below the destination, where no check looks."""
    if offer.refusal:
        raise UsageError(offer.refusal)
    env = os.environ if env is None else env
    hub = _hub()
    endpoint = env.get("HF_ENDPOINT") or None
    what = f"the download of {offer.file.label()}"
    try:
        offer.dest.mkdir(parents=True, exist_ok=True)
        token = _token(hub)
        if offer.file.filename is None:
            hub.snapshot_download(offer.file.repo, local_dir=offer.dest, endpoint=endpoint, token=token)
            return offer.dest
        path = Path(
            hub.hf_hub_download(
                offer.file.repo, offer.file.filename, local_dir=offer.dest, endpoint=endpoint, token=token
            )
        )
        got = path.stat().st_size
    except Exception as exc:  # noqa: BLE001 - the network, the Hub, the disk: one line each
        raise hub_failure(exc, repo=offer.file.repo, dest=offer.dest, what=what) from None
    if offer.size_bytes and got != offer.size_bytes:
        _remove_short(path)
        raise WizardError(
            f"{what} ended at {got} of {offer.size_bytes} bytes (the Hub's "
            "answer was cut short): run it again"
        )
    if on_bytes is not None:
        on_bytes(got)
    return path


def _remove_short(path: Path) -> None:
    """A short file at the final path would pass a header-only check later: it goes."""
    with contextlib.suppress(OSError):
        path.unlink()
