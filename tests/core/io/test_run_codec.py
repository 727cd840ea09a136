"""The run folder's codec (core/io/run_codec.py) and its table (core/io/run_folder.py): every file in
the table declared once; files written by the wizard before the codec (old_run/, written by the
writers of the commit before it: plan, eval, autotune, prepare, status, the clip check) still read;
an unknown field, a wrong type or another version is refused with one line naming the file."""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import shutil
import threading
from pathlib import Path

import pytest

import ltx_wizard.core
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.io import run_folder
from ltx_wizard.core.io.run_codec import DECLARED, FileModel

OLD = Path(__file__).parent / "old_run"


def _core_modules() -> list[object]:
    """Every module of the core, imported: each declares its files at import."""
    names = [m.name for m in pkgutil.walk_packages(ltx_wizard.core.__path__, "ltx_wizard.core.")]
    return [importlib.import_module(name) for name in names]


def _declared() -> dict[str, FileModel[object]]:
    _core_modules()
    return dict(DECLARED)


def test_every_json_file_of_the_table_has_exactly_one_declaration():
    found: dict[str, set[int]] = {}
    for module in _core_modules():
        for value in vars(module).values():
            if isinstance(value, FileModel):
                found.setdefault(value.file.rel, set()).add(id(value))
    records = {f.rel for f in run_folder.TABLE if f.kind in ("json", "jsonl")}
    assert set(DECLARED) == records == set(found)
    assert all(found[rel] == {id(DECLARED[rel])} for rel in records)  # one model per file


def test_a_file_declared_twice_is_refused():
    from ltx_wizard.core.io.run_codec import declare

    _core_modules()
    with pytest.raises(RuntimeError, match="plan.json is declared twice"):
        declare(run_folder.PLAN_RECORD, dict)


def test_the_tables_names_are_unique_and_relative():
    rels = [f.rel for f in run_folder.TABLE]
    assert len(rels) == len(set(rels))
    assert all(not Path(rel).is_absolute() and ".." not in Path(rel).parts for rel in rels)


JSON_FILES = sorted(f.rel for f in run_folder.TABLE if f.kind == "json")


