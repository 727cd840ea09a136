"""What a bare box lacks for the trainer, and the offer that fixes each (the skill's onboarding
reference, "Auto-Setup"): uv, the checkout (a clone), an update of a checkout too old for the
checkpoint or for the wizard (`git pull --ff-only`; core/inputs/checkout.py `older_layout`), the checkout's environment (`uv sync`, then the trainer's import
checked). Each offer says what it will do and how big it is; nothing runs here.

Never offered: shell rc files, system packages (git itself), anything in an existing folder that is
not an LTX-2 checkout. An existing checkout is only ever touched by an offer the user accepts.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Iterable, Mapping

from ltx_wizard.core.base.records import record
from ltx_wizard.core.inputs.checkout import TRAINER_REL, TRAINER_REPO, missing_parts, older_layout, sync_gap
from ltx_wizard.core.inputs.checkout_caps import CheckoutCaps, read_caps
from ltx_wizard.core.inputs.uv_tool import find_git, find_uv, own_scripts_dir, pip_available, uv_install_argv
from ltx_wizard.core.inputs.version_fit import Misfit
from ltx_wizard.core.setup import sizes
from ltx_wizard.core.setup.interrupted_clone import finish_argvs, interrupted_clone, remove_line
from ltx_wizard.core.setup.run_step import Step, shown

IMPORT_CHECK = "import ltx_trainer"


@record
class Offer:
    key: str  # uv, clone, pull, sync
    title: str
    does: str  # what it will do, in words
    size: str
    steps: tuple[Step, ...]
    needs: str | None = None  # an earlier offer this one cannot run without
    lock_root: Path | None = None  # a sync's checkout: its size is read from there when shown

    def size_now(self) -> str:
        """The size as the disk says it when the offer is shown: a sync offered before the clone
        reads the clone's uv.lock once the clone is there (or says it has none)."""
        return sizes.lock_download_size(self.lock_root) if self.lock_root is not None else self.size

    def commands(self) -> tuple[str, ...]:
        return tuple(shown(s.argv) + (f"   (in {s.cwd})" if s.cwd else "") for s in self.steps)


@record
class Survey:
    root: Path  # where the checkout is, or will be cloned
    uv: str | None  # the uv the wizard runs (a full path), None when missing
    uv_how: str = ""
    # missing | present | old (an LTX-2 checkout older than the layout the wizard reads) | foreign
    # | interrupted (a clone stopped before its checkout: interrupted_clone.py)
    checkout: str = "missing"
    synced: bool = False
    caps: CheckoutCaps | None = None
    misfits: tuple[Misfit, ...] = ()
    offers: tuple[Offer, ...] = ()
    notes: tuple[str, ...] = ()  # what is in place, and what the wizard cannot do itself

    @property
    def ready(self) -> bool:
        return (
            self.uv is not None
            and self.checkout == "present"
            and self.synced
            and not any(m.part == "trainer_root" for m in self.misfits)
        )


def default_root(env: Mapping[str, str]) -> Path:
    return Path(env.get("HOME", "~")).expanduser() / "LTX-2"


def _state(root: Path) -> str:
    if not root.exists():
        return "missing"
    if root.is_dir() and not missing_parts(root):
        return "present"
    if root.is_dir() and older_layout(root) is not None:
        return "old"
    if root.is_dir() and not any(root.iterdir()):
        return "missing"  # an empty folder: git clones into it
    return "interrupted" if root.is_dir() and interrupted_clone(root) else "foreign"


def _uv_offer(
    env: Mapping[str, str], notes: list[str], fetch: sizes.Fetch
) -> tuple[str | None, Offer | None]:
    found = find_uv(env)
    if found is not None:
        notes.append(f"uv: {found.path} ({found.how})")
        return found.path, None
    if not pip_available():
        notes.append(
            "uv is missing and the wizard's environment has no pip to install it with: "
            "install uv yourself (https://docs.astral.sh/uv/), then run setup again"
        )
        return None, None
    target = own_scripts_dir() / "uv"
    return str(target), Offer(
        key="uv",
        title="Install uv (the tool the trainer runs under)",
        does=(
            f"pip installs the `uv` package into the wizard's own environment ({target}); "
            "the wizard runs it by that path: no shell pipe, no new shell, no rc file changed"
        ),
        size=sizes.uv_wheel_size(fetch),
        steps=(Step(argv=uv_install_argv(), label="pip install uv"),),
    )


