"""After training: the post-training evaluation (the train-model skill's Phase 9).

The three prompt categories, the validate-only `eval-config.yaml` the trainer renders them through
(with and without the LoRA, at the same seed and settings), the same prompts through ltx-pipelines
where the checkout has it, the background job that runs them, the outputs laid out per category
with `prompts.json`, the keyframes the Results screen draws, and run-summary.md's lines. It shows
and lays out; it never judges a render.
"""
