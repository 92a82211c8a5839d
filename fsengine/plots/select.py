"""Figures of one fitted selector, as ``fsengine select`` writes them.

Generic figures work for every selector of the contract (scores and ranking); the per-method
functions reuse the builders of the method's own page (``plots/bia.py``, ``plots/classic.py``,
``plots/gain.py``, ``plots/bayes_factor.py``, ``plots/rtm.py``).
A per-method function has the signature ``figures(selector, names, image_shape)`` where
``names`` are the names of the columns the selector was fitted on and ``image_shape`` is None
unless those columns are the pixels of an image; it returns ``{file stem: figure}``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from fsengine.plots.bayes_factor import beta_rounds_figure
from fsengine.plots.bia import path_figure
from fsengine.plots.classic import boosting_rounds, feature_image, l1_selector_path, mdl_curve, mi_bars
from fsengine.plots.gain import gain_computations, gain_per_stage
from fsengine.plots.rtm import convergence_figure, relevant_tags_figure, theta_image_figure
from fsengine.plots.style import HIGHLIGHT, MUTED, apply_style
from fsengine.position import Position

#: path lines the BIA figure draws at most in a written HTML file
MAX_PATH_LINES = 1500
#: path steps the BIA figure keeps
PATH_POINTS = 60


def top_ranked(scores: np.ndarray, ranking: np.ndarray, support: np.ndarray, names: Sequence[str], *,
               top: int = 30, method: str = "") -> go.Figure:
    """The first ``top`` features of the ranking (best at the top) with their scores; features the
    method itself selected in the highlight colour. Missing scores (NaN: the method did not see
    the feature) are drawn as empty bars."""
    order = np.asarray(ranking)[:top]
    values = np.asarray(scores, dtype=np.float64)[order]
    shown = np.where(np.isfinite(values), values, np.nan)
    fig = go.Figure(go.Bar(
        x=shown, y=[f"{i + 1}. {names[j]}" for i, j in enumerate(order)], orientation="h",
        marker_color=[HIGHLIGHT if support[j] else MUTED for j in order], customdata=order,
        hovertemplate="%{y} (feature %{customdata})<br>score = %{x:.4g}<extra></extra>"))
    fig.update_yaxes(autorange="reversed", type="category", title=None)
    fig.update_xaxes(title="score (higher = more relevant)")
    return apply_style(fig, title=f"{method}: first {order.size} features of the ranking "
                                  f"(red: selected by the method, {int(np.sum(support))} in all)".lstrip(": "),
                       height=max(320, 20 * order.size + 100))


def score_by_rank(scores: np.ndarray, ranking: np.ndarray, support: np.ndarray, *, method: str = "") -> go.Figure:
    """Every feature's score against its rank position: where the scores fall off, and where the
    method's own selection ends."""
    ranking = np.asarray(ranking)
    values = np.asarray(scores, dtype=np.float64)[ranking]
    position = np.arange(1, ranking.size + 1)
    chosen = np.asarray(support)[ranking]
    fig = go.Figure()
    fig.add_trace(go.Scattergl(x=position, y=values, mode="lines", name="score",
                               line=dict(color="#1f77b4", width=2), customdata=ranking,
                               hovertemplate="rank %{x} (feature %{customdata})<br>score = %{y:.4g}<extra></extra>"))
    fig.add_trace(go.Scattergl(x=position[chosen], y=values[chosen], mode="markers", name="selected by the method",
                               marker=dict(color=HIGHLIGHT, size=5), hoverinfo="skip"))
    fig.update_xaxes(title="rank", type="log" if ranking.size > 200 else "linear")
    fig.update_yaxes(title="score")
    return apply_style(fig, title=f"{method}: score against rank".lstrip(": "), height=380)


def score_image(scores: np.ndarray, image_shape: tuple[int, int], *, method: str = "") -> go.Figure:
    """Scores of image pixels as an image (NaN pixels, never seen by the method, left blank)."""
    return feature_image(np.asarray(scores, dtype=np.float64), image_shape,
                         title=f"{method}: score per pixel".lstrip(": "), colorbar="score")


def bia_figures(selector, names, image_shape) -> dict[str, go.Figure]:
    """Fig. 2A of Fisher & Mehta: the posterior path (``plots.bia.path_figure``), thinned to at
    most ``PATH_POINTS`` path steps spread evenly on the log axis so the file stays small."""
    path = selector.path_
    rows = np.unique(np.round(np.geomspace(1, len(path), min(PATH_POINTS, len(path)))).astype(int) - 1)
    path = path.iloc[rows].copy()
    path.columns = list(names)
    position = Position.nearest(path.index, selector.lambda_ratio)  # the kept step nearest the reported Λ/Λ*
    return {"bia_path": path_figure(path, position=position, top_k=20, image_shape=image_shape,
                                    title="BIA: posterior path", max_lines=MAX_PATH_LINES)}


def mi_figures(selector, names, image_shape) -> dict[str, go.Figure]:
    """Mutual-information bars (``plots.classic.mi_bars``), significant features in red."""
    return {"mi_bars": mi_bars(selector.scores_, list(names), top=30, selected=selector.support_)}


def mdl_figures(selector, names, image_shape) -> dict[str, go.Figure]:
    """The description-length curve with its minimum (``plots.classic.mdl_curve``)."""
    return {"mdl_curve": mdl_curve(selector.trace_, selector.best_size_)}


def l1_figures(selector, names, image_shape) -> dict[str, go.Figure]:
    """The L1 path with the number of active features (``plots.classic.l1_selector_path``)."""
    return {"l1_path": l1_selector_path(selector, names)}


def boosting_figures(selector, names, image_shape) -> dict[str, go.Figure]:
    """Loss and the stump feature of every round (``plots.classic.boosting_rounds``)."""
    if not len(selector.trace_):
        return {}
    return {"boosting_rounds": boosting_rounds(selector.trace_, list(names))}


def gain_figures(selector, names, image_shape) -> dict[str, go.Figure]:
    """Figures of a maxent gain selector (``plots.gain``): the gain of the pair selected at each
    stage and the gain computations per stage (Zhou et al. Fig. 3), labelled by the method."""
    label = "IFS" if type(selector).__name__ == "IFSSelector" else "SGC"
    traces = {label: selector.trace_}
    if not len(selector.trace_):
        return {}
    return {"gain_per_stage": gain_per_stage(traces), "gain_computations": gain_computations(traces)}


def bayes_factor_figures(selector, names, image_shape) -> dict[str, go.Figure]:
    """beta_0 and the candidates' log Bayes factors per round, automatic stop marked
    (``plots.bayes_factor.beta_rounds_figure``)."""
    if not len(selector.trace_):
        return {}
    return {"bayes_factor_rounds": beta_rounds_figure(selector.trace_, selector.stop_round_,
                                                      title="Bayes-factor selection: rounds")}


def rtm_figures(selector, names, image_shape) -> dict[str, go.Figure]:
    """The RTM's convergence per sweep and its most relevant tags with their posterior theta
    (``plots.rtm``); for image data also theta per pixel."""
    est = selector.model_
    figures = {"rtm_convergence": convergence_figure({est.run_label_: est.trace_}, tol=est.tol),
               "rtm_tags": relevant_tags_figure(est.top_tags(list(names), k=25),
                                                class_names=tuple(map(str, est.classes_)))}
    if image_shape is not None:
        figures["rtm_theta_image"] = theta_image_figure(est.theta_mean_, image_shape,
                                                        class_names=tuple(map(str, est.classes_)))
    return figures
