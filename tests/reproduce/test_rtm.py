"""The rtm-roc reproduction target in its quick form (shared run), its verdicts and registration."""

import pandas as pd
import pytest

from fsengine.data.corpora import read_sentence_polarity
from fsengine.reproduce import TARGETS, get_target, results
from fsengine.reproduce import rtm as rtm_target
from tests.conftest import require_real

#: the quick run's recorded numbers (2026-11-25; 400 objects / 200 tags / 15 relevant, seed 0;
#: sentence polarity, 1,500 snippets, 2 folds). The data and the fits are deterministic; the
#: bounds leave room for solver round-off only. Full-run levels for comparison: synthetic AUC
#: 0.84-0.88, sentence polarity 0.75-0.77 (RTM) and 0.774 (BernoulliNB) on all 10,662 snippets.
QUICK_AUC = {"RTM Power EP": 0.8670, "RTM EP": 0.8670, "RTM EM": 0.8663, "RTM Power EP + ARD": 0.8973,
             "RTM EP + ARD": 0.8905, "RTM EM + ARD": 0.9088, "MI": 0.8204, "L1": 0.7557}
QUICK_ACCURACY = {"RTM Power EP": 0.6213, "RTM EP": 0.6233, "RTM EM": 0.6227, "RTM Power EP + ARD": 0.6353,
                  "RTM EP + ARD": 0.6373, "RTM EM + ARD": 0.6247, "BernoulliNB": 0.6620, "L1": 0.6180}


@pytest.mark.slow  # the quick reproduction: a few minutes on real corpora
def test_rtm_roc_quick_numbers(quick_reproduction):
    require_real(read_sentence_polarity)
    assert "rtm-roc" in TARGETS and get_target("rtm-roc") is rtm_target.run
    report, seen = quick_reproduction("rtm-roc")
    out = report.parent
    auc = pd.read_csv(out / "synthetic_auc.csv", index_col=0)
    assert list(auc.index) == [0]
    for label, value in QUICK_AUC.items():
        assert auc[label].iloc[0] == pytest.approx(value, abs=0.01), label
    fits = pd.read_csv(out / "synthetic_fits.csv")
    assert len(fits) == 6 and fits.converged.all()
    folds = pd.read_csv(out / "accuracy_folds.csv")
    assert len(folds) == 2 * 8
    accuracy = folds.groupby("method").accuracy.mean()
    for label, value in QUICK_ACCURACY.items():
        assert accuracy[label] == pytest.approx(value, abs=0.01), label
    rtm = folds[folds.method.str.startswith("RTM")]
    assert rtm.skipped.notna().all() and rtm.converged.all()  # sentences: defaults converge
    text = report.read_text()
    # the first lines say in words that the slides' ordering is not reproduced here
    head = text.split("## Synthetic data")[0]
    assert "**not reproduced**" in head and "BernoulliNB beats every RTM variant in the table" in head
    rows = {r["quantity"]: r for r in results.read(out / "results.json")["rows"]}
    order = rows["ordering margin, accuracy, fixed prior, Sentence polarity"]
    assert order["ours"] == pytest.approx(QUICK_ACCURACY["RTM Power EP"] - QUICK_ACCURACY["RTM EP"], abs=0.01)
    assert order["verdict"].startswith("fails") and order["paper"] == pytest.approx(0.0104)
    for name in ("roc.html", "auc.html", "convergence.html", "accuracy.html"):
        html = (out / name).read_text()
        assert "cdn.plot.ly" in html and len(html) < 200_000  # plotly.js from the CDN, not inlined
    assert seen[-1] == pytest.approx(1.0) and seen == sorted(seen)


def test_ordering_margin_is_positive_only_for_the_slides_order():
    assert rtm_target.ordering_margin(pd.Series({"RTM Power EP": 0.9708, "RTM EP": 0.9683, "RTM EM": 0.9659})) == \
        pytest.approx(0.0024)
    assert rtm_target.ordering_margin(pd.Series({"RTM Power EP": 0.75, "RTM EP": 0.76, "RTM EM": 0.70})) < 0


def test_convergence_section_names_every_failed_fit():
    fits = pd.DataFrame({"corpus": ["subjectivity"] * 4, "method": ["RTM Power EP", "RTM Power EP", "RTM EM", "L1"],
                         "fold": [0, 1, 0, 0], "converged": [True, False, True, True], "sweeps": [57, 1000, 40, None],
                         "skipped": [0, 112, 0, None], "seconds": [4.0, 60.0, 1.0, 0.3]})
    text = rtm_target._convergence_lines(fits, ["corpus", "method"], "fold")
    assert "| subjectivity / RTM Power EP | 0.50 | 528.50 | 1000 | 112 | 32.00 |" in text
    assert ("**1 of 3 RTM fits did not converge**: subjectivity RTM Power EP, fold 1 "
            "(1000 sweeps, 112 factors skipped).") in text
    assert "Every RTM fit converged" in rtm_target._convergence_lines(fits.iloc[[0, 2]], ["corpus", "method"], "fold")
