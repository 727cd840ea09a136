"""F1 help, one entry per screen or dialog: what it does, what each choice means, what comes next.

Keyed by the class name of the screen on top, so this module imports no screen.
"""

from __future__ import annotations

HELP: dict[str, tuple[str, str]] = {
    "ProbeScreen": ("Step 1 · GPUs", """\
**What it does.** Reads the GPUs training will see (NVML, else `nvidia-smi`), honouring
`CUDA_VISIBLE_DEVICES` as CUDA does, and picks the tier of the *smallest* one.

**The tier** decides the base config, one of the trainer's own shipped files:
- 32GB tier: `t2v_lora_low_vram.yaml` (INT8 quantization, 8-bit AdamW, lower LoRA rank)
- 40–60GB tier: the same low-VRAM file; autotune relaxes it on measured headroom
- 80GB+ tier: `t2v_lora.yaml`

{levers}

**Choices.** Continue (ctrl+n) goes on; Re-probe (ctrl+r) reads the GPUs again.
`CUDA_VISIBLE_DEVICES` comes from the shell that started the wizard: to change it, quit
and start the wizard again with the new value.

**If the probe fails** inside a container, NVML is often missing: start the container with
`--gpus all` (NVIDIA Container Toolkit), or plan for another box with
`ltx-wizard probe --from-csv FILE`.

**Next.** Below 32 GB a gate asks whether to go on at your own risk; unknown memory (GB10,
MIG) is asked for; then the model paths."""),
    "PathsScreen": ("Step 2 · Model, data and trainer paths", """\
**What it does.** Checks each path as you type, reading file headers only (milliseconds).

**Fields.**
- *Checkpoint*: the LTX `.safetensors` (a unified file, or the transformer of a split pack).
- *Gemma text encoder*: the Gemma folder that matches the checkpoint (a packed `.safetensors`
  for a split pack). The check says when the two do not fit together.
- *Video/Audio VAE*: shown only for a split pack, which needs both.
- *Data root*: the folder the trainer's `scripts/process_dataset.py` wrote (it holds
  `latents/` and `conditions/`; by default `.precomputed` beside your dataset file), or the
  dataset file itself (`dataset.json`, `.jsonl` or `.csv` with `caption` and `video` columns):
  its clips are checked now (frames, size, rotation and sound, read as the trainer reads them)
  and encoded after approval, one sample before autotune and all of them after. Then give the
  bucket (WxHxF) and an optional trigger word below it.
- *Trainer checkout*: your clone of LTX-2 (the monorepo root, where `uv sync` ran).
- *Training mode*: LoRA, or a full fine-tune (2+ GPUs of the 80GB+ tier).

**Keys.** Tab moves between fields, → accepts a path completion, F2 picks from the files found in
`/models`, `~/models`, `$LTX_MODELS_DIR` and the Hugging Face cache. F3 offers the model files the
trainer's docs name for download (size, free disk, gated terms, token), one at a time, each only
after y.

**Next.** Continue (ctrl+n) prepares the plan; nothing is written yet."""),
    "SetupScreen": ("Setting up the trainer", """\
**What it does.** Shown after the probe when something the trainer needs is missing: uv, the
LTX-2 checkout, its environment (`uv sync`), or an update of a checkout too old for your models.

**Each offer** says what it will do, the commands it runs and how big it is; it runs only when
you answer y (n skips it). uv is installed with pip into the wizard's own environment and used
by its path: no shell pipe, no new shell, no shell rc file or system setting changed. An
existing checkout is only touched by an offer you accept.

**While it runs** the progress and the last lines show; the whole output is in the setup log
named at the end. Esc stops a running step.

**Next.** Continue (ctrl+n): what you want the model to learn. `ltx-wizard setup` offers the
same on the command line (`--yes` for scripts)."""),
    "IntentScreen": ("What should the model learn?", """\
**What it does.** Maps what you want, in plain words, to one of the trainer's shipped configs
(the trainer team's mode selector). Pick an answer, or type your own words and press Enter.

**A style, character or concept LoRA** asks how you will use it: from text alone (`t2v_lora`),
from a starting image, or both / not sure (`i2v_lora`: its first-frame condition at probability
0.5 learns image-to-video and text-to-video in one run).

**One follow-up** where the answer is ambiguous (forward or backward, video or audio...).

**Next.** Confirm (ctrl+n) states the mode and goes on: to preparing your clips when no data
is given yet, else to the paths, whose Recipe list can still change it; Skip (ctrl+s) keeps the
Recipe list's default."""),
    "PrepareScreen": ("Step 2 · Prepare your clips", """\
**What it does.** Makes your raw clips into the dataset file the trainer's preprocessing reads,
in a run folder: `<run>/dataset/dataset.json`. Your files are linked there, never moved or
changed; everything made (scenes, upright copies, captions) stays in the run folder.

**In order.**
- *Audit*: every clip read as the trainer reads it (PyAV): frames and rate, size and the share
  the bucket's center crop keeps, rotation (a phone clip would train sideways: an upright copy is
  offered), sound (a clip without it is left out by an audio recipe), and whether the trainer's
  environment can decode sound at all. A bucket is suggested from the clips.
- *Scenes*: with the box ticked (or one video given), long videos go through the trainer's
  `scripts/split_scenes.py`; the scene count is shown before they replace the video.
- *Captions*: `scripts/caption_videos.py` with Gemini (a GEMINI_API_KEY), else the local
  Qwen3-Omni server on a GPU with 40 GiB free (started, then stopped before preprocessing), else
  your captions file. Three captions come first, in full: approve them, give an instruction, or
  stop. A clip the captioner fails on is named.
- *Held out*: about 10 % kept aside in `holdout.jsonl` for the evaluation after training (for a
  small set you choose 1, 2 or none), or your own held-out file or folder.

**The trigger word** is never written into the captions: preprocessing prepends it.

**Keys.** ctrl+n prepares, then continues to the paths with the dataset file, its bucket and
trigger word filled in. F4 skips (your data is ready: a dataset file or a `.precomputed` folder).
Esc cancels a running step (what was made is kept), else goes back."""),
    "SpotCheckDialog": ("The caption spot check", """\
Three captions from the captioner's default prompt, in full, before the other clips are
captioned. a approves; i asks for an instruction (what to change) and captions the same three
again with it; Esc stops (only the samples were captioned)."""),
    "HoldoutDialog": ("Held-out samples", """\
A few samples kept out of training so the evaluation after it can test clips the model never
saw. With tens of samples each one matters: 1 or 2 reserves that many, 0 skips (the evaluation
then only shows in-distribution prompts)."""),
    "SummaryScreen": ("Step 3 · The plan", """\
**What it shows.** The tier, the base config and its key choices, the run folder, the launch
command, any warnings, `plan.md` (p) and the diff against the shipped config (d). Scroll with
the arrow keys, PageUp/PageDown, Home/End.

**Choices.**
- *Approve + autotune* (a): writes the run folder, then runs a few short trials on your GPU.
- *Approve, skip* (s): writes the run folder, runs what training still needs (for a run
  planned from your clips: their preprocessing), then opens the launch step.
- *Back* (Esc): change the paths.

**What gets written.** `plan.md`, `config.yaml` (the shipped file with only paths and the
multi-GPU rules changed), `run.json`, `launch.sh`, and the folders `outputs/` and `logs/`.
An existing plan is never overwritten without asking."""),
    "ResultsScreen": ("After training · evaluation renders", """\
**What it does.** Renders prompts with the trained LoRA and without it (the base model, same seed
and settings), through the trainer's own validation (a validate-only run) and, where your checkout
has `ltx-pipelines` with your mode's entry point and its files, through production inference too;
then shows each render's keyframes here.

**The prompts**, in three groups: in-distribution (3 of your training captions, seed 42),
out-of-distribution (your own prompts, or three written with your trigger word), and held-out
(`dataset/holdout.jsonl`, when one was kept aside; else it says it was skipped).

**Production inference** runs the entry point of the run's mode, fed what the trainer's sample
of the same prompt was fed: `ti2vid_one_stage` for text-to-video and image-to-video (`--image`:
a clip's first frame saved as a PNG in `outputs/eval/inputs`), `ic_lora` for an IC-LoRA (the
reference video; needs the distilled checkpoint and the spatial upscaler beside your
checkpoint), `a2vid_two_stage` for audio-to-video (the audio; needs the distilled LoRA and the
upscaler), `t2a_one_stage` for text-to-audio. Other modes say why none runs. Each render's label
names the entry point; the line under the prompt says what it was fed.

**The pictures.** Kitty graphics in kitty and Ghostty, Sixel in WezTerm, iTerm2, foot and mlterm,
half-blocks everywhere else (plain SSH too), chosen from what the terminal says of itself;
`--graphics kitty|sixel|halfblocks` (or `LTX_WIZARD_GRAPHICS`) sets it. In tmux, Kitty images need
`set -g allow-passthrough on`; when a richer protocol draws them, or tmux blocks one, the line
under the title says so and why.

**Keys.** e edits the prompts, s starts the renders in the background (their own log and pid: they
survive the wizard), x stops them; ↑↓ picks a prompt; p / b play its render with / without the
LoRA where a terminal player is installed; c copies an `scp` line for the file.

**What it does not do.** Judge: the renders are laid out side by side, the quantization they ran
under beside them; deciding whether the LoRA learned is yours.

**Files.** `outputs/eval/<group>/NN_<prompt>.mp4` (and `.base.mp4` without the LoRA,
`.pipelines.mp4` through ltx-pipelines) with `prompts.json` naming each file's prompt, seed, path
and entry point; `run-summary.md` lists them."""),
    "PreprocessScreen": ("Preprocessing your clips", """\
**What it does.** Runs the trainer's `scripts/process_dataset.py` with the arguments the plan
decided (checkpoint, Gemma, VAEs, bucket, trigger word), and checks what it wrote.

**The order** (the trainer team's skill): one clip first, into `<run>/overfit/.precomputed`, so
autotune's trials run at your bucket in minutes; then, after autotune, every clip into the data
root. A step already done is not run again; an interrupted one resumes (the script skips what it
wrote). An existing data root is never overwritten.

**Keys.** r retries a failed step; Esc goes back (not while the script runs)."""),
    "DoneScreen": ("Step 5 · Start training", """\
**What it shows.** The run folder and `bash <run>/launch.sh`, the one command that starts the
full run: it changes to the trainer folder, sets the environment, appends output to
`logs/train.log` and writes the trainer's pid to `logs/train.pid`.

**Choices.**
- *Copy command* (c): sends the line to your clipboard with OSC 52. Over SSH this needs a
  terminal that allows it; inside tmux add `set -g set-clipboard on` to `~/.tmux.conf`.
  Selecting the line with the mouse works too.
- *Start training* (t): runs `launch.sh` in the background; it keeps running after you quit
  or lose the SSH connection. Follow it with `tail -f <run>/logs/train.log`.
- *Quit* (q or ctrl+q): prints the run folder, the command, the log path and any pid.

**After training.** LoRA weights land in `<run>/outputs/checkpoints/lora_weights_step_*.safetensors`.
Starting it opens the Monitor (step 6), which also resumes a stopped run."""),
    "MonitorScreen": ("Step 6 · Monitor", """\
**What it shows.** The training run of this folder, read again every 2 seconds: live (pid and
start time) or finished, failed, stopped; step and progress; the recent loss and a plot of the
loss over the whole run (NaN said as NaN); the pace in s/step and an ETA, each saying its
source: steady steps (no save or validation in them) or the trainer's own projection (its
`Total Time`, saves and validation included; used when every printed step saved a checkpoint,
and on long runs); memory and utilisation of the run's GPUs; the latest checkpoint and
validation samples; the attention backend and the W&B URL when the log names them; the log's
last lines. `ltx-wizard status RUN` prints the same (`--json`, `--watch`).

**Choices.** Copy path (y): the latest checkpoint (after a NaN loss, the last one saved while
the loss was finite). Stop (s): asks, then stops the trainer and every rank. Resume (r), for a
run that is not running and has such a checkpoint (a finished one once optimization.steps is
raised): says what its training state restores, shows the change to `model.load_checkpoint`
(a new `output_dir` when restarted step numbers would overwrite a checkpoint; the earlier
samples of the resume step moved aside), writes it only after yes (the old config kept as a
numbered `config.before-resume.yaml`), then asks before starting. Apply fix (f), after a
failure: the next of the trainer's fixes for that kind of failure that config.yaml does not
have, as a diff; nothing restarts by itself.

**When it finishes.** `run-summary.md` is written into the run folder."""),
    "ExistingRunScreen": ("An existing run folder", """\
**What it does.** This folder already holds a plan; nothing here writes.

**Choices.**
- *Resume autotune* (r): probes the GPUs and continues from `autotune.log`; finished trials
  are not run again.
- *View plan* (v): shows `plan.md` below.
- *New run* (n): starts the wizard over and plans a new folder; this one is left as it is.

To start training from this folder without the wizard: `bash <run>/launch.sh`."""),
    "GateDialog": ("Below the 32 GB minimum", """\
The trainer's authors ship no config tested below 32 GB per GPU.

- *Abort* (a or Esc): leaves the wizard with exit code 3; nothing is written.
- *Try anyway* (t): plans with the low-VRAM config, marked "at your own risk" in `plan.md`.
  Autotune's baseline will show quickly whether it fits.

On the command line the same choice is `--accept-risk`."""),
    "VramAskDialog": ("GPU memory unknown", """\
Some GPUs do not report their memory (GB10 with unified memory, MIG inside a container).
Type the GB per GPU that training may use; it picks the tier. On the command line this is
`--vram-gb N`. Esc goes back."""),
    "PickDialog": ("Files found on disk", """\
Files found in `/models`, `~/models`, `$LTX_MODELS_DIR` and the Hugging Face cache, best first;
dim entries cannot be used (the reason is shown). Enter picks one; picking a checkpoint also
fills its matching Gemma and VAEs. Esc goes back."""),
    "DownloadDialog": ("Download models", """\
5 or 3 picks the release; then each file is offered alone: y downloads it (resumable) into
`$LTX_MODELS_DIR` or `~/models`, n skips it. A gated file needs its terms accepted on the model page
and a token (`hf auth login` or `HF_TOKEN`); Esc closes (what was downloaded fills the fields)."""),
    "ConfirmDialog": ("A question", "y answers yes, n or Esc answers no (the safe default)."),
    "ConfigChangeDialog": ("A change to config.yaml", """\
The diff shows exactly what would change in `config.yaml` (lines with - go, lines with + come).
y writes it (the previous file is kept beside it); n or Esc leaves everything as it is. Starting
the run again is a question of its own."""),
}

