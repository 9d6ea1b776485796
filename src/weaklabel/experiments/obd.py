"""Off-policy evaluation on real logs: the Open Bandit Dataset sample.

Protocol (the "evaluation of OPE" of Saito, Aihara, Matsutani & Narita, NeurIPS 2021
Datasets and Benchmarks, on the 10,000-round sample of each campaign that ships with obp):
the same platform logged its recommendations under two policies, uniform random and
Bernoulli Thompson sampling (BTS).  The random policy's click rate is estimated from the
BTS log by every estimator of :mod:`weaklabel.bandit.evaluation` (the target policy: each
item with probability 1 / n_items at the logged position; the reward model cross-fitted on
the BTS log by 5 folds, one logistic regression per item on the user features, affinities
and position) and compared with its on-policy rate, the mean click of its own log.  The
other direction estimates BTS's rate from the random log: the sample records only the shown
item's BTS propensity, and those moved during the week, so the target is BTS's distribution
averaged over the week, read off its log as each item's share of the rounds at each
position (for a policy that does not look at the user, its click rate is that average's
if the items' click rates held steady over the week).

A second stage learns a policy on the first half of the BTS log (in time order) and
estimates its click rate on the second half (SNIPS and doubly robust, the reward model
cross-fitted on that half), against the random policy's on-policy rate: Banditron fitted on
the logged clicks (a click is a right answer, weighted by the propensities) and a
reward-model policy (one logistic regression per item); each acts greedily on 90 % of the
rounds and uniformly on 10 %, so that every item keeps support.

Reported per campaign and estimator: the estimate and its 95 % interval, its relative error
``|estimate - on-policy| / on-policy``, whether the interval covers the on-policy rate, and
whether the difference is within the two logs' joint 95 % interval
``1.96 sqrt(se_estimate^2 + se_on-policy^2)``; and, over ``bootstrap`` resamples of the
rounds of both logs (the reward model kept), the share of resamples whose interval covers
the resampled on-policy rate and the mean relative error.  The diagnostics of the BTS log's
importance weights come with them.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..bandit import evaluation as ope
from ..datasets import load_obd
from .engine import Experiment
from .results import Summary, Table

EXPERIMENT = "obd"
DATASETS = ("all", "men", "women")
ESTIMATORS = ("ips", "snips", "clipped_ips", "direct_method", "doubly_robust", "switch_dr", "dr_shrinkage", "sndr")
LEARNED = {"banditron": "Banditron on the logged clicks", "reward_model": "reward model (logistic per item)"}
MODEL_BASED = ("direct_method", "doubly_robust", "switch_dr", "dr_shrinkage", "sndr")


def _estimate(name, a, p, r, P, R):
    fn = getattr(ope, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ope.OffPolicyWarning)
        return fn(a, p, r, P, R) if name in MODEL_BASED else fn(a, p, r, P)


def _evaluate(a, p, r, P, R, on_rewards, draws, resampled_target):
    """Every estimator on one log against the other log's on-policy rate, with the bootstrap:
    ``draws`` holds (rows of this log, rows of the on-policy log) per resample and
    ``resampled_target(rows, own)`` the target's probabilities on the resampled rows."""
    on = float(on_rewards.mean())
    on_se = float(on_rewards.std(ddof=1) / np.sqrt(on_rewards.size))
    out = {}
    for name in ESTIMATORS:
        est = _estimate(name, a, p, r, P, R)
        low, high = est.interval(0.95)
        covered, errors = 0, []
        for rows, own in draws:
            b = _estimate(name, a[rows], p[rows], r[rows], resampled_target(rows, own), R[rows])
            target = float(on_rewards[own].mean())
            lo_b, hi_b = b.interval(0.95)
            covered += lo_b <= target <= hi_b
            errors.append(abs(b.value - target) / target if target > 0 else np.nan)
        out[name] = {
            "value": est.value, "stderr": est.stderr, "bias": est.bias, "low": low, "high": high,
            "relative_error": abs(est.value - on) / on, "covers": bool(low <= on <= high),
            "within_joint": bool(abs(est.value - on) <= 1.96 * np.hypot(est.stderr + est.bias, on_se)),
            "bootstrap_coverage": covered / len(draws), "bootstrap_relative_error": float(np.nanmean(errors))}
    return out


