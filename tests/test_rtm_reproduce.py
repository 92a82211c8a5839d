"""The rtm-roc reproduction target end to end on a tiny configuration, and its registration."""

import pandas as pd
import pytest

from fsengine.data.corpora import read_sentence_polarity
from fsengine.reproduce import TARGETS, get_target, rtm_roc
from tests.conftest import require_real


def test_rtm_roc_target_writes_report_and_figures(tmp_path, monkeypatch):
    require_real(read_sentence_polarity)
    assert "rtm-roc" in TARGETS and get_target("rtm-roc") is rtm_roc.run
    monkeypatch.setattr(rtm_roc, "SYNTHETIC_QUICK", dict(seeds=(0, 1), n_samples=200, n_tags=50, n_relevant=6))
    monkeypatch.setattr(rtm_roc, "CORPORA_QUICK", {"sentence_polarity": dict(folds=2, max_docs=300)})
    seen = []
    report = rtm_roc.run(tmp_path, quick=True, progress=lambda f, m="": seen.append(f))
    text = report.read_text()
    assert "0.7523" in text and "0.9708" in text  # the slides' table beside ours
    assert "| RTM Power EP |" in text and "What differs" in text
    auc = pd.read_csv(tmp_path / "synthetic_auc.csv", index_col=0)
    assert list(auc.index) == [0, 1] and {"RTM Power EP", "RTM EP", "RTM EM", "MI", "L1"} <= set(auc.columns)
    assert auc.to_numpy().min() > 0.5
    fits = pd.read_csv(tmp_path / "synthetic_fits.csv")
    assert len(fits) == 2 * 3 and set(fits.columns) >= {"seed", "method", "converged", "sweeps", "skipped"}
    assert "Convergence of the RTM fits (per seed" in text and "Convergence of the RTM fits (per fold" in text
    folds = pd.read_csv(tmp_path / "accuracy_folds.csv")
    assert len(folds) == 2 * 5 and folds.accuracy.between(0.4, 1.0).all()
    rtm = folds[folds.method.str.startswith("RTM")]
    assert rtm.skipped.notna().all() and rtm.converged.all()  # sentences: defaults converge
    for name in ("roc.html", "auc.html", "convergence.html", "accuracy.html"):
        html = (tmp_path / name).read_text()
        assert "cdn.plot.ly" in html and len(html) < 200_000  # plotly.js from the CDN, not inlined
    assert seen[-1] == pytest.approx(1.0) and seen == sorted(seen)


def test_convergence_section_names_every_failed_fit():
    fits = pd.DataFrame({"corpus": ["subjectivity"] * 4, "method": ["RTM Power EP", "RTM Power EP", "RTM EM", "L1"],
                         "fold": [0, 1, 0, 0], "converged": [True, False, True, True], "sweeps": [57, 1000, 40, None],
                         "skipped": [0, 112, 0, None], "seconds": [4.0, 60.0, 1.0, 0.3]})
    text = rtm_roc._convergence_lines(fits, ["corpus", "method"], "fold")
    assert "| subjectivity / RTM Power EP | 0.50 | 528.50 | 1000 | 112 | 32.00 |" in text
    assert ("**1 of 3 RTM fits did not converge**: subjectivity RTM Power EP, fold 1 "
            "(1000 sweeps, 112 factors skipped).") in text
    assert "Every RTM fit converged" in rtm_roc._convergence_lines(fits.iloc[[0, 2]], ["corpus", "method"], "fold")
