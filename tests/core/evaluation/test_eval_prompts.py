"""The evaluation's prompts: the skill's three categories, drawn with seed 42, never invented."""

from __future__ import annotations

import json

import pytest

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.evaluation.prompts import (
    HELD_OUT,
    HELD_OUT_SKIPPED,
    IN_DIST,
    OUT_DIST,
    Sources,
    collect,
    edited,
    find_sources,
)


def _dataset(tmp_path, captions, name="dataset.json"):
    path = tmp_path / "dataset" / name
    path.parent.mkdir(exist_ok=True)
    rows = [{"caption": c, "video": f"clips/{i}.mp4"} for i, c in enumerate(captions)]
    if name.endswith(".jsonl"):
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    else:
        path.write_text(json.dumps(rows))
    return path


def test_three_training_captions_the_same_three_every_time_in_file_order(tmp_path):
    captions = [f"caption {i}" for i in range(20)]
    sources = Sources(_dataset(tmp_path, captions), None, None)
    first = collect(sources).of(IN_DIST)
    assert len(first) == 3 and [p.text for p in collect(sources).of(IN_DIST)] == [p.text for p in first]
    numbers = [int(p.text.split()[1]) for p in first]
    assert numbers == sorted(numbers) and len(set(numbers)) == 3
    assert all(p.seed == 42 for p in first)
    # each says which row it is, and carries that row's clip for the mode's conditions
    for p in first:
        row = int(p.source.split("row ")[1])
        assert captions[row - 1] == p.text
        assert p.media["video"].endswith(f"clips/{row - 1}.mp4")


def test_a_small_dataset_gives_all_its_captions(tmp_path):
    found = collect(Sources(_dataset(tmp_path, ["only one", "and two"]), None, None))
    assert [p.text for p in found.of(IN_DIST)] == ["only one", "and two"]


def test_held_out_all_up_to_five_else_five_drawn_and_skipped_plainly_without_a_file(tmp_path):
    train = _dataset(tmp_path, [f"t{i}" for i in range(5)])
    four = _dataset(tmp_path, [f"h{i}" for i in range(4)], "holdout.jsonl")
    assert [p.text for p in collect(Sources(train, four, None)).of(HELD_OUT)] == ["h0", "h1", "h2", "h3"]
    nine = _dataset(tmp_path, [f"h{i}" for i in range(9)], "holdout.jsonl")
    held = collect(Sources(train, nine, None)).of(HELD_OUT)
    assert len(held) == 5 and len({p.text for p in held}) == 5
    none = collect(Sources(train, None, None))
    assert none.of(HELD_OUT) == [] and HELD_OUT_SKIPPED in none.notes


def test_your_prompts_verbatim_else_three_generic_ones_with_the_trigger(tmp_path):
    train = _dataset(tmp_path, ["x"])
    mine = collect(Sources(train, None, "sks"), ["  my own prompt  ", ""]).of(OUT_DIST)
    assert [(p.text, p.source) for p in mine] == [("my own prompt", "your prompt")]
    made = collect(Sources(train, None, "sks"), [], audio=False)
    assert len(made.of(OUT_DIST)) == 3 and all(p.text.startswith("sks ") for p in made.of(OUT_DIST))
    assert any("generic" in n for n in made.notes)
    audio = collect(Sources(train, None, "sks"), [], audio=True).of(OUT_DIST)
    assert all("with the sound of" in p.text for p in audio)


def test_the_trigger_goes_in_front_of_captions_as_preprocessing_put_it(tmp_path):
    found = collect(Sources(_dataset(tmp_path, ["a cat"]), None, " sks "))
    assert found.of(IN_DIST)[0].text == "sks a cat"


def test_an_audio_run_with_your_silent_prompts_is_told_so(tmp_path):
    found = collect(Sources(_dataset(tmp_path, ["x"]), None, None), ["a dog runs"], audio=True)
    assert any("do not describe the sound" in n for n in found.notes)


def test_no_captions_anywhere_is_a_clear_refusal(tmp_path):
    with pytest.raises(UsageError, match="--dataset"):
        collect(find_sources(tmp_path))
    no_caption = tmp_path / "d.json"
    no_caption.write_text(json.dumps([{"video": "a.mp4"}]))
    with pytest.raises(UsageError, match="no caption column"):
        collect(Sources(no_caption, None, None))


def test_editing_a_category_keeps_the_others_and_drops_the_generic_note(tmp_path):
    found = collect(Sources(_dataset(tmp_path, ["a", "b", "c", "d"]), None, "sks"))
    changed = edited(found, OUT_DIST, ["first idea", "", "second idea"])
    assert [p.text for p in changed.of(OUT_DIST)] == ["first idea", "second idea"]
    assert [p.text for p in changed.of(IN_DIST)] == [p.text for p in found.of(IN_DIST)]
    assert not any("generic" in n for n in changed.notes)
    assert [p.category for p in changed.prompts] == [IN_DIST] * 3 + [OUT_DIST] * 2


def _preprocessed(run, dataset, samples, silent):
    """preprocess.json as `plan --dataset` writes it: each kept row's sample, those without sound."""
    from ltx_wizard.core.preprocess.preprocess_command import PreprocessSpec
    from ltx_wizard.core.preprocess.preprocess_state import PreprocessState, write_state

    spec = PreprocessSpec(buckets="576x576x89", model_path=run / "m", text_encoder_path=run / "g")
    state = PreprocessState(
        dataset_file=dataset,
        data_root=run / ".precomputed",
        spec=spec,
        trainer_dir=run,
        samples=tuple(samples),
        silent=tuple(silent),
    )
    write_state(run, state)


def test_in_distribution_captions_only_of_clips_the_trainer_trains_on(tmp_path):
    # item 8a: a silent clip under an audio recipe gets no audio latents and the trainer leaves it
    # out (datasets.py _discover_samples); its caption is no training caption
    dataset = _dataset(tmp_path, ["kept 0", "silent 1", "kept 2", "dropped 3 too short"])
    _preprocessed(tmp_path, dataset, ["clips/0.pt", "clips/1.pt", "clips/2.pt"], ["clips/1.pt"])
    sources = find_sources(tmp_path)
    assert sources.trained == frozenset({"clips/0.pt", "clips/2.pt"})
    texts = [p.text for p in collect(sources).of(IN_DIST)]
    assert texts == ["kept 0", "kept 2"]
    # another dataset file than the one preprocessed: nothing recorded for it, every row counts
    other = _dataset(tmp_path, ["a", "b"], name="other.json")
    assert find_sources(tmp_path, other).trained is None


def test_without_a_file_of_the_runs_own_out_of_distribution_prompts_take_the_training_rows_inputs(tmp_path):
    sources = Sources(_dataset(tmp_path, ["a", "b"]), None, None)
    ood = collect(sources, ["my prompt", "another", "third"], rows_for_ood=True).of(OUT_DIST)
    clips = [str(tmp_path / "dataset" / "clips" / f"{i}.mp4") for i in (0, 1, 0)]
    assert [p.media["video"] for p in ood] == clips
    assert all(not p.media for p in collect(sources, ["my prompt"]).of(OUT_DIST))
