"""The model of a search space learnt while it is measured (``search.surrogate``): a ridge
regression of log time on named features."""

import math

import numpy as np

from workbench.search import surrogate


def _rows(rng, count):
    rows = []
    for _ in range(count):
        f = {"a": float(rng.uniform(0, 4)), "b": float(rng.integers(0, 2)), "fixed": 1.0}
        rows.append((f, math.exp(0.5 * f["a"] - 0.8 * f["b"] + 1.0)))
    return rows


def test_a_fit_ranks_unseen_candidates_as_their_times_do():
    rng = np.random.default_rng(0)
    model = surrogate.fit(_rows(rng, 20))
    unseen = _rows(rng, 50)
    predicted = [model.predict(f) for f, _ in unseen]
    order_true = np.argsort([ms for _, ms in unseen])
    order_model = np.argsort(predicted)
    assert order_true[0] == order_model[0]
    assert np.corrcoef(predicted, [ms for _, ms in unseen])[0, 1] > 0.95
    weights = dict(model.strongest(3))
    assert weights["a"] > 0 > weights["b"] and weights.get("fixed", 0.0) == 0.0


def test_too_few_measured_candidates_give_no_model():
    rows = _rows(np.random.default_rng(1), surrogate.LEAST - 1)
    assert surrogate.fit(rows) is None
    assert surrogate.fit(rows + [({"a": 1.0}, 0.0)]) is None  # a failed run is no time


def test_log2_features_carry_their_square():
    f = surrogate.log2_features(x=8, y=0.5)
    assert f == {"x": 3.0, "x²": 9.0, "y": 0.0, "y²": 0.0}
    # a time that doubles with x is learnt as such: the prediction grows with x
    model = surrogate.fit([({"x": float(i)}, 2.0 ** i) for i in range(8)])
    assert model.predict({"x": 7.0}) > model.predict({"x": 3.0}) > model.predict({"x": 0.0})


def test_the_surrogate_and_the_cost_model_are_both_time_models():
    """One protocol (``model.TimeModel``): fitted to measured ``(features, ms)``, each
    predicts times from features and ranks candidates by them."""
    from workbench.search import cost
    from workbench.search.model import TimeModel, rank

    rows = _rows(np.random.default_rng(2), 20)
    learnt = surrogate.fit(rows)
    prior = cost.prior_for(kind="cpu")
    work = [({"work": float(w)}, 0.1 + 2.0 * w) for w in range(1, 9)]
    for model, measured in ((learnt, rows), (prior, work)):
        assert isinstance(model, TimeModel)
        again = model.fitted(measured)
        assert isinstance(again, TimeModel) and again.fitted_on == len(measured)
        assert again.as_json()["fitted_on"] == len(measured)
        features = [f for f, _ in measured]
        order = rank(again, features)
        assert sorted(order) == list(range(len(features)))
        predicted = [again.predict(features[i]) for i in order]
        assert predicted == sorted(predicted)
    # the cost model fitted to a time that grows with the work learns the work's weight
    assert prior.fitted(work).predict({"work": 8.0}) > prior.fitted(work).predict({"work": 1.0})
    assert surrogate.fit(rows).fitted(rows[:surrogate.LEAST - 1]) is None  # too few