def _clone_offer(
    root: Path, repo: str, env: Mapping[str, str], notes: list[str], fetch: sizes.Fetch
) -> Offer | None:
    git = find_git(env)
    if git is None:
        notes.append(
            "git is not installed: the wizard does not install system packages "
            "(on Debian/Ubuntu: apt install git)"
        )
        return None
    return Offer(
        key="clone",
        title="Clone the LTX-2 trainer",
        does=f"git clones {repo} into {root} (a new folder; nothing else is touched)",
        size=sizes.repo_size(repo, fetch),
        steps=(
            Step(
                argv=(git, "clone", "--progress", repo, str(root)),
                label=f"git clone into {root}",
                progress="git",
            ),
        ),
    )


def _finish_offers(root: Path, uv: str | None, env: Mapping[str, str], notes: list[str]) -> list[Offer]:
    """An interrupted clone: finishing it offered, removing it said (interrupted_clone.py)."""
    notes.append(
        f"{root} holds a git clone that was interrupted before its files were checked out: "
        f"finish it (offered below), or remove it with `{remove_line(root)}` and run setup again"
    )
    git = find_git(env)
    if git is None:
        notes.append("git is not installed: the wizard does not install system packages (apt install git)")
        return []
    fetch, *rest = finish_argvs(git, root)
    steps = (Step(argv=fetch, label=f"git fetch into {root}", progress="git"),) + tuple(
        Step(argv=argv, label=f"git {argv[3]} in {root}") for argv in rest
    )
    finish = Offer(
        key="finish-clone",
        title="Finish the interrupted clone of the LTX-2 trainer",
        does=f"git fetches the rest into {root} and checks out the remote's default branch there",
        size="what the interrupted clone had left to fetch",
        steps=steps,
    )
    return [finish] + ([_sync_offer(root, uv, "after the clone is finished", "finish-clone")] if uv else [])


def _sync_offer(root: Path, uv: str, why: str, needs: str | None) -> Offer:
    return Offer(
        key="sync",
        title="Install the trainer's environment (uv sync)",
        does=(
            f"{why}: uv sync in {root} installs the trainer's Python packages into "
            f"{root / '.venv'}, then checks that the trainer imports"
        ),
        size=sizes.lock_download_size(root),
        lock_root=root,
        needs=needs,
        steps=(
            Step(argv=(uv, "sync"), cwd=root, label="uv sync", progress="uv-sync"),
            Step(argv=(uv, "run", "python", "-c", IMPORT_CHECK), cwd=root, label="the trainer imports"),
        ),
    )


def _pull_offer(root: Path, env: Mapping[str, str], why: str, notes: list[str]) -> Offer | None:
    """`why`: what is too old, in words (a misfit's message up to its fix, or older_layout's)."""
    git = find_git(env)
    if git is None or not (root / ".git").exists():
        notes.append(
            f"{why} ({root} is not a git clone the wizard can update: replace it with a fresh clone)"
            if git
            else f"{why}: update it with git pull (git is not installed)"
        )
        return None
    return Offer(
        key="pull",
        title="Update the trainer checkout (git pull)",
        does=(
            f"{why}. git pull --ff-only in {root} "
            "brings its files up to date (local edits stop it rather than being lost)"
        ),
        size="the commits since your clone (git says how many as it runs)",
        steps=(
            Step(
                argv=(git, "-C", str(root), "pull", "--ff-only", "--progress"),
                label=f"git pull in {root}",
                progress="git",
            ),
        ),
    )


