"""An existing .precomputed is compared folder by folder, not only latents/: reference and audio
latents, video and audio masks and the text embeddings each have the shapes the trainer reads."""

from __future__ import annotations

from ltx_wizard.core.dataset.buckets import parse_buckets
from ltx_wizard.core.dataset.precomputed_check import verify_precomputed
from ltx_wizard.demo.lookalike_latents import (
    audio_latents,
    condition_embeddings,
    video_latents,
    write_pt,
)

BUCKET = parse_buckets("1024x576x49")
SAMPLES = ("a.pt", "b.pt")
AV = {
    "name": "flexible",
    "video": {"is_generated": True, "latents_dir": "latents"},
    "audio": {
        "is_generated": True,
        "latents_dir": "audio_latents",
        "conditions": [{"type": "mask", "mask_dir": "audio_masks"}],
    },
}
V2V = {
    "name": "flexible",
    "video": {
        "is_generated": True,
        "latents_dir": "latents",
        "conditions": [
            {"type": "reference", "latents_dir": "reference_latents"},
            {"type": "mask", "mask_dir": "video_masks"},
        ],
    },
}


def _write(root, folder, tensors, samples=SAMPLES):
    for name in samples:
        write_pt(root / folder / name, tensors)


def _v2v_root(tmp_path, *, ref=(49, 288, 512), mask=(7, 18, 32)):
    root = tmp_path / ".precomputed"
    _write(root, "latents", video_latents(49, 576, 1024))
    _write(root, "conditions", condition_embeddings())
    _write(root, "reference_latents", video_latents(*ref))
    _write(root, "video_masks", {"mask": mask})
    return root


def test_a_matching_reference_at_half_size_and_masks_of_the_target_are_reused(tmp_path):
    check = verify_precomputed(_v2v_root(tmp_path), V2V, SAMPLES, BUCKET)
    assert check.reusable, check.mismatch


def test_a_reference_that_is_no_even_fraction_of_its_target_is_named(tmp_path):
    check = verify_precomputed(_v2v_root(tmp_path, ref=(49, 576, 512)), V2V, SAMPLES, BUCKET)
    assert check.mismatch == (
        "reference_latents/a.pt has reference latents of 7x18x16, no even "
        "fraction of the target's 7x18x32 (frames x height x width)"
    )


def test_references_of_different_fractions_are_named(tmp_path):
    root = _v2v_root(tmp_path)
    write_pt(root / "reference_latents" / "b.pt", video_latents(49, 576, 1024))
    check = verify_precomputed(root, V2V, SAMPLES, BUCKET)
    assert check.mismatch.startswith("reference_latents/b.pt is 1x smaller")
    assert "the trainer applies the first sample's fraction to every one" in check.mismatch


def test_a_mask_of_another_size_than_its_target_is_named(tmp_path):
    check = verify_precomputed(_v2v_root(tmp_path, mask=(7, 17, 30)), V2V, SAMPLES, BUCKET)
    assert check.mismatch == ("video_masks/a.pt is a mask of 7x17x30, the target latents are 7x18x32")


def test_audio_latents_masks_and_embeddings_are_read_too(tmp_path):
    root = tmp_path / ".precomputed"
    _write(root, "latents", video_latents(49, 576, 1024))
    _write(root, "conditions", condition_embeddings())
    _write(root, "audio_latents", audio_latents(1.96))
    _write(root, "audio_masks", {"mask": (49,)})
    assert verify_precomputed(root, AV, SAMPLES, BUCKET).reusable
    write_pt(root / "audio_masks" / "b.pt", {"mask": (50,)})
    assert verify_precomputed(root, AV, SAMPLES, BUCKET).mismatch == (
        "audio_masks/b.pt is a mask of 50 steps, the audio latents have 49"
    )
    _write(root, "audio_latents", video_latents(49, 576, 1024))  # video latents in audio/
    assert verify_precomputed(root, AV, SAMPLES, BUCKET).mismatch == (
        "audio_latents/a.pt has audio latents of 128x7x18x32, not 8 x time x 16"
    )
    _write(root, "audio_latents", audio_latents(1.96))
    _write(root, "conditions", {"x": (1, 2)})
    assert verify_precomputed(root, AV, SAMPLES, BUCKET).mismatch == (
        "conditions/a.pt has no prompt_attention_mask and video_prompt_embeds tensors"
    )
