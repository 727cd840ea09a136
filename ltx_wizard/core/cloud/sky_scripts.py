"""setup.sh and run.sh: what every node of the task runs, as files in <run>/sky/ (the run folder is
uploaded, so the node runs exactly the file the user can read and the tests run).

setup.sh does what `ltx-wizard setup` does on a bare box (core/setup/survey.py): uv, the trainer's
checkout (at the plan's commit, checked, so every node trains the same code), `uv sync`; then the
model files by the repo ids and file names the wizard resolved (core/inputs/model_download.py).
run.sh checks the node count and GPUs against the plan (the effective batch depends on them), the
commit again, resumes from the newest checkpoint in the mounted outputs, and runs the plan's own
launch: core/launch/launch_command.py build_launch on one node, core/launch/multinode.py's
accelerate words on several, their rank, main address and counts from SkyPilot's variables.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from ltx_wizard.core.cloud import sky_layout as at
from ltx_wizard.core.cloud.sky_request import SkyRequest
from ltx_wizard.core.io import run_folder
from ltx_wizard.core.launch.launch_command import build_launch
from ltx_wizard.core.launch.multinode import plan_multinode

# Words run.sh fills in on the node; every other word is quoted as it is.
TRAIN_CONFIG = '"$TRAIN_CONFIG"'
NODE_RANK = '"$SKYPILOT_NODE_RANK"'
MAIN_IP = '"$MAIN_IP"'
NUM_NODES = '"$NUM_NODES"'
TOTAL_GPUS = '"$TOTAL_GPUS"'
_RAW = {TRAIN_CONFIG, NODE_RANK, MAIN_IP, NUM_NODES, TOTAL_GPUS}
_SENTINEL = at.on_node(run_folder.SKY_CONFIG)  # the config word, before run.sh's own


def _word(word: str) -> str:
    """Quoted for bash; a node path is written under "$ROOT" (the tests move the root)."""
    if word in _RAW:
        return word
    if word.startswith(str(at.ROOT) + "/"):
        return '"$ROOT"' + shlex.quote(word[len(str(at.ROOT)) :])
    return shlex.quote(word)


def _fill(argv: list[str], flag: str, value: str) -> list[str]:
    out = list(argv)
    if flag in out:
        out[out.index(flag) + 1] = value
    return out


def launch_words(req: SkyRequest) -> list[str]:
    """The plan's own launch for the node layout, with SkyPilot's values where they belong."""
    if req.nodes > 1:
        multi = plan_multinode(
            nodes=req.nodes,
            gpus_per_node=req.gpus_per_node,
            training_mode=req.training_mode,
            trainer_dir=Path(at.TRAINER_DIR),
            shipped_accelerate_dir=Path(at.TRAINER_DIR / "configs" / "accelerate"),
            run_dir=Path(at.RUN),
            config=Path(_SENTINEL),
            data_root=Path(req.data_remote),
            output_dir=Path(at.OUTPUTS),
            effective_batch=req.effective_batch,
        )
        argv = multi.node_argv(NODE_RANK, MAIN_IP, TRAIN_CONFIG)
        argv = _fill(argv, "--num_machines", NUM_NODES)
    else:
        accelerate = at.on_node(run_folder.ACCELERATE) if req.run_accelerate else None
        plan = build_launch(
            Path(at.CHECKOUT),
            Path(_SENTINEL),
            req.gpus_per_node,
            req.training_mode,
            None,
            Path(accelerate) if accelerate else None,
        )
        argv = [TRAIN_CONFIG if a == str(_SENTINEL) else a for a in plan.argv]
    return _fill(argv, "--num_processes", TOTAL_GPUS)


def _download_lines(req: SkyRequest) -> list[str]:
    lines = []
    for m in req.models:
        if m.repo is None or m.local_dir is None:
            continue
        folder = m.local_dir
        files = f" {shlex.quote(m.filename)}" if m.filename else ""
        lines.append(
            f"uvx --from huggingface_hub hf download {shlex.quote(m.repo)}{files} "
            f"--local-dir {_word(str(folder))}"
        )
    return lines or ["# none: every model file is uploaded with the task (file_mounts)"]


def render_setup(req: SkyRequest) -> str:
    downloads = "\n".join(_download_lines(req))
    return f"""#!/bin/bash
# Written by ltx-wizard for run {shlex.quote(req.run_name)}: every node runs it once, before run.sh.
# What `ltx-wizard setup` does on a bare box: uv, the trainer at the plan's commit, uv sync; then
# the model files by the repo ids and names the wizard resolved.
set -euo pipefail
ROOT=${{LTX_SKY_ROOT:-{at.ROOT}}}
REPO={shlex.quote(req.repo)}
COMMIT={req.commit}
CHECKOUT={_word(str(at.CHECKOUT))}
export PATH="$HOME/.local/bin:$PATH"
fail() {{ printf 'setup.sh (node %s): %s\\n' "${{SKYPILOT_NODE_RANK:-0}}" "$*" >&2; exit 1; }}
if [ ! -w "$ROOT" ]; then sudo mkdir -p "$ROOT" && sudo chown "$(id -u):$(id -g)" "$ROOT"; fi
if ! command -v uv >/dev/null 2>&1; then
  curl -LsSf https://astral.sh/uv/install.sh | sh