def _update_offer(
    root: Path, state: str, env: Mapping[str, str], misfits: tuple[Misfit, ...], notes: list[str]
) -> Offer | None:
    """`git pull` for a checkout too old for the wizard's reading of it, or for the checkpoint."""
    if state == "old":
        return _pull_offer(root, env, older_layout(root) or f"{root} is too old", notes)
    pull = next((m for m in misfits if m.fix == "pull"), None)
    return _pull_offer(root, env, pull.message.split(": update it", 1)[0], notes) if pull else None


def _checkout_offers(
    root: Path,
    repo: str,
    uv: str | None,
    uv_offer: Offer | None,
    env: Mapping[str, str],
    misfits: tuple[Misfit, ...],
    notes: list[str],
    fetch: sizes.Fetch,
) -> tuple[str, bool, list[Offer]]:
    state, offers = _state(root), []
    gap = sync_gap(root) if state in ("present", "old") else None
    synced = state == "present" and gap is None
    uv_needs = "uv" if uv_offer is not None else None
    if state == "foreign":
        notes.append(
            f"{root} exists and is not an LTX-2 checkout: the wizard leaves it alone; "
            "pass --trainer-root NEW_FOLDER to clone elsewhere"
        )
    elif state == "interrupted":
        offers += _finish_offers(root, uv, env, notes)
    elif state == "missing":
        clone = _clone_offer(root, repo, env, notes, fetch)
        if clone is not None:
            offers.append(clone)
            if uv is not None:
                offers.append(_sync_offer(root, uv, "after the clone", "clone"))
    else:
        notes.append(f"trainer checkout: {root}" + ("" if gap is None else f" (not synced: {gap})"))
        offer = _update_offer(root, state, env, misfits, notes)
        offers += [offer] if offer is not None else []
        resync = next((m for m in misfits if m.fix == "sync"), None)
        why = (
            "after the update"
            if offer is not None
            else resync.message.split(": run", 1)[0]
            if resync is not None
            else None
            if gap is None
            else f"the checkout is not synced ({gap})"
        )
        if why is not None and uv is not None and (state == "present" or offer is not None):
            offers.append(_sync_offer(root, uv, why, "pull" if offer is not None else uv_needs))
    return state, synced, offers


def survey(
    root: str | os.PathLike[str] | None = None,
    *,
    repo: str = TRAINER_REPO,
    env: Mapping[str, str] | None = None,
    misfits: Callable[[CheckoutCaps], Iterable[Misfit]] | None = None,
    fetch: sizes.Fetch | None = None,
) -> Survey:
    """What is missing and what the wizard offers for it. `misfits(caps)`: what the checkpoint
    and text encoder in hand need of this checkout (core/inputs/version_fit.py), or None."""
    env = os.environ if env is None else env
    fetch = fetch or sizes.fetch_url  # looked up now: tests replace it on the module
    where = Path(root).expanduser().absolute() if root else default_root(env)
    notes: list[str] = []
    uv, uv_offer = _uv_offer(env, notes, fetch)
    state = _state(where)
    caps = read_caps(where) if state in ("present", "old") else None
    # an old layout is offered its update whatever the checkpoint needs
    found = tuple(misfits(caps)) if misfits is not None and caps is not None and state == "present" else ()
    state, synced, offers = _checkout_offers(where, repo, uv, uv_offer, env, found, notes, fetch)
    if caps is not None:
        notes.append(f"ltx-core there: {caps.describe()}")
    notes += [m.message for m in found if m.fix in ("gemma", "overwrite")]
    found_uv = find_uv(env)
    return Survey(
        root=where,
        uv=uv if uv_offer is None else None,
        uv_how=found_uv.how if found_uv else "",
        checkout=state,
        synced=synced,
        caps=caps,
        misfits=found,
        offers=((uv_offer,) if uv_offer else ()) + tuple(offers),
        notes=tuple(notes),
    )


def trainer_dir(root: Path) -> Path:
    return Path(root) / TRAINER_REL
