"""Progress that tells the truth (issue 32, item 4): every fit of a comparison and of a benchmark
announces itself, by method and fit, before it runs; the message names the method that is running;
a command-line comparison's log names every method in turn, ``fsengine select`` names its method;
every registered method reports from inside its fit, in its own words."""


import re

import pytest

from fsengine.compare.runner import CompareSettings, fit_names, run_comparison
from fsengine.data import load_dataset
from fsengine.methods.registry import METHODS
from fsengine.methods.run import WARMUP_ROWS_PER_CLASS, fit_method
from fsengine.progress import subject
from tests.compare import spy_method
from tests.compare.spy_method import spy

SETTINGS = CompareSettings(n_bootstrap=3, max_k=6, seed=0)
LABELS = ["Spy A", "Spy B"]


@pytest.fixture(scope="module")
def glm():
    return load_dataset("synthetic_glm", n=160, p=10, k=3, seed=2)


def _messages(log):
    return [entry[1] for entry in log if entry[0] == "message"]


def _announced_before_each_fit_and_named_while_it_runs(log, expected, warm_rows):
    """The spies' fits in ``log`` (serial): each timed fit (more than ``warm_rows`` rows) is preceded
    by its name from ``expected`` (in order) and the fit's announcement; every message while a spy
    fits names it. Returns the timed fits' log positions."""
    starts = [i for i, entry in enumerate(log) if entry[0] == "fit"]
    timed = [i for i in starts if log[i][2] > warm_rows]
    assert len(timed) == len(expected)
    for name, i in zip(expected, timed):  # serial: the fits run in the order of their names
        last = _messages(log[:i])[-1]
        assert last.startswith(name + ", fitting on "), (name, last)  # announced: method, fit, rows
        assert log[i][1] == name.split(": ")[0]
    running = None
    for entry in log:
        if entry[0] == "fit":
            running = entry[1]
        elif entry[0] == "end":
            running = None
        elif running is not None:
            assert subject(entry[1]) == running, (running, entry[1])
    return timed


def test_every_fit_announces_itself_before_it_runs_and_the_bar_names_the_running_method(glm):
    spy_method.LOG.clear()
    result = run_comparison(glm, [spy(label) for label in LABELS], CompareSettings(n_bootstrap=3, max_k=6, n_repeats=2),
                            progress=lambda f, m: spy_method.LOG.append(("message", m)))
    assert result.labels == LABELS
    log = list(spy_method.LOG)
    warm_rows = 2 * WARMUP_ROWS_PER_CLASS
    _announced_before_each_fit_and_named_while_it_runs(log, fit_names(LABELS, 3, 2), warm_rows)
    warm = [i for i, entry in enumerate(log) if entry[0] == "fit" and entry[2] <= warm_rows]
    assert len(warm) == len(LABELS)
    for i in warm:  # the warm-up says what it is, under the method's first fit
        assert _messages(log[:i])[-1].startswith(f"{log[i][1]}: fit on the training part, warm-up")
    # its own steps come through, behind the method and the fit
    assert "Spy B: bootstrap fit 2 of 3, step 3 of 3" in _messages(log)
    assert "Spy A: fit on split 2 of 2, step 1 of 3" in _messages(log)
    # the accuracy tasks name the curve first
    assert "Spy B: held-out accuracy, split 2 of 2" in _messages(log)


def test_every_benchmark_fit_announces_itself_before_it_runs_and_the_bar_names_the_running_method(glm, monkeypatch):
    """fsengine benchmark: each (method, fold) task is named method first, announced before its fit
    (the warm-up too), and the selector's own steps come behind its name."""
    from fsengine.benchmark.protocol import Settings
    from fsengine.benchmark.runner import run_benchmark
    from fsengine.benchmark.suite import Entry

    for label in LABELS:
        monkeypatch.setitem(METHODS, spy(label).key, spy(label))
    spy_method.LOG.clear()
    entry = Entry("glm", "synthetic_glm", "Planted GLM", "test")
    run = run_benchmark((entry,), [(spy(label).key, {}) for label in LABELS], Settings(folds=3, repeats=1, k_grid="2"),
                        datasets=[glm], progress=lambda f, m: spy_method.LOG.append(("message", m)))
    assert set(run.status.values()) == {"ok"}
    log = list(spy_method.LOG)
    expected = [f"{label}: Planted GLM, repeat 1 fold {fold}" for fold in (1, 2, 3) for label in LABELS]
    timed = _announced_before_each_fit_and_named_while_it_runs(log, expected, 2 * WARMUP_ROWS_PER_CLASS)
    messages = _messages(log)
    for label in LABELS:  # the warm-up is said, under the method's first fold, before the first timed fit
        warm_up = f"{label}: Planted GLM, repeat 1 fold 1, warm-up"
        assert any(m.startswith(warm_up) for m in _messages(log[:timed[LABELS.index(label)]])), label
    assert "Spy B: Planted GLM, repeat 1 fold 3, step 2 of 3" in messages
    assert any(m.startswith("all features: Planted GLM, repeat 1 fold 2") for m in messages)


