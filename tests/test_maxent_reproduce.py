"""The ``sgc-vs-ifs`` reproduction target in its quick configuration (real CoNLL-2000)."""

from fsengine.reproduce import TARGETS


def test_sgc_vs_ifs_quick_writes_report_and_small_figures(quick_reproduction):
    assert "sgc-vs-ifs" in TARGETS
    report, seen = quick_reproduction("sgc-vs-ifs")
    tmp_path = report.parent
    text = report.read_text()
    assert "92.75 / 93.25 with 1,160 SGC features" in text
    assert "| SGC | 60 |" in text and "| all features |" in text
    assert text.count("| IFS |") >= 4  # one speed row + Fig. 5 checkpoints
    figures = sorted(p.name for p in tmp_path.glob("*.html"))
    assert figures == ["np_fig3_gain_computations.html", "np_fig4_time.html", "np_fig5_scores.html",
                       "np_gain_per_stage.html", "np_overlap.html"]
    assert all((tmp_path / f).stat().st_size < 200_000 for f in figures)  # plotly.js from the CDN
    assert seen[-1] == 1.0 and all(0.0 <= f <= 1.0 for f in seen)