def _draws(seed, n_log, n_own, bootstrap):
    rng = np.random.RandomState(seed)
    return [(rng.randint(0, n_log, n_log), rng.randint(0, n_own, n_own)) for _ in range(bootstrap)]


def campaign_cell(cfg):
    """One campaign: the random policy's click rate from the BTS log, every estimator."""
    rnd, bts = load_obd("random", cfg["dataset"]), load_obd("bts", cfg["dataset"])
    n, K = bts.actions.size, bts.n_items
    P = np.full((n, K), 1.0 / K)
    R = ope.cross_fit_rewards(bts.X, bts.actions, bts.rewards, n_actions=K, random_state=0)
    on = float(rnd.rewards.mean())
    diag = ope.diagnose(bts.actions, bts.propensities, P)
    draws = _draws(cfg["seed"], n, rnd.rewards.size, cfg["bootstrap"])
    out = {"on_policy": on, "on_policy_se": float(rnd.rewards.std(ddof=1) / np.sqrt(rnd.rewards.size)),
           "clicks_bts": int(bts.rewards.sum()), "clicks_random": int(rnd.rewards.sum()), "n_items": K,
           "ess": diag.ess, "max_weight": diag.max_weight, "top_share": diag.top_share,
           "warnings": list(diag.warnings)}
    out["estimates"] = _evaluate(bts.actions, bts.propensities, bts.rewards, P, R, rnd.rewards, draws,
                                 lambda rows, own: P[rows])
    return out


def _position_frequencies(actions, positions, n_items):
    """``F[position, item]``: the share of a log's rounds at each position that showed each item."""
    F = np.zeros((3, n_items))
    np.add.at(F, (positions, actions), 1.0)
    return F / np.maximum(F.sum(axis=1, keepdims=True), 1.0)


def reverse_cell(cfg):
    """One campaign: BTS's click rate from the random log.  The target is BTS's item
    distribution at each position averaged over the week, read off its own log as the share
    of its rounds at that position that showed each item (the sample records only the shown
    item's propensity, and BTS's probabilities moved during the week)."""
    rnd, bts = load_obd("random", cfg["dataset"]), load_obd("bts", cfg["dataset"])
    K = rnd.n_items
    P = _position_frequencies(bts.actions, bts.positions, K)[rnd.positions]
    R = ope.cross_fit_rewards(rnd.X, rnd.actions, rnd.rewards, n_actions=K, random_state=0)
    diag = ope.diagnose(rnd.actions, rnd.propensities, P)
    draws = _draws(cfg["seed"], rnd.rewards.size, bts.rewards.size, cfg["bootstrap"])

    def resampled(rows, own):       # the target re-read from the resampled BTS log
        return _position_frequencies(bts.actions[own], bts.positions[own], K)[rnd.positions[rows]]

    out = {"on_policy": float(bts.rewards.mean()),
           "on_policy_se": float(bts.rewards.std(ddof=1) / np.sqrt(bts.rewards.size)),
           "ess": diag.ess, "max_weight": diag.max_weight, "unsupported": diag.unsupported_mass,
           "warnings": list(diag.warnings)}
    out["estimates"] = _evaluate(rnd.actions, rnd.propensities, rnd.rewards, P, R, bts.rewards, draws, resampled)
    return out