GENERIC = ("Help", "Ctrl+q quits. Tab moves between controls. The footer lists this screen's keys.")


def autotune_help() -> tuple[str, str]:
    """Built from the engine's own constants and rules (core/tuning/rules_text.py)."""
    from ltx_wizard.core.tuning import rules_text

    return ("Step 4 · Autotune", f"""\
**What it does.** {rules_text.trials_sentence()} {rules_text.keep_rules()} It stops on
out-of-memory, on no gain, or at the trial limit; the winner gets one confirmation run with its
own validation and is patched into `config.yaml`. Every trial is logged in `autotune.log`; the
table's Reason column says why each was kept or rejected.

**Choices.** Cancel (c or Esc) asks first, stops the running trial's whole process group and
patches the best result so far into `config.yaml` (without its confirmation run); resuming
autotune goes on from there. Continue (ctrl+n) once it ends.

**If the baseline runs out of memory**, the planned config does not fit this GPU: preprocess
smaller clips (`process_dataset.py` with smaller `--resolution-buckets`) and plan again.

**Next.** The launch step.""")


def tier_levers_text() -> str:
    from ltx_wizard.core.tuning import rules_text
    from ltx_wizard.core.gpu.tiers import Tier

    lines = [f"- {tier.display_name}: {rules_text.levers_list(tier) or 'the baseline only'}"
             for tier in (Tier.T32, Tier.T40_60, Tier.T80)]
    return ("**What autotune tries** on each tier's base config, in order, each on the best so "
            "far:\n" + "\n".join(lines))


_BUILT = {"AutotuneScreen": autotune_help}


def help_for(screen_name: str) -> tuple[str, str]:
    if screen_name in _BUILT:
        return _BUILT[screen_name]()
    title, body = HELP.get(screen_name, GENERIC)
    if screen_name == "ProbeScreen":
        body = body.replace("{levers}", tier_levers_text())
    return title, body
