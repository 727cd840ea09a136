"""The Results screen's F1 help (dialogs/help.py shows it): what the post-training evaluation
does, what it renders and how, its keys, and the files it writes."""

from ltx_wizard.core.base import phases

RESULTS_HELP = (
    phases.RESULTS.f1_title,
    """\
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

**Keys.** Edit prompts (e); Start (s) runs the renders in the background (their own log and pid:
they survive the wizard), Stop (x) stops them; ↑↓ picks a prompt; Play (p) and Play base (b) play
its render with and without the LoRA where a terminal player is installed; Copy scp line (c)
copies one `scp` line for the prompt's renders and the checkpoint they were made with (OSC 52;
the toast shows the line to select where the terminal does not take it); Grid (g); Pick checkpoint (k);
Back (Esc).

**Which checkpoint.** Once `ltx-wizard compare` ran, the line under the title gives its
recommendation and its reason (from `outputs/compare/compare.json`) and the checkpoint you picked.
Pick checkpoint (k) lists the compared checkpoints with their held-out and training loss, effect
and health; Enter records the one highlighted in `outputs/compare/pick.json` (as
`ltx-wizard pick RUN STEP` does), and run-summary.md's render line then uses it.

**The tournament.** Once compare rendered (without `--no-render`), Grid (g) shows
`outputs/compare/grid.json`: a row for the base model and one per compared checkpoint, a column per
prompt, each cell its render's first keyframe (or why it is missing). The arrow keys move, Enter opens
the cell large (its keyframes across the screen), Esc closes it, k picks the selected row's
checkpoint, g goes back to the evaluation.

**What it does not do.** Judge: the renders are laid out side by side, the quantization they ran
under beside them; deciding whether the LoRA learned is yours.

**Files.** `outputs/eval/<group>/NN_<prompt>.mp4` (and `.base.mp4` without the LoRA,
`.pipelines.mp4` through ltx-pipelines) with `prompts.json` naming each file's prompt, seed, path
and entry point; `run-summary.md` lists them.""",
)