def position_cell(cfg):
    """One campaign, position by position, both directions: each estimator on the rounds of
    one log shown at that position against the other log's click rate at that position (the
    reward models cross-fitted on the whole logs, the target read as in the campaign cells)."""
    rnd, bts = load_obd("random", cfg["dataset"]), load_obd("bts", cfg["dataset"])
    K = rnd.n_items
    directions = {
        "random from BTS": (bts, np.full((bts.actions.size, K), 1.0 / K), rnd),
        "BTS from random": (rnd, _position_frequencies(bts.actions, bts.positions, K)[rnd.positions], bts)}
    out = {}
    for direction, (log, P, truth) in directions.items():
        R = ope.cross_fit_rewards(log.X, log.actions, log.rewards, n_actions=K, random_state=0)
        for pos in range(3):
            rows, own = np.flatnonzero(log.positions == pos), truth.rewards[truth.positions == pos]
            on = float(own.mean())
            on_se = float(own.std(ddof=1) / np.sqrt(own.size))
            cell = {"on_policy": on, "clicks": int(log.rewards[rows].sum()), "estimates": {}}
            for name in ESTIMATORS:
                est = _estimate(name, log.actions[rows], log.propensities[rows], log.rewards[rows], P[rows], R[rows])
                low, high = est.interval(0.95)
                cell["estimates"][name] = {
                    "value": est.value, "relative_error": abs(est.value - on) / on if on > 0 else float("nan"),
                    "covers": bool(low <= on <= high),
                    "within_joint": bool(abs(est.value - on) <= 1.96 * np.hypot(est.stderr + est.bias, on_se))}
            out[f"{direction}|{pos}"] = cell
    return out


def _item_rewards(X_fit, a_fit, r_fit, X_new, n_items):
    """One logistic regression per item on the rounds that showed it: ``P(click | x, item)``
    on ``X_new`` (an item with no click or no round gets its click rate, or the overall one)."""
    from sklearn.linear_model import LogisticRegression

    out = np.empty((X_new.shape[0], n_items))
    for k in range(n_items):
        rows = np.flatnonzero(a_fit == k)
        if rows.size == 0 or np.unique(r_fit[rows]).size < 2:
            out[:, k] = r_fit[rows].mean() if rows.size else r_fit.mean()
            continue
        out[:, k] = LogisticRegression(max_iter=1000).fit(X_fit[rows], r_fit[rows]).predict_proba(X_new)[:, 1]
    return out


def _greedy(scores, explore):
    """``1 - explore`` on each row's best item, ``explore`` spread uniformly."""
    n, K = scores.shape
    P = np.full((n, K), explore / K)
    P[np.arange(n), np.argmax(scores, axis=1)] += 1.0 - explore
    return P


