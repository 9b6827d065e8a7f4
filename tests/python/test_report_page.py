"""A report page in a real browser (issue 20, item 6): a committed report is rendered again
from its data (``pertlab reproduce NAME --render-only``) and opened in headless Chromium,
which measures the laid-out page and takes a screenshot of it."""

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import matplotlib.image
import pytest
from typer.testing import CliRunner

from pertlab.cli import app

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (make sysdeps installs the chromium package)")

#: Figure 7: a wide summary table (17 columns), 84 per-run rows, a figure with error bars.
REPORT = "sigcomm07-fig7"
COMMITTED = Path(__file__).parents[2] / "docs" / "reproductions" / REPORT
#: A laptop's window; the page must fit it without scrolling sideways.
WIDTH = 1024

#: Appended to a copy of the page: after load, what the browser laid out, as JSON in body[data-probe].
PROBE = """<script>
addEventListener('load', () => {
  const top = e => e.getBoundingClientRect().top + scrollY;
  const shown = e => e.checkVisibility();
  const tables = [...document.querySelectorAll('table')];
  const claims = [...document.querySelectorAll('h2')].find(h => h.textContent.startsWith('Claims'));
  document.body.dataset.probe = JSON.stringify({
    scrollWidth: document.documentElement.scrollWidth,
    clientWidth: document.documentElement.clientWidth,
    claimsTop: claims ? top(claims) : null,
    images: [...document.images].map(i => ({top: top(i), decoded: i.complete && i.naturalWidth > 0, width: i.getBoundingClientRect().width})),
    shownTables: tables.filter(shown).map(t => ({top: top(t), rows: t.rows.length - 1})),
    foldedTables: tables.filter(t => !shown(t)).map(t => t.rows.length - 1),
  });
});
</script>"""


def _chromium(*args: str) -> str:
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--virtual-time-budget=10000", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180, check=True).stdout


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("page") / REPORT
    shutil.copytree(COMMITTED, folder)
    res = CliRunner().invoke(app, ["reproduce", REPORT, "--render-only", "--out", str(folder)])
    assert res.exit_code == 0, res.output
    return folder / "index.html"


def test_the_page_fits_the_window_and_puts_claims_and_figures_first(page):
    probe = page.with_name("probe.html")
    probe.write_text(page.read_text().replace("</body>", PROBE + "</body>"))
    dom = _chromium(f"--window-size={WIDTH},900", "--dump-dom", probe.as_uri())
    found = re.search(r'data-probe="([^"]*)"', dom)
    assert found, "the page's load event did not run"
    laid = json.loads(html.unescape(found.group(1)))
    # Nothing runs off the page: the wide table scrolls inside its own box.
    assert laid["clientWidth"] == WIDTH and laid["scrollWidth"] <= laid["clientWidth"], laid
    # Claims, then the figure (decoded, inside the window), then the tables shown.
    assert laid["images"] and all(i["decoded"] and i["width"] <= WIDTH for i in laid["images"]), laid["images"]
    first_table = min(t["top"] for t in laid["shownTables"])
    assert laid["claimsTop"] is not None and laid["claimsTop"] < laid["images"][0]["top"] < first_table, laid
    # The 84 per-run rows are folded away; the summary (28 points) is shown.
    assert laid["foldedTables"] == [84] and [t["rows"] for t in laid["shownTables"]] == [28], laid


def test_the_screenshot_shows_the_page(page, tmp_path):
    shot = tmp_path / "page.png"
    _chromium(f"--window-size={WIDTH},1400", f"--screenshot={shot}", page.as_uri())
    img = matplotlib.image.imread(shot)[..., :3]
    assert img.shape[:2] == (1400, WIDTH)
    # Not a blank page: dark text on white, and the figure's colours (its lines are not grey).
    dark = (img.max(axis=2) < 0.3).mean()
    coloured = (img.max(axis=2) - img.min(axis=2) > 0.3).mean()
    assert 0.005 < dark < 0.5 and coloured > 0.001, (dark, coloured)