fi
# The trainer at the commit the plan used: the same code on every node.
if [ ! -d "$CHECKOUT/.git" ]; then
  git clone --filter=blob:none "$REPO" "$CHECKOUT"
fi
if ! git -C "$CHECKOUT" cat-file -e "$COMMIT^{{commit}}" 2>/dev/null; then
  git -C "$CHECKOUT" fetch origin "$COMMIT"
fi
git -C "$CHECKOUT" -c advice.detachedHead=false checkout --detach "$COMMIT"
at=$(git -C "$CHECKOUT" rev-parse HEAD)
[ "$at" = "$COMMIT" ] || fail "the checkout is at $at, the plan used $COMMIT"
(cd "$CHECKOUT" && uv sync)
# The model files (gated ones need HF_TOKEN: sky jobs launch --secret HF_TOKEN).
{downloads}
"""


def render_run(req: SkyRequest) -> str:
    words = " ".join(_word(w) for w in launch_words(req))
    return f"""#!/bin/bash
# Written by ltx-wizard for run {shlex.quote(req.run_name)}: every node runs it; `run.sh task` trains,
# `run.sh smoke` trains {SMOKE_NOTE}.
set -euo pipefail
ROOT=${{LTX_SKY_ROOT:-{at.ROOT}}}
COMMIT={req.commit}
PLANNED_NODES={req.nodes}
PLANNED_GPUS={req.gpus_per_node}
export PATH="$HOME/.local/bin:$PATH"
fail() {{ printf 'run.sh (node %s): %s\\n' "${{SKYPILOT_NODE_RANK:-0}}" "$*" >&2; exit 1; }}
case ${{1:-task}} in
  task) CONFIG={_word(str(_SENTINEL))}; OUT={_word(str(at.OUTPUTS))} ;;
  smoke) CONFIG={_word(str(at.on_node(run_folder.SKY_SMOKE_CONFIG)))}; OUT={_word(str(at.SMOKE_OUTPUTS))} ;;
  *) fail "usage: run.sh task|smoke" ;;
esac
SKYPILOT_NODE_RANK=${{SKYPILOT_NODE_RANK:-0}}
NUM_NODES=${{SKYPILOT_NUM_NODES:-1}}
GPUS=${{SKYPILOT_NUM_GPUS_PER_NODE:-0}}
# The plan's effective batch holds only on the planned nodes and GPUs.
if [ "$NUM_NODES" != "$PLANNED_NODES" ] || [ "$GPUS" != "$PLANNED_GPUS" ]; then
  fail "got $NUM_NODES node(s) x $GPUS GPU(s), the plan has $PLANNED_NODES x $PLANNED_GPUS: the effective batch would change; plan again"
fi
TOTAL_GPUS=$((NUM_NODES * GPUS))
at=$(git -C {_word(str(at.CHECKOUT))} rev-parse HEAD)
[ "$at" = "$COMMIT" ] || fail "the checkout is at $at, the plan used $COMMIT"
# the first line, without a pipe: under pipefail a writer that outlives `head -n1` dies of SIGPIPE
IPS=${{SKYPILOT_NODE_IPS:-127.0.0.1}}
MAIN_IP=${{IPS%%$'\\n'*}}
mkdir -p "$OUT"/logs
cd {_word(str(at.TRAINER_DIR))}
{_resume(req)}
echo "run.sh: node $SKYPILOT_NODE_RANK of $NUM_NODES, main $MAIN_IP, config $TRAIN_CONFIG"
LAUNCH=({words})
if [ "$SKYPILOT_NODE_RANK" = 0 ]; then
  "${{LAUNCH[@]}}" 2>&1 | tee -a "$OUT"/{at.LOG_REL}
else
  "${{LAUNCH[@]}}"
fi
"""


SMOKE_NOTE = "20 steps into outputs/smoke/ (never resumed from)"


def _resume(req: SkyRequest) -> str:
    """The node's config: the planned one, or a copy that resumes from the newest checkpoint in the
    mounted outputs (the same rule as core/launch/slurm.py's requeue)."""
    resume = _word(str(at.on_node(run_folder.SKY_RESUME)))
    return f"""TRAIN_CONFIG=$(uv run --no-sync python - "$CONFIG" "$OUT" {resume} <<'PY'
import sys
from pathlib import Path

import yaml

src, out, dst = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
ckpts = out / "checkpoints"
# mirrors ltx_trainer/trainer.py LtxvTrainer._find_checkpoint: *step_*.safetensors, any depth; the
# trainer takes the highest step there and its training state beside it (_resolve_resume_state)
if ckpts.is_dir() and any(ckpts.rglob("*step_*.safetensors")):
    config = yaml.safe_load(src.read_text(encoding="utf-8"))
    config.setdefault("model", {{}})["load_checkpoint"] = str(ckpts)
    config["output_dir"] = str(out)
    dst.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    print(dst)
else:
    print(src)
PY
)"""