def learned_cell(cfg):
    """One campaign: policies learned on the first half of the BTS log, evaluated on the second."""
    from ..bandit import Banditron
    from ..bandit.logs import BanditLog

    rnd, bts = load_obd("random", cfg["dataset"]), load_obd("bts", cfg["dataset"])
    n, K = bts.actions.size, bts.n_items
    fit, test = np.arange(n // 2), np.arange(n // 2, n)
    X = bts.X
    a, p, r = bts.actions, bts.propensities, bts.rewards
    policies = {}
    log = BanditLog(X[fit], a[fit], r[fit], p[fit], bts.feature_names)
    learner = Banditron(random_state=0).fit(X[fit], log)
    scores = np.full((test.size, K), -np.inf)
    scores[:, learner.classes_] = learner.decision_function(X[test]).reshape(test.size, -1)
    policies["banditron"] = _greedy(scores, cfg["explore"])
    policies["reward_model"] = _greedy(_item_rewards(X[fit], a[fit], r[fit], X[test], K), cfg["explore"])
    R = ope.cross_fit_rewards(X[test], a[test], r[test], n_actions=K, random_state=0)
    on = float(rnd.rewards.mean())
    out = {"random_on_policy": on, "bts_test_on_policy": float(r[test].mean()), "clicks_fit": int(r[fit].sum()),
           "clicks_test": int(r[test].sum()), "policies": {}}
    for name, P in policies.items():
        res = {}
        for est_name in ("snips", "doubly_robust"):
            est = _estimate(est_name, a[test], p[test], r[test], P, R)
            low, high = est.interval(0.95)
            res[est_name] = {"value": est.value, "low": low, "high": high, "above_random": bool(low > on)}
        res["ess"] = ope.diagnose(a[test], p[test], P).ess
        out["policies"][name] = res
    return out


def plan(quick=False, repeats=None, datasets=None):
    names = list(datasets) if datasets else (["men"] if quick else list(DATASETS))
    return {"datasets": names, "bootstrap": repeats if repeats is not None else (20 if quick else 200),
            "explore": 0.1, "reverse": True, "positions": True, "quick": bool(quick)}


def execute(ctx):
    p = ctx.plan
    cells = [ctx.cell(campaign_cell, "eval", dataset=name, bootstrap=p["bootstrap"], seed=0) for name in p["datasets"]]
    rows = ctx.run(cells, desc=EXPERIMENT)
    if "explore" not in p:                     # a run planned before the learned-policy stage
        return rows
    learned = [ctx.cell(learned_cell, "learned", dataset=name, explore=p["explore"]) for name in p["datasets"]]
    learned = ctx.run(learned, desc="learned policies")
    if "reverse" not in p:                     # a run planned before the reverse direction
        return rows, learned
    reverse = [ctx.cell(reverse_cell, "reverse", dataset=name, bootstrap=p["bootstrap"], seed=0)
               for name in p["datasets"]]
    reverse = ctx.run(reverse, desc="BTS from the random log")
    if "positions" not in p:                   # a run planned before the table by position
        return rows, learned, reverse
    positions = [ctx.cell(position_cell, "positions", dataset=name) for name in p["datasets"]]
    return rows, learned, reverse, ctx.run(positions, desc="by position")


def summarize(ctx, result):
    p = ctx.plan
    rows, learned, reverse, positions = ((tuple(result) + ([],) * 3)[:4] if isinstance(result, tuple)
                                         else (result, [], [], []))
    logs, estimates = [], []
    for cfg, res in rows:
        name = cfg["dataset"]
        logs.append([name, res["n_items"], res["clicks_random"], res["on_policy"], 1.96 * res["on_policy_se"],
                     res["clicks_bts"], res["ess"], res["max_weight"], res["top_share"],
                     "; ".join(w.split(":")[0] for w in res["warnings"]) or "none"])
        for est in ESTIMATORS:
            e = res["estimates"][est]
            estimates.append([name, est, e["value"], f"[{e['low']:.5f}, {e['high']:.5f}]", e["relative_error"],
                              "yes" if e["covers"] else "no", "yes" if e["within_joint"] else "no",
                              e["bootstrap_coverage"], e["bootstrap_relative_error"]])
    tables = [
        Table("logs", "The logs: the random policy's on-policy click rate and the BTS log's importance weights "
                      "for the random policy",
              ["campaign", "items", "clicks (random log)", "on-policy click rate", "+- (95 %)", "clicks (BTS log)",
               "effective sample size", "largest weight", "top 1 % weight share", "warning"], logs,
              formats={"on-policy click rate": ".5f", "+- (95 %)": ".5f", "effective sample size": ".1f",
                       "largest weight": ".1f", "top 1 % weight share": ".3f"},
              note="10,000 rounds per log. The weights are 1 / (n_items * BTS's propensity)."),
        Table("estimates", "The random policy's click rate estimated from the BTS log",
              ["campaign", "estimator", "estimate", "95 % interval", "relative error", "covers the on-policy rate",
               "within the joint interval", "bootstrap coverage", "bootstrap relative error"], estimates,
              formats={"estimate": ".5f", "relative error": ".3f", "bootstrap coverage": ".2f",
                       "bootstrap relative error": ".3f"},
              note=f"Bootstrap: {p['bootstrap']} resamples of the rounds of both logs (the cross-fitted reward model "
                   "kept); coverage is the share whose interval covers the resampled on-policy rate. The default "
                   "settings: clip = tau = lam = 10."),
    ]
    if reverse:
        rrows = []
        for cfg, res in reverse:
            for est in ESTIMATORS:
                e = res["estimates"][est]
                rrows.append([cfg["dataset"], est, res["on_policy"], 1.96 * res["on_policy_se"], e["value"],
                              f"[{e['low']:.5f}, {e['high']:.5f}]", e["relative_error"],
                              "yes" if e["covers"] else "no", "yes" if e["within_joint"] else "no",
                              e["bootstrap_coverage"], e["bootstrap_relative_error"], res["ess"]])
        tables.append(Table(
            "reverse", "The other direction: BTS's click rate estimated from the random log",
            ["campaign", "estimator", "BTS on-policy click rate", "+- (95 %)", "estimate", "95 % interval",
             "relative error", "covers the on-policy rate", "within the joint interval", "bootstrap coverage",
             "bootstrap relative error", "effective sample size"], rrows,
            formats={"BTS on-policy click rate": ".5f", "+- (95 %)": ".5f", "estimate": ".5f",
                     "relative error": ".3f", "bootstrap coverage": ".2f", "bootstrap relative error": ".3f",
                     "effective sample size": ".1f"},
            note="The target: BTS's item shares at each position in its own log (its distribution averaged over the "
                 "week); the random log supports every item. The bootstrap resamples both logs and re-reads the "
                 "target from the resampled BTS log; the reward model is cross-fitted on the random log."))
    if positions:
        prows = []
        for cfg, res in positions:
            for key, cell in res.items():
                direction, pos = key.split("|")
                prows.append([cfg["dataset"], direction, int(pos) + 1, cell["clicks"], cell["on_policy"]]
                             + [f"{cell['estimates'][e]['relative_error']:.2f}"
                                + ("" if cell["estimates"][e]["covers"] else " (misses)")
                                + ("" if cell["estimates"][e]["within_joint"] else " (outside joint)")
                                for e in ESTIMATORS])
        tables.append(Table(
            "positions", "Position by position: each estimator's relative error", ["campaign", "direction",
            "position", "clicks (log)", "on-policy click rate (other log)"] + list(ESTIMATORS), prows,
            formats={"on-policy click rate (other log)": ".5f"},
            note="Each cell is the relative error of the estimate from one log's rounds at that position against the "
                 "other log's click rate at that position; \"misses\": the estimate's 95 % interval does not cover "
                 "that rate; \"outside joint\": the difference exceeds the two samples' joint 95 % interval. About "
                 "3,300 rounds and 8 to 30 clicks a cell."))
    if learned:
        lrows = []
        for cfg, res in learned:
            for name, pol in res["policies"].items():
                lrows.append([cfg["dataset"], LEARNED[name], res["clicks_fit"], res["clicks_test"],
                              res["random_on_policy"], res["bts_test_on_policy"], pol["ess"]]
                             + [f"{pol[e]['value']:.5f} [{pol[e]['low']:.5f}, {pol[e]['high']:.5f}]"
                                for e in ("snips", "doubly_robust")]
                             + ["yes" if pol["snips"]["above_random"] or pol["doubly_robust"]["above_random"]
                                else "no"])
        tables.append(Table("learned", "Policies learned on the first half of the BTS log, estimated on the second",
                            ["campaign", "policy", "clicks (first half)", "clicks (second half)", "random on-policy",
                             "BTS on-policy (second half)", "effective sample size", "SNIPS [95 %]",
                             "doubly robust [95 %]", "interval above random"], lrows,
                            formats={"random on-policy": ".5f", "BTS on-policy (second half)": ".5f",
                                     "effective sample size": ".1f"},
                            note=f"Each policy acts greedily on {1 - p['explore']:.0%} of the rounds and uniformly on "
                                 f"{p['explore']:.0%}; the reward model of the estimates is cross-fitted on the second "
                                 "half."))
    intro = ("The Open Bandit Dataset sample (10,000 real rounds per campaign and policy): the uniform random "
             "policy's click rate estimated from the Bernoulli Thompson sampling log, against its on-policy rate"
             + (", and the other way round." if reverse else ".")
             + (" QUICK run." if p["quick"] else ""))
    return Summary("Off-policy evaluation on the Open Bandit Dataset", intro, tables, [])


#: a reproduction module's public face is the experiments it registers (the command line runs
#: them); its cells and helpers are the engine's to call
__all__ = ["EXPERIMENTS"]

EXPERIMENTS = [Experiment(EXPERIMENT, "Off-policy evaluation on the Open Bandit Dataset (each policy's rate from the "
                                      "other's log)",
                          plan, execute, summarize, datasets=DATASETS, repeats_help="bootstrap resamples (default 200)")]
