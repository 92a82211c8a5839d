"""``python -m fsengine reproduce bia-notmnist --quick`` on the real sample."""

import pandas as pd

from fsengine.cli import main
from fsengine.data import load_dataset
from tests.conftest import require_real


def test_bia_notmnist_quick(tmp_path):
    require_real(load_dataset, "notmnist")
    assert main(["reproduce", "bia-notmnist", "--quick", "--out", str(tmp_path)]) == 0
    for name in ("fig2a_path.html", "fig2b_posterior.html", "fig2c_top_pixels.html"):
        html = (tmp_path / name).read_text()
        assert "cdn.plot.ly" in html and len(html) < 1_500_000
    post = pd.read_csv(tmp_path / "posteriors_lambda_star.csv")
    assert len(post) == 784 and set(post["rank"]) == set(range(1, 785))
    assert post["posterior"].between(0, 1).all() and post["posterior"].max() > 0.55
    report = (tmp_path / "report.md").read_text()
    assert "| samples n | 1000 (500 per letter) | 1000 |" in report
    # the best pixels sit where B and D differ: right edge of the middle rows or B's middle bar
    best = post.sort_values("rank").head(10)
    assert best["row"].between(9, 16).all()
