"""Which folders of the data root a training strategy reads: the trainer's one data rule.

The trainer asks its `training_strategy` for `get_data_sources()` (folder name under
`data.preprocessed_data_root` -> the key the dataset exposes it under), refuses a config whose
folders are missing, and keeps a sample only when every folder holds its file. This module is the
wizard's single copy of that rule, for every recipe: `check`, the Paths screen, `plan`, the trial
subset and the simulated trainer all ask `required_folders` (data_root.py walks the folders).

A strategy block is the parsed `training_strategy:` mapping of a config (any recipe's); the rule
reads only the keys named here and leaves the rest of the schema to the trainer.
"""

from __future__ import annotations

from typing import Any, Mapping

from ltx_wizard.core.base.errors import UsageError

# The `training_strategy` block of the shipped t2v_lora.yaml / t2v_lora_low_vram.yaml: video and
# audio both generated. Used where no config has been read yet (`check` without a checkout).
SHIPPED_T2V_STRATEGY: dict[str, Any] = {
    "name": "flexible",
    "video": {"is_generated": True, "latents_dir": "latents"},
    "audio": {"is_generated": True, "latents_dir": "audio_latents"},
}

CONDITIONS = "conditions"  # text embeddings: every strategy reads them
LATENTS = "latents"


def strategy_name(strategy: Mapping[str, Any]) -> str:
    # mirrors ltx_trainer/config.py _get_strategy_discriminator: a block without `name` is text_to_video
    name = strategy.get("name", "text_to_video")
    if name not in ("flexible", "text_to_video", "video_to_video"):
        raise UsageError(
            f"training_strategy.name {name!r} is not one the trainer knows (flexible,"
            " text_to_video, video_to_video): fix the config"
        )
    return str(name)


def required_folders(strategy: Mapping[str, Any] | None) -> dict[str, str]:
    """Folder under the data root -> what the trainer loads from it, in the trainer's order.

    None (no `training_strategy` key) is the trainer's default strategy, text_to_video.
    """
    strategy = {} if strategy is None else strategy
    if not isinstance(strategy, Mapping):
        raise UsageError("training_strategy is not a section of keys: fix the config")
    name = strategy_name(strategy)
    if name == "text_to_video":
        # mirrors ltx_trainer/training_strategies/text_to_video.py TextToVideoConfig.get_data_sources
        sources = {LATENTS: "latents", CONDITIONS: "conditions"}
        if strategy.get("with_audio", False) is True:
            sources[_dir(strategy, "audio_latents_dir", "audio_latents")] = "audio_latents"
        return sources
    if name == "video_to_video":
        # mirrors ltx_trainer/training_strategies/video_to_video.py VideoToVideoConfig.get_data_sources
        return {
            LATENTS: "latents",
            CONDITIONS: "conditions",
            _dir(strategy, "reference_latents_dir", "reference_latents"): "ref_latents",
        }
    # mirrors ltx_trainer/training_strategies/flexible.py FlexibleStrategyConfig.get_data_sources
    sources = {CONDITIONS: "conditions"}
    modalities = [(m, _modality(strategy, m)) for m in ("video", "audio")]
    for label, block in modalities:
        if block is not None:
            sources[_dir(block, "latents_dir", None, f"training_strategy.{label}")] = f"{label}_latents"
    for label, block in modalities:
        for i, cond in enumerate((block or {}).get("conditions") or []):
            where = f"training_strategy.{label}.conditions[{i}]"
            kind = cond.get("type") if isinstance(cond, Mapping) else None
            if kind == "reference":
                folder = _dir(cond, "latents_dir", None, where)
                sources[folder] = folder
            elif kind == "mask":
                folder = _dir(cond, "mask_dir", None, where)
                sources[folder] = folder
    return sources


def primary_folder(sources: Mapping[str, str]) -> str:
    """The folder whose files enumerate the samples."""
    # mirrors ltx_trainer/datasets.py PrecomputedDataset._discover_samples (data_key)
    return LATENTS if LATENTS in sources else next(iter(sources))


def expected_file(folder: str, primary_rel: str) -> str:
    """The file `folder` must hold for the sample whose primary file is `primary_rel`."""
    # mirrors ltx_trainer/datasets.py PrecomputedDataset._get_expected_file_path: legacy data names
    # its text embeddings condition_X.pt (at the top of conditions/) beside latents .../latent_X.pt.
    base = primary_rel.rsplit("/", 1)[-1]
    if folder == CONDITIONS and base.startswith("latent_"):
        return f"condition_{base[len('latent_') : -len('.pt')]}.pt"
    return primary_rel


def audio_folder(strategy: Mapping[str, Any] | None) -> str | None:
    """The audio latents folder the strategy trains on, or None for a video-only strategy."""
    if strategy is None or strategy_name(strategy) == "video_to_video":
        return None
    if strategy_name(strategy) == "text_to_video":
        if strategy.get("with_audio", False) is not True:
            return None
        return _dir(strategy, "audio_latents_dir", "audio_latents")
    block = _modality(strategy, "audio")
    return None if block is None else _dir(block, "latents_dir", None, "training_strategy.audio")


def video_only_change(strategy: Mapping[str, Any] | None) -> tuple[str, object] | None:
    """The one config change that trains this strategy without audio, or None when there is
    nothing to drop (no audio), when audio is an input of the recipe rather than an output
    (audio-to-video), or when nothing would be left to train (audio is the only target)."""
    folder = audio_folder(strategy)
    if folder is None or strategy is None:
        return None
    if strategy_name(strategy) == "text_to_video":
        return ("training_strategy.with_audio", False)
    audio, video = _modality(strategy, "audio"), _modality(strategy, "video")
    if audio is None or audio.get("is_generated") is not True:
        return None
    # mirrors flexible.py FlexibleStrategyConfig.validate_at_least_one_generated
    if video is None or video.get("is_generated") is not True:
        return None
    return ("training_strategy.audio", None)


def video_only(strategy: Mapping[str, Any]) -> dict[str, Any]:
    """The strategy after `video_only_change`: what the trainer then reads."""
    change = video_only_change(strategy)
    out = dict(strategy)
    if change is not None:
        out[change[0].rsplit(".", 1)[1]] = change[1]
    return out


def _modality(strategy: Mapping[str, Any], label: str) -> Mapping[str, Any] | None:
    block = strategy.get(label)
    if block is not None and not isinstance(block, Mapping):
        raise UsageError(f"training_strategy.{label} is not a section of keys: fix the config")
    return block


def _dir(block: Mapping[str, Any], key: str, default: str | None, where: str = "training_strategy") -> str:
    value = block.get(key, default)
    if not isinstance(value, str) or not value.strip():
        raise UsageError(f"{where}.{key} is {value!r}, not a folder name: fix the config")
    return value
