"""``kforge report``: pages made from real runs here (the reference, and wgpu on
lavapipe where it is available), opened in headless Chromium through Playwright, and
bad inputs refused before anything is written."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

import forge
from bench._report import Goal, Row, to_json
from kforge import main
from kforge._report_data import load_runs
from kforge._report_perf import _best_so_far, schedule_params

# one xdist group (scripts/test passes --dist loadgroup): its module fixtures run check,
# tune, certify and profile for real (22 s one by one, side by side now), once on one
# worker rather than on each
pytestmark = pytest.mark.xdist_group("report")

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("FORGE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
WGPU = forge.available_backends()["wgpu"][0]
BACKENDS = ["--backend", "reference"] + (["--backend", "wgpu"] if WGPU else [])
TUNED = "wgpu" if WGPU else "reference"


def _kforge(*args: str, code: int = 0) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "kforge", *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == code, done.stderr[-3000:]
    return done.stdout


def _bench_json(path: Path) -> None:
    """A bench run's JSON as ``python -m bench --json`` writes it (the bench needs CUDA)."""
    gemm = forge.get_kernel("gemm")
    rows = [
        Row(
            "P1",
            "affine 256 MiB/buffer, CUDA",
            "cuMemcpyDtoD",
            4000.0,
            3900.0,
            "GB/s",
            Goal(">=", 0.92),
        ),
        Row(
            "P4",
            "gemm 64^3 f32, CUDA",
            "torch.matmul",
            40.0,
            35.0,
            "TFLOP/s",
            Goal(">=", 0.7),
            raw={
                "work": {
                    "kernel": "gemm",
                    "backend": "reference",
                    "size": "64",
                    **gemm.work(64),
                    "median_ns": 2.0e5,
                }
            },
        ),
        Row("P5", "graph replay", "raw", None, None, "us", error="GpuUnavailable: no CUDA"),
    ]
    meta = {
        "date": "2026-12-01 10:00 UTC",
        "command": "python -m bench --quick",
        "cuda_device": {"name": "NVIDIA H200"},
        "wgpu_adapter": {"name": "NVIDIA H200"},
    }
    path.write_text(to_json(meta, rows))


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    """Real runs of check (passing, and a planted bug), tune, certify and
    profile-hardware --measure, saved as their commands write them."""
    d = tmp_path_factory.mktemp("runs")
    paths = {
        name: d / f"{name}.json"
        for name in ("check", "broken", "tune", "certify", "profile", "bench")
    }
    schedules = [
        f"--schedule={s}"
        for s in ("wg=64", "wg=128", "wg=256", "wg=64,ipt=4", "wg=128,ipt=4", "wg=4096")
    ]
    check = ("check", "affine", "gemm", *BACKENDS, "--samples", "4", "--results", paths["check"])
    broken = ("check", ROOT / "tests" / "report_kernels.py", *BACKENDS, "--samples", "3")
    tune = ("tune", "affine", "--backend", TUNED, "--size", "20000", *schedules)
    certify = ("certify", "raw_affine", "--backend", "reference", "--cache-dir", d / "cache")
    profile = ("profile-hardware", "--measure", *BACKENDS, "--results", paths["profile"])
    # five processes, each mostly start-up and compiles: side by side, not one by one
    with ThreadPoolExecutor(5) as pool:
        done = [
            pool.submit(_kforge, *check),
            # wrong on wgpu, or run by no device
            pool.submit(_kforge, *broken, "--results", paths["broken"], code=1),
            pool.submit(_kforge, *tune, "--samples", "3", "--json"),
            pool.submit(_kforge, *certify, "--json"),
            pool.submit(_kforge, *profile),
        ]
        outputs = [job.result() for job in done]
    paths["tune"].write_text(outputs[2])
    paths["certify"].write_text(outputs[3])
    _bench_json(paths["bench"])
    return paths


@pytest.fixture(scope="module")
def report(runs, tmp_path_factory) -> tuple[Path, Path]:
    d = tmp_path_factory.mktemp("report")
    out, pngs = d / "report.html", d / "png"
    printed = _kforge("report", *runs.values(), "-o", out, "--png", pngs)
    assert f"wrote {out}" in printed
    return out, pngs


# -- in the browser ------------------------------------------------------------------------
def _on_own_thread(function):
    """Run ``function`` on a thread of its own: Playwright's synchronous API leaves its
    thread's asyncio loop marked as running, which would reach later wgpu tests."""
    box: dict = {}

    def target() -> None:
        try:
            box["value"] = function()
        except BaseException as exc:  # noqa: BLE001 - re-raised on the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


