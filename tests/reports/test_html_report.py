"""`check --format html`: one self-contained page, loaded in a real headless browser (Chromium from the OS
packages); the test asserts what rendered — the findings' count, one block per finding, the chains'
pictures — and leaves a screenshot in its tmp output folder."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PATHS = ("tests/fixtures/form3", "corpus/dense_decode_qkv.py")
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def browser() -> str | None:
    return next((b for b in map(shutil.which, BROWSERS) if b), None)


def check(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    return subprocess.run([sys.executable, "-m", "pypto_verify.cli", "check", *PATHS, "--no-sim", "--jobs", "1", *args],
                          cwd=ROOT, capture_output=True, text=True, env=env, timeout=600)


def chromium(binary: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                           "--disable-component-update", "--disable-sync", "--no-first-run",
                           f"--user-data-dir={tmp_path / 'profile'}", *args], capture_output=True, text=True,
                          timeout=180)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """The HTML report and the JSON report of the same run."""
    out = tmp_path_factory.mktemp("html")
    done = check(out, "--format", "html", "-o", str(out / "report.html"))
    assert done.returncode == 1, done.stderr  # the fixtures' planted defects
    data = json.loads(check(out, "--format", "json").stdout)
    return out / "report.html", data


def test_the_page_is_self_contained(report) -> None:
    page = report[0].read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert "<script" not in page and "<link" not in page and "<img" not in page and "@import" not in page
    # no attribute that makes a browser fetch anything (xmlns / DOCTYPE names are not fetched)
    assert not re.search(r'\s(src|href|xlink:href)="(https?:)?//', page)
    assert "url(" not in page


@pytest.mark.skipif(browser() is None, reason="no Chromium binary on PATH (apt-get install chromium); "
                                              ".ci/run installs it where apt-get is available")
def test_the_report_renders_in_a_headless_browser(report, tmp_path: Path) -> None:
    page, data = report
    binary = browser()
    assert binary is not None
    shot = tmp_path / "report.png"
    done = chromium(binary, tmp_path, f"--screenshot={shot}", "--window-size=1280,2000", page.as_uri())
    assert shot.is_file() and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", done.stderr[-2000:]
    dom = chromium(binary, tmp_path, "--dump-dom", page.as_uri()).stdout
    findings = data["findings"]
    assert len(findings) >= 10
    count = re.search(r'<span id="finding-count">(\d+)</span>', dom)
    assert count is not None and int(count.group(1)) == len(findings)
    assert len(re.findall(r'<div class="finding (error|warning|info)"', dom)) == len(findings)
    rules = sorted({f["rule"] for f in findings})
    assert re.findall(r'<section class="rule-group" id="rule-(PV\d+)"', dom) == rules
    with_findings = {(f["path"], f["kernel"]) for f in findings if f["kernel"]}
    figures = re.findall(r'<figure class="chains" id="chains-\d+">', dom)
    assert len(figures) == len(with_findings)
    if shutil.which("dot"):
        assert dom.count("<svg") == len(with_findings)  # inline SVG, parsed as SVG by the browser
        assert 'class="node finding"' in dom
    else:
        assert dom.count('<pre class="dot">') == len(with_findings)
    # every finding's source line is excerpted
    assert dom.count('class="hit"') == len(findings)