def test_select_names_its_method_in_every_message(tmp_path, capsys):
    """fsengine select: the selector's own reports come behind the method's label (captured stderr)."""
    from fsengine.cli import main

    assert main(["select", "--method", "l1", "--data", "synthetic_glm:p=12,n=160", "--param", "n_Cs=6",
                 "--out", str(tmp_path)]) == 0
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("select l1 ")]
    messages = [re.sub(r"^select l1 \[[#.]+\]\s+\d+%\s+[\d.]+s ", "", line) for line in lines]
    assert messages[0].startswith("L1: fitting on 160 rows x 12 features"), messages
    assert messages[-1] == "writing files" and len(messages) > 2
    assert all(m.startswith("L1: ") for m in messages[:-1]), messages


@pytest.mark.slow
def test_fits_on_worker_processes_announce_themselves_and_report_from_inside(glm):
    """n_jobs=2: the spies fit in worker processes; their start and their steps reach the parent
    (fsengine.task_progress), each fit's name before its end."""
    seen = []
    run_comparison(glm, [spy(label, sleep=0.3) for label in LABELS], SETTINGS, n_jobs=2,
                   progress=lambda f, m: seen.append((f, m)))
    messages = [m for _, m in seen]
    assert [f for f, _ in seen] == sorted(f for f, _ in seen)
    for name in fit_names(LABELS, 3, 1):
        done = next(i for i, m in enumerate(messages) if m.startswith(f"{name} done ("))
        assert name in messages[:done], name  # announced before it ended
        assert any(m.startswith(f"{name}, step ") for m in messages[:done]), name  # its own steps, from the worker


@pytest.mark.slow
def test_a_comparison_of_every_registered_method_announces_each_fit_before_it_runs():
    """Every registered method in one comparison (serial, a small planted GLM): each fit's name
    (method, fit) is the first message about it, its announcement ('fitting on ...') comes next,
    before anything the method says of itself, every message up to its end names it, and the bar
    never steps back."""
    ds = load_dataset("synthetic_glm", n=160, p=12, k=3, seed=1)
    seen = []
    result = run_comparison(ds, list(METHODS), CompareSettings(n_bootstrap=2, max_k=6, seed=0),
                            progress=lambda f, m: seen.append((f, m)))
    assert not result.failures and len(result.labels) == len(METHODS)
    fractions, messages = [f for f, _ in seen], [m for _, m in seen]
    assert fractions == sorted(fractions)
    for planned in fit_names(result.labels, 2, 1):
        # a method that warm starts (the RTM) runs its bootstrap fits in a second wave, named so
        name = planned if planned in messages else f"{planned} (warm start)"
        about = [i for i, m in enumerate(messages) if m == name or m.startswith(f"{name}, ") or m.startswith(
            f"{name} done (")]
        assert messages[about[0]] == name, (name, messages[about[0]])
        own = [messages[i] for i in about[1:-1] if "warm-up" not in messages[i]]
        assert own[0].startswith(f"{name}, fitting on "), (name, own[:2])
        assert messages[about[-1]].startswith(f"{name} done ("), name
        assert all(subject(m) == subject(name) for m in messages[about[0]:about[-1] + 1]), name


def _silent_and_self_named(keys):
    ds = load_dataset("synthetic_glm", n=120, p=12, k=3, seed=1)
    silent, self_named = [], []
    for key in keys:
        spec = METHODS[key]
        seen = []
        fit_method(spec, None, ds, lambda f, m: seen.append(m))
        own = seen[1:]  # the first is fit_method's announcement
        if not own:
            silent.append(key)
        # "RTM: ...", and "RTM Power EP: ..." too: the label as a word at the start
        named = [m for m in own if re.match(rf"{re.escape(spec.label)}\b", m)]
        if named:
            self_named.append((key, named[0]))
    return silent, self_named


def test_methods_report_from_inside_their_fit_and_never_name_themselves():
    """A method says more than the announcement while it fits, in its own words (the caller names
    it: fsengine.progress)."""
    assert _silent_and_self_named(["mi", "l1", "variance", "bia", "mdl", "rtm"]) == ([], [])


@pytest.mark.slow
def test_every_registered_method_reports_from_inside_its_fit_and_never_names_itself():
    silent, self_named = _silent_and_self_named(list(METHODS))
    assert not silent, f"methods that report nothing from inside their fit: {silent}"
    assert not self_named, f"messages that name their own method (the caller does): {self_named}"


def test_a_command_line_comparison_log_names_every_method_in_turn(tmp_path, capsys):
    """stderr captured (not a terminal): a line for every method when its first fit starts, and
    the fits' lines name the methods in the order they run, each method's together."""
    from fsengine.cli import main

    keys, labels = ["mi", "l1", "variance", "bia"], ["MI", "L1", "Variance", "BIA"]
    assert main(["compare", "--methods", ",".join(keys), "--data", "synthetic_glm:p=12,n=160", "--bootstrap", "2",
                 "--max-k", "6", "--k", "3", "--param", "bia.n_steps=20", "--out", str(tmp_path)]) == 0
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("compare ")]
    messages = [re.sub(r"^compare \S+ \[[#.]+\]\s+\d+%\s+[\d.]+s ", "", line) for line in lines]
    fits = [subject(m) for m in messages if subject(m) in labels and "held-out accuracy" not in m]
    in_turn = [label for i, label in enumerate(fits) if i == 0 or fits[i - 1] != label]
    assert in_turn == labels, messages
    assert any(m.startswith("MI: fit on the training part") for m in messages)