def _visit(page_path: Path) -> dict:
    """Everything the tests look at in the page as Chromium shows it."""
    from playwright.sync_api import sync_playwright

    seen: dict = {"console": [], "errors": [], "requests": [], "figures": []}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS
        )
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 1000})
            page.on("console", lambda m: seen["console"].append((m.type, m.text)))
            page.on("pageerror", lambda e: seen["errors"].append(str(e)))
            page.on("request", lambda r: seen["requests"].append(r.url))
            page.goto(page_path.as_uri())
            for figure in page.locator("figure").all():
                image = figure.locator("img, svg").first
                seen["figures"].append(
                    {
                        "id": figure.get_attribute("id"),
                        "caption": figure.locator("figcaption").inner_text(),
                        "width": int(figure.get_attribute("data-width")),
                        "height": int(figure.get_attribute("data-height")),
                        "shot": image.screenshot(),
                    }
                )
            seen["text"] = page.locator("body").inner_text()
            seen["links"] = page.eval_on_selector_all(
                "svg a", "links => links.map(a => a.getAttribute('href'))"
            )
            seen["ids"] = page.eval_on_selector_all("[id]", "els => els.map(e => e.id)")
            broken = [h for h in seen["links"] if "double_wrong-wgpu" in h]
            if broken:
                page.locator(f'svg a[href="{broken[0]}"]').first.click()
                seen["clicked"] = (
                    page.evaluate("location.hash"),
                    page.locator(broken[0]).inner_text(),
                )
        finally:
            browser.close()
    return seen


@pytest.fixture(scope="module")
def browsed(report) -> dict:
    pytest.importorskip(
        "playwright", reason="Playwright is not installed (pip install 'kernel-forge[browser]')"
    )
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip(
            f"no Chromium at {CHROMIUM} (sudo apt-get install -y chromium, or set FORGE_CHROMIUM)"
        )
    return _on_own_thread(lambda: _visit(report[0]))


def _pixels(png: bytes) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("L"), dtype=np.float64)


def test_the_page_opens_offline_with_no_console_error(browsed, report):
    assert [m for m in browsed["console"] if m[0] in ("error", "warning")] == []
    assert browsed["errors"] == []
    assert {u for u in browsed["requests"] if not u.startswith("data:")} == {report[0].as_uri()}


def test_every_figure_is_in_the_page_and_none_is_blank(browsed, report):
    ids = [f["id"] for f in browsed["figures"]]
    assert sorted(ids) == sorted(p.stem for p in report[1].glob("*.png"))
    kernels = ["affine", "gemm", "double_wrong", "raw_affine"]
    wanted = (
        ["verdicts", "certify", "roofline-0", "tuning-0-affine", "convergence-0-affine", "bench-0"]
        + [f"timing-{i}-{k}" for i, k in enumerate(kernels)]
        + [f"errors-{i}-{k}" for i, k in enumerate(kernels)]
    )
    assert set(wanted) <= set(ids)
    assert any(i.startswith("mismatch-") for i in ids) == WGPU
    for figure in browsed["figures"]:
        assert _pixels(figure["shot"]).std() > 20, f"{figure['id']} looks blank"


def test_captions_say_what_on_which_adapter_from_which_run_with_the_numbers(browsed, runs):
    captions = {f["id"]: f["caption"] for f in browsed["figures"]}
    profile = json.loads(runs["profile"].read_text())
    for name, backend in profile["backends"].items():
        adapter = backend["adapter"]["name"]
        roofline = next(c for c in captions.values() if c.startswith(f"Roofline: {name} on"))
        assert adapter in roofline and "profile.json" in roofline
        assert f"copy {backend['ceilings']['copy']['value']:.4g} GB/s" in roofline
    check = json.loads(runs["check"].read_text())
    gemm_ulp = max(
        r["evaluations"][b]["max_ulp"]
        for r in check["results"]
        if r["kernel"] == "gemm"
        for b in r["evaluations"]
    )
    errors = captions["errors-1-gemm"]
    assert "check.json" in errors and f" {gemm_ulp}" in errors and "0 unwritten" in errors
    tune = json.loads(runs["tune"].read_text())
    tuning = captions["tuning-0-affine"]
    assert (tune["winner"] or tune["best"])["candidate"] in tuning and tune["adapter"] in tuning
    if WGPU:  # lavapipe refuses 4096 invocations; the table below the map says why
        assert "1 pruned" in tuning and "exceeds max_workgroup_size" in browsed["text"]
    timing = captions["timing-0-affine"]
    assert "host-wall-clock" in timing and ("gpu-timestamp" in timing) == WGPU
    assert "NVIDIA H200" in captions["bench-0"] and "0.975" in browsed["text"]  # 3900 / 4000


