"""The notebook progress bar: the tqdm adapter of progress callbacks (fsengine.progress.TqdmProgress)."""

import io

from fsengine.progress import STEPS, TqdmProgress


def test_progress_moves_the_bar_to_each_fraction_with_its_message():
    stream = io.StringIO()
    with TqdmProgress("fit", file=stream) as report:
        report(0.25, "stage 1")
        assert report.bar.n == STEPS // 4
        report(1.7, "over")  # clipped
        assert report.bar.n == STEPS
        report(0.5, "restarted")  # backwards: the bar follows
        assert report.bar.n == STEPS // 2
        assert report.bar.postfix == "restarted"
    assert report.bar.disable or report.bar.n == STEPS // 2
    assert "fit" in stream.getvalue()