@pytest.fixture
def old_run(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    shutil.copytree(OLD, run)
    return run


@pytest.mark.parametrize("rel", JSON_FILES)
def test_a_file_written_before_the_codec_reads_and_writes_back_the_same(old_run, rel):
    declared = _declared()[rel]
    if declared.version > 1:  # the status cursor's check changed in version 2: an old one is refused
        with pytest.raises(UsageError, match="is of version 1, this ltx-wizard reads version 2"):
            declared.read(old_run)
        return
    value = declared.read(old_run)
    assert value is not None
    declared.write(old_run, value)
    assert json.loads((old_run / rel).read_text())["version"] == 1
    assert declared.read(old_run) == value


def test_the_old_readers_see_what_the_old_writers_wrote(old_run):
    from ltx_wizard.core.evaluation.job import read_job, read_state
    from ltx_wizard.core.evaluation.layout import read_manifest
    from ltx_wizard.core.io.run_meta import read_run_meta
    from ltx_wizard.core.plan.record import read_record
    from ltx_wizard.core.prepare.prepare_record import read_prepare_record
    from ltx_wizard.core.tuning.tune_record import read_tune_record

    meta = read_run_meta(old_run)
    assert meta.run_id and meta.launch is not None and meta.launch.simulated
    plan = read_record(old_run)
    assert plan is not None and plan.recipe == "t2v_lora" and plan.request.run_name == "run"
    tune = read_tune_record(old_run)
    assert tune is not None and tune.steps == (50, 25) and tune.summary.trials[0].peak_vram_gb == 40.5
    assert tune.duration is not None and tune.duration.load_s == 60.0
    job = read_job(old_run)
    assert job.prompts and isinstance(job.dims, tuple)
    state = read_state(old_run)
    assert state is not None and state.state == "done"
    manifest = read_manifest(old_run)
    assert manifest is not None and manifest.renders
    assert all(name == render.file for name, render in manifest.renders.items())
    prepared = read_prepare_record(old_run)
    assert prepared is not None and prepared.lora_trigger == "sks" and prepared.findings


def test_an_old_cursor_is_refused_for_its_version_and_old_clip_cache_lines_decode(old_run):
    """A version 1 cursor hashed only the 4 KB before its offset (version 2 samples the whole log
    and keeps the mtime): it is not trusted (CursorStore.load reads a refused cursor as none, and
    the log from its start)."""
    from ltx_wizard.core.dataset.clip_cache import LINE
    from ltx_wizard.core.monitor.cursor_store import CURSOR_FILE

    path = OLD / run_folder.STATUS_CURSOR.rel
    assert json.loads(path.read_text())["version"] == 1
    with pytest.raises(UsageError, match="is of version 1, this ltx-wizard reads version 2"):
        CURSOR_FILE.decode(path.read_bytes(), path)
    cache = OLD / run_folder.CLIP_CACHE.rel
    lines = [LINE.decode(line, cache) for line in cache.read_bytes().splitlines()]
    assert [(e.facts.kind, e.facts.has_audio) for e in lines] == [("video", True), ("video", False)]


def _first_text_key(doc: dict[str, object]) -> str:
    return next(k for k, v in doc.items() if isinstance(v, str) and k != "version")


def _refused(old_run: Path, rel: str, change) -> str:
    declared = _declared()[rel]
    doc = json.loads((OLD / rel).read_text())
    doc["version"] = declared.version  # an older file of a model since changed is refused first
    change(doc)
    (old_run / rel).write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(UsageError) as caught:
        declared.read(old_run)
    message = caught.value.message
    assert message.startswith(f"{declared.file.what} {old_run / rel} ") and "\n" not in message
    assert message.endswith(declared.file.fix)
    return message


@pytest.mark.parametrize("rel", JSON_FILES)
def test_an_unknown_field_is_refused_naming_the_file(old_run, rel):
    message = _refused(old_run, rel, lambda doc: doc.update(nice=5))
    assert "unknown field `$.nice`" in message


@pytest.mark.parametrize("rel", JSON_FILES)
def test_a_wrong_type_is_refused_naming_the_file(old_run, rel):
    def change(doc):
        doc[_first_text_key(doc)] = 12345

    message = _refused(old_run, rel, change)
    assert "is damaged (Expected `" in message and "got `int` - at `$." in message


@pytest.mark.parametrize("rel", JSON_FILES)
def test_a_future_version_is_refused_naming_the_file(old_run, rel):
    version = _declared()[rel].version
    message = _refused(old_run, rel, lambda doc: doc.update(version=version + 1))
    assert f"is of version {version + 1}, written by a newer ltx-wizard; this one reads {version}" in message


@pytest.mark.parametrize(
    ("rel", "change", "said"),
    [
        ("plan.json", lambda d: d["request"].update(nice=1), "`$.request.nice`"),
        ("autotune.json", lambda d: d["summary"]["trials"][0].update(nice=1), "`$.summary.trials[0].nice`"),
        ("autotune.json", lambda d: d["summary"]["trials"][0].update(index="1"), "at `trials.0.index`"),
        ("logs/eval-job.json", lambda d: d["prompts"][0].update(nice=1), "`$.prompts[0].nice`"),
        ("outputs/eval/prompts.json", lambda d: next(iter(d["renders"].values())).update(seed="42"), "`int`"),
        ("dataset/prepare.json", lambda d: d["findings"][0].update(nice=1), "`$.findings[0].nice`"),
        ("run.json", lambda d: d["launch"].update(simulated="yes"), "`$.launch.simulated`"),
    ],
)
def test_what_is_wrong_deep_inside_is_named(old_run, rel, change, said):
    assert said in _refused(old_run, rel, change)


def test_a_fifo_in_a_files_place_is_refused_at_once(old_run):
    from ltx_wizard.core.plan.record import read_record

    (old_run / "plan.json").unlink()
    os.mkfifo(old_run / "plan.json")
    done: list[BaseException] = []

    def read() -> None:
        try:
            read_record(old_run)
        except BaseException as exc:  # noqa: BLE001 - handed to the test's thread
            done.append(exc)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout=30)  # a bound on a hang, not a wait for time: it ends at once
    assert done and isinstance(done[0], UsageError) and "is a FIFO" in done[0].message


def test_a_write_never_follows_a_planted_link_and_leaves_no_temp_file(old_run, tmp_path):
    from ltx_wizard.core.tuning.tune_record import read_tune_record, write_tune_record

    rec = read_tune_record(old_run)
    outside = tmp_path / "outside.json"
    outside.write_text("keep")
    (old_run / "autotune.json").unlink()
    (old_run / "autotune.json").symlink_to(outside)
    with pytest.raises(UsageError, match="autotune.json is a symlink the wizard did not create"):
        write_tune_record(old_run, rec)
    assert outside.read_text() == "keep"
    (old_run / "autotune.json").unlink()
    write_tune_record(old_run, rec)
    assert read_tune_record(old_run) == rec
    assert [p.name for p in old_run.iterdir() if ".tmp" in p.name] == []