def test_the_verdict_matrix_links_each_cell_to_report_text_in_the_page(browsed):
    links = browsed["links"]
    backends = len(BACKENDS) // 2
    assert len(set(links)) == 3 * backends + 1  # check: 3 kernels; certify: raw_affine once
    for link in links:
        assert link.startswith("#report-") and link[1:] in browsed["ids"]
    if WGPU:
        where, text = browsed["clicked"]
        assert where.startswith("#report-") and "double_wrong on wgpu" in text
        assert "verdict: MISMATCH" in text and "y: MISMATCH in 11 of 1000 elements" in text


def test_the_pngs_open_with_the_size_the_page_states(browsed, report):
    from PIL import Image

    for figure in browsed["figures"]:
        with Image.open(report[1] / f"{figure['id']}.png") as image:
            assert image.format == "PNG"
            assert image.size == (figure["width"], figure["height"])
        assert f"{figure['id']}.png, {figure['width']} x {figure['height']} px" in figure["caption"]


# -- bad input -----------------------------------------------------------------------------
def _report_fails(capsys, tmp_path, *inputs: Path) -> str:
    out = tmp_path / "out" / "report.html"
    out.parent.mkdir()
    out.write_text("the report of yesterday")
    assert main(["report", *map(str, inputs), "-o", str(out), "--png", str(tmp_path / "png")]) == 2
    assert out.read_text() == "the report of yesterday"  # nothing half-written...
    assert os.listdir(out.parent) == ["report.html"] and not (tmp_path / "png").exists()
    return capsys.readouterr().err


def test_a_results_file_of_another_version_is_refused_naming_it(capsys, tmp_path, runs):
    old = tmp_path / "old.json"
    old.write_text(
        json.dumps({**json.loads(runs["check"].read_text()), "format": "kforge-check/0"})
    )
    err = _report_fails(capsys, tmp_path, runs["check"], old)
    assert f"{old} is not a result of format kforge-check/1" in err
    assert "it says 'kforge-check/0'" in err and "ResultsFileError" in err


def test_a_truncated_results_file_is_refused_naming_it(capsys, tmp_path, runs):
    cut = tmp_path / "cut.json"
    cut.write_text(runs["check"].read_text()[:5000])
    assert f"{cut} is not valid JSON (truncated?)" in _report_fails(capsys, tmp_path, cut)


def test_an_empty_run_is_refused_naming_it(capsys, tmp_path):
    empty = tmp_path / "empty.json"
    empty.write_text(
        json.dumps(
            {
                "format": "kforge-check/1",
                "passed": False,
                "interrupted": False,
                "unavailable": {},
                "refused": {},
                "results": [],
            }
        )
    )
    assert f"{empty}: an empty run: it holds no evaluation" in _report_fails(
        capsys, tmp_path, empty
    )


def test_a_result_missing_a_field_is_refused_saying_where(capsys, tmp_path, runs):
    data = json.loads(runs["check"].read_text())
    del data["results"][0]["evaluations"]["reference"]["verdict"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    assert f"{bad}: results[0].evaluations.reference has no field 'verdict'" in _report_fails(
        capsys, tmp_path, bad
    )


def test_without_matplotlib_the_report_says_how_to_install_it(capsys, tmp_path, runs, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    err = _report_fails(capsys, tmp_path, runs["check"])
    assert "pip install 'kernel-forge[report]'" in err


# -- from the commands ---------------------------------------------------------------------
@pytest.mark.parametrize(
    "command",
    [
        ["check", "affine", "--backend", "reference", "--size", "4096"],
        ["tune", "affine", "--backend", "reference", "--schedule", "wg=64", "--schedule", "wg=256"],
        ["certify", "affine", "--backend", "reference"],
    ],
    ids=lambda c: c[0],
)
def test_report_on_a_command_writes_its_page(command, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("FORGE_CACHE_DIR", str(tmp_path / "cache"))
    page = tmp_path / "run.html"
    assert main([*command, "--samples", "3", "--report", str(page)]) == 0
    text = page.read_text()
    assert text.startswith("<!DOCTYPE html>") and text.count("<figure") >= 2
    assert f"this kforge {command[0]}" in text and "affine" in text
    assert f"report written to {page}" in capsys.readouterr().err


# -- pieces --------------------------------------------------------------------------------
def test_schedule_text_gives_the_tuned_parameters_unless_the_tuner_names_them():
    assert schedule_params({"schedule": "wg=16x16,ipt=1,vec=4,tile=64x64x8"}) == {
        "wg": "16x16",
        "ipt": "1",
        "vec": "4",
        "tile": "64x64x8",
    }
    assert schedule_params({"schedule": "x", "params": {"BLOCK_M": 64}}) == {"BLOCK_M": "64"}


def test_convergence_counts_wrong_candidates_but_never_takes_their_time(runs):
    tune = load_runs([str(runs["tune"])]).tunes[0]
    tune.history = [
        {"median_ns": 5e3, "status": "eliminated"},
        {"median_ns": 1e3, "status": "wrong"},
        {"median_ns": 2e3, "status": "winner"},
    ]
    assert _best_so_far(tune) == [5.0, 5.0, 2.0]


def test_tune_axes_pick_the_heat_maps_parameters_and_an_unknown_one_is_refused(
    runs, tmp_path, capsys
):
    page = tmp_path / "tune.html"
    assert main(["report", str(runs["tune"]), "-o", str(page), "--tune-axes", "ipt,wg"]) == 0
    assert "in each cell of ipt x wg" in page.read_text()
    assert (
        main(
            ["report", str(runs["tune"]), "-o", str(tmp_path / "no.html"), "--tune-axes", "wg,tile"]
        )
        == 2
    )
    assert (
        "--tune-axes names tile, which the candidates of tune.json do not have (they "
        "have wg, ipt, vec)" in capsys.readouterr().err
    )
    assert not (tmp_path / "no.html").exists()


def test_a_fleet_run_gets_a_column_per_backend_and_adapter(runs, tmp_path):
    """Two machines' check files (the second's adapter renamed, as another GPU would
    name itself): one matrix, each backend split by adapter, every cell linked."""
    from kforge._report_figures import verdict_matrices

    other = json.loads(runs["check"].read_text())
    for result in other["results"]:
        for ev in result["evaluations"].values():
            ev["adapter"] = {**ev["adapter"], "name": "Second GPU"}
    second = tmp_path / "second.json"
    second.write_text(json.dumps(other))
    matrix = verdict_matrices(load_runs([str(runs["check"]), str(second)]))[0]
    backends = len(BACKENDS) // 2
    assert len(matrix.links) == 2 * 2 * backends  # affine, gemm x backends x 2 adapters
    assert "with the adapter where a backend ran on several" in matrix.caption
    assert "reference on Second GPU" in matrix.caption


def test_a_tune_file_with_parameters_is_drawn_over_them(runs, tmp_path):
    """kforge tune writes the winner and best as candidates, the adapter as its name,
    each candidate's key, tunables and measuring order, and the work nested; a kernel's
    own parameter (here UNROLL, added to each measured candidate) is an axis of the
    landscape like a schedule knob, and the convergence follows the measuring order."""
    data = json.loads(runs["tune"].read_text())
    assert isinstance(data["adapter"], str) and "work" in data
    ordered = sorted(
        (c for c in data["candidates"] if c["median_ns"] is not None), key=lambda c: c["order"]
    )
    assert ordered, "the tune measured nothing"
    keys = {}
    for c in ordered:
        keys[c["candidate"]] = f"{c['candidate']} UNROLL={c['order'] % 2}"
        c.update(candidate=keys[c["candidate"]], tunables={"UNROLL": c["order"] % 2})
    best = next(c for c in ordered if c["candidate"] == keys[data["best"]["candidate"]])
    data.update(best=best, winner=None, strategy="tpe")
    reworked = tmp_path / "reworked.json"
    reworked.write_text(json.dumps(data))
    tune = load_runs([str(reworked)]).tunes[0]
    assert tune.chosen() is best or tune.chosen() == best
    assert [h["candidate"] for h in tune.history] == [c["candidate"] for c in ordered]
    page = tmp_path / "reworked.html"
    assert main(["report", str(reworked), "-o", str(page), "--tune-axes", "UNROLL,wg"]) == 0
    text = page.read_text()
    assert "in each cell of UNROLL x wg" in text and "strategy tpe" in text
    assert f"{best['candidate']} (circle)" in text and "affine (tuned)" in text


def test_the_committed_h200_example_is_still_read_by_kforge_report(tmp_path):
    """examples/report-h200 holds the files a real H200 run wrote: the report must still
    read them (a format change that breaks saved results is caught here), with the
    figures their content calls for."""
    import gzip

    example = Path(__file__).resolve().parents[1] / "examples" / "report-h200"
    check = tmp_path / "check.json"
    check.write_bytes(gzip.decompress((example / "check.json.gz").read_bytes()))
    names = [str(example / n) for n in ("profile.json", "tune.json", "bench.json")]
    data = load_runs([*names, str(check)])
    kinds = {run.kind for run in data.runs}
    assert kinds == {"profile", "tune", "bench", "check"}
    assert sum(len(run.evaluations) for run in data.runs) >= 330
    out = tmp_path / "again.html"
    assert (
        main(["report", *(str(example / n) for n in ("profile.json", "tune.json")), "-o", str(out)])
        == 0
    )
    page = out.read_text(encoding="utf-8")
    assert "Roofline: cuda on NVIDIA H200" in page and "Tuning: gemm" in page
